#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The element tests with backend=cuda on the GPU host, which has no meson:
# the test programs run directly. From the project root, after
#   source .gpu-host/activate.sh
# (or .gpu-host13/activate.sh, GStreamer 1.26, with the build in
# .gpu-host13/build; run-gpu-host13.sh runs this and issue 26's steps) run
#   tests/element/run-gpu-host.sh [BUILD_DIR]        (default: build)
# GPUCCL_TEST_BACKEND=cpu runs the same programs on the CPU backend.
#
# The programs check the element against OpenCV (tests/common), so the
# .gpu-host bundle must carry the oracles' runtime libraries; prepare it
# on the development machine with
#   ../shared/gpu-host/prepare liblept5 libopencv-core406 \
#     libopencv-imgproc406 libtbb12 libblas3 liblapack3 libgfortran5 \
#     libquadmath0 libgif7 libjpeg62-turbo libopenjp2-7 libtiff6 libwebp7 \
#     libwebpmux3 libdeflate0 libjbig0 liblerc4 \
#     gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-0 \
#     libgstreamer-gl1.0-0 libgl1 libglx0 libglvnd0 libegl1 libgbm1 \
#     libdrm2 libwayland-client0 libwayland-cursor0 libwayland-egl1 \
#     libwayland-server0 libx11-6 libx11-xcb1 libxcb1 libxau6 libxdmcp6
# (the second half: GStreamer's CUDA library and nvcodec, which the plugin
# and the cuda-* programs load; without them the plugin is not found).
# The bundle is unpacked once per machine: after preparing it again with
# more packages, remove /tmp/gpu-host-root on a machine that is still up.
#
# Each program runs within ELEMENT_TEST_TIMEOUT seconds (default 120; the
# CUDA tests run without fork, where check enforces no test timeout), so a
# hang fails that program (exit 124) and the others still run.
#
# Exit status: 0 all passed, 1 a failure, 77 all skipped (no usable GPU).
set -u
build="${1:-build}"
lib="${GPU_HOST_ROOT:-/tmp/gpu-host-root}/usr/lib/x86_64-linux-gnu"
# Debian reaches BLAS and LAPACK through alternatives symlinks, which an
# unpacked bundle lacks: put their real folders on the path.
for d in blas lapack; do
  if [ -d "$lib/$d" ]; then
    export LD_LIBRARY_PATH="$lib/$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
done
export GST_PLUGIN_PATH="$PWD/$build/gst"
export GPUCCL_TEST_BACKEND="${GPUCCL_TEST_BACKEND:-cuda}"
export GST_DEBUG="${GST_DEBUG:-*:2}"

failed=0 skipped=0 total=0
# cuda-*: CUDA memory (built with gstreamer-cuda-1.0; cuda-pipeline needs
# nvcodec's cudaupload/cudadownload: gstreamer1.0-plugins-bad in the bundle;
# cuda-stream-order needs GStreamer >= 1.24, the .gpu-host13 bundle, and
# skips on 1.22).
# ELEMENT_TESTS="lifecycle cuda-memory ..." runs only those.
tests="meta lifecycle draw segments roi-cap pipelines crop-scale stream region track-events motion batch"
for t in cuda-caps cuda-memory cuda-pipeline cuda-stream-order; do
  [ -x "$build/tests/element/test-element-$t" ] && tests="$tests $t"
done
tests="${ELEMENT_TESTS:-$tests}"
for t in $tests; do
  total=$((total + 1))
  timeout -k 5 "${ELEMENT_TEST_TIMEOUT:-120}" \
    "$build/tests/element/test-element-$t"
  rc=$?
  case $rc in
    0) echo "element-$t ($GPUCCL_TEST_BACKEND): OK" ;;
    77) echo "element-$t ($GPUCCL_TEST_BACKEND): SKIP"; skipped=$((skipped + 1)) ;;
    *) echo "element-$t ($GPUCCL_TEST_BACKEND): FAIL (exit $rc)"; failed=$((failed + 1)) ;;
  esac
done
[ "$failed" -gt 0 ] && exit 1
[ "$skipped" -eq "$total" ] && exit 77
exit 0
