#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 26 on the GPU host with GStreamer 1.26 (the Debian 13 bundle):
# the element's tests on backend=cuda, the stream-ordering race test in its
# two modes and under compute-sanitizer, and the pipeline bench's
# stream-wait and several-GPU modes. About 4 minutes. From the project
# root, after scripts/build-debian13 and scripts/gpu-host13-prepare here:
#
#   source .gpu-host13/activate.sh
#   tests/element/run-gpu-host13.sh .gpu-host13/build "$OUT"
#
# Each step's log goes to OUT/<step>.log, a line per step says its exit
# status (77: skipped). Exits 1 when a step failed. The Debian 12 bundle
# (GStreamer 1.22) keeps tests/element/run-gpu-host.sh (and
# tests/run-gpu-host.sh), where the race test skips: 1.22's CUDA memory
# carries no stream.
set -u
build="${1:?usage: run-gpu-host13.sh BUILD_DIR OUT_DIR}"
out="${2:?usage: run-gpu-host13.sh BUILD_DIR OUT_DIR}"
mkdir -p "$out"
export GST_PLUGIN_PATH="$PWD/$build/gst"
export GST_DEBUG="${GST_DEBUG:-*:2}"
race="$build/tests/element/test-element-cuda-stream-order"
bench="$build/bench/gpucclblob-pipeline-bench"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# cudaconvert and cudaupload compile their kernels with NVRTC: the host's.
nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so.* 2>/dev/null | head -n 1)
[ -n "$nvrtc" ] && export GST_CUDA_NVRTC_LIBNAME="$nvrtc"

failed=0
# step NAME LIMIT COMMAND...: 0 or 77 (skipped) pass. must_run: only 0
# does (the race test skips without 1.24 or a GPU: not here).
step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout -k 5 "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc ($((SECONDS - start)) s)"
  tail -n 4 "$out/$name.log"
  case $rc in 0) ;; 77) [ -n "${strict:-}" ] && failed=1 ;; *) failed=1 ;; esac
}
must_run() {
  strict=1 step "$@"
}

step versions 20 sh -c 'cat "$GPU_HOST_ROOT/VERSION"; gst-inspect-1.0 --version; \
  nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv'
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')

# Every element program on the CUDA backend (cuda-memory's two-GPU tests
# skip with one GPU; cuda-stream-order runs here too, once).
step element-cuda 130 env ELEMENT_TEST_TIMEOUT=25 \
  tests/element/run-gpu-host.sh "$build"

# The race: by default the element waits for the producer's stream and
# finds the rectangle; with GPUCCL_CUDA_STREAM_WAIT=0 the test passes only
# if the element read the frame before the producer wrote it.
must_run race-wait 30 env GPUCCL_TEST_BACKEND=cuda "$race"
must_run race-no-wait 30 env GPUCCL_TEST_BACKEND=cuda GPUCCL_CUDA_STREAM_WAIT=0 \
  "$race"
for tool in racecheck synccheck; do
  must_run "race-$tool" 60 env GPUCCL_TEST_BACKEND=cuda CK_FORK=no \
    "$sanitizer" --tool "$tool" --error-exitcode 99 "$race"
done

# What the wait costs the single-stream CUDA-memory path: on and off in
# alternating child processes, frames with a GstCudaStream (goal: 2 %).
step stream-wait-check 90 "$bench" --stream-wait-check --sizes 1080p \
  --formats NV12 --draw none --repeat 5 --seconds 0.5

# Several GPUs in one process: the streams on GPU 0 alone, then spread
# (goal: 1.8x one GPU), CUDA memory made on each stream's GPU and system
# memory labeled there.
if [ "$gpus" -ge 2 ]; then
  step devices 120 "$bench" --backends cuda --devices 0,1 --streams 4,8 \
    --memory cuda,system --sizes 1080p --formats NV12 --draw none \
    --seconds 0.3 --csv "$out/devices.csv"
else
  echo "== devices: skipped ($gpus GPU; needs 2: nvidia-h100-x2)"
fi
exit $failed
