#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The reliability tests with backend=cuda on the GPU host, which has no
# meson: the programs run directly. From the project root, after
#   source .gpu-host/activate.sh
# run
#   tests/fuzz/run-gpu-host.sh [BUILD_DIR]          (default: build)
# GPUCCL_TEST_BACKEND=auto checks the fallback instead; =cpu the CPU path.
#
#   fault-lib, fault-element   every device allocation and launch failing
#                              in turn (GPUCCL_FAULT=alloc:N / launch:N)
#   fault-lib-no-graph         the same kernel by kernel (GPUCCL_CUDA_GRAPH=0):
#                              a frame then fails between its kernels
#   renegotiate, bad-input     as in CI, on the GPU (then again under
#                              GST_TRACERS=leaks)
#   soak                       10^6 frames 64x48, then 10^4 frames 1080p:
#                              host RSS and device memory (nvidia-smi) flat
#
# Exit status: 0 all passed, 1 a failure, 77 all skipped (no usable GPU).
set -u
build="${1:-build}"
export GST_PLUGIN_PATH="$PWD/$build/gst"
export GST_REGISTRY="${TMPDIR:-/tmp}/gpucclblob-reliability-registry.bin"
export GPUCCL_TEST_BACKEND="${GPUCCL_TEST_BACKEND:-cuda}"
# One process per test program: a CUDA context does not survive fork(), and
# check forks after the suite set up (the element tests do the same).
export CK_FORK=no
bin="$build/tests/fuzz"

failed=0 skipped=0 total=0
run() {
  local name=$1
  shift
  total=$((total + 1))
  "$@"
  local rc=$?
  case $rc in
    0) echo "$name ($GPUCCL_TEST_BACKEND): OK" ;;
    77) echo "$name ($GPUCCL_TEST_BACKEND): SKIP"; skipped=$((skipped + 1)) ;;
    *) echo "$name ($GPUCCL_TEST_BACKEND): FAIL (exit $rc)"; failed=$((failed + 1)) ;;
  esac
}

run fault-lib "$bin/fault-lib"
run fault-lib-no-graph env GPUCCL_CUDA_GRAPH=0 "$bin/fault-lib"
run fault-element "$bin/fault-element"
run renegotiate "$bin/test-renegotiate"
run bad-input "$bin/test-bad-input"
run renegotiate-leaks env GST_TRACERS=leaks CK_FORK=no "$bin/test-renegotiate"
run bad-input-leaks env GST_TRACERS=leaks CK_FORK=no "$bin/test-bad-input"
run soak-small "$bin/soak" --frames 1000000
run soak-1080p "$bin/soak" --frames 40000 --width 1920 --height 1080

echo "$((total - failed - skipped)) passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] || exit 1
[ "$skipped" -lt "$total" ] || exit 77
exit 0
