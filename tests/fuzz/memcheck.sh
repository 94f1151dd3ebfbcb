#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run the library, element and reliability tests again under a meson test
# setup defined in tests/fuzz/meson.build:
#   valgrind  memcheck, 0 errors and 0 definite leaks (exit 101 otherwise)
#   leaks     GST_TRACERS=leaks: any GstObject/GstMiniObject alive at
#             gst_deinit() fails the test
#
#   tests/fuzz/memcheck.sh valgrind BUILD_DIR [meson test options]
#   tests/fuzz/memcheck.sh leaks BUILD_DIR
#
# The corpus shards (whole-corpus oracle comparisons), the GPU-only tests,
# the soak and the libFuzzer run are left out: they add time, not paths.
# Exit 77 when the tool is missing.
set -u
setup=$1
build=$2
shift 2
if [ "$setup" = valgrind ] && ! command -v valgrind >/dev/null 2>&1; then
  echo "memcheck.sh: SKIP: valgrind is not installed"
  exit 77
fi
meson=${MESON:-meson}
exec "$meson" test -C "$build" --no-rebuild --setup "$setup" \
  --num-processes "$(nproc 2>/dev/null || echo 2)" --print-errorlogs \
  --suite element --suite reliability --suite fuzz --suite oracle --suite track \
  --no-suite corpus --no-suite gpu --no-suite soak --no-suite memcheck \
  --no-suite fuzz-run "$@"
