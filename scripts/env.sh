# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the project's scripts: put the CUDA toolkit on PATH when it is
# installed in its usual place, so meson finds nvcc.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
