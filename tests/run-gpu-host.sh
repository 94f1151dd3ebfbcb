#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Everything that needs the GPU host, grouped so one device call runs one
# group: the GPU tests, the element and reliability tests on backend=cuda,
# the sanitizers, and the benchmarks. The host has no meson and no
# GStreamer of its own: source .gpu-host/activate.sh first (see
# ../shared/gpu-host/README.md), then, from the project root:
#
#   tests/run-gpu-host.sh BUILD OUT tests|reliability|sanitize|bench|
#                         pipelines|bench-pipelines|profile-streams ...
#
# Each step's log goes to OUT/<step>.log; a line per step says its exit
# status (77: skipped). Exits 1 when a step failed.
set -u
build="$1" out="$2"
shift 2
mkdir -p "$out"
lib="${GPU_HOST_ROOT:-/tmp/gpu-host-root}/usr/lib/x86_64-linux-gnu"
for d in blas lapack; do   # OpenCV's dependencies, in Debian's alternatives dirs
  [ -d "$lib/$d" ] && export LD_LIBRARY_PATH="$lib/$d:${LD_LIBRARY_PATH:-}"
done
export GST_PLUGIN_PATH="$PWD/$build/gst"

failed=0
step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc ($((SECONDS - start)) s)"
  tail -n 4 "$out/$name.log"
  case $rc in 0 | 77) ;; *) failed=1 ;; esac
}

for group in "$@"; do
  case $group in
  tests)
    nvidia-smi -L
    step gpu-corpus 240 "$build/tests/gpu/test-gpu-corpus"
    step gpu-buffers 60 "$build/tests/gpu/test-gpu-buffers"
    step gpu-draw 60 "$build/tests/gpu/test-gpu-draw"
    step gpu-process-draw 60 "$build/tests/gpu/test-gpu-process-draw"
    step gpu-batch 300 "$build/tests/gpu/test-gpu-batch"
    step gpu-batch-no-graph 300 env GPUCCL_CUDA_GRAPH=0 \
      "$build/tests/gpu/test-gpu-batch"
    step gpu-nearest 120 "$build/tests/gpu/test-gpu-nearest"
    step gpu-motion 120 "$build/tests/gpu/test-gpu-motion"
    step motion-words 120 "$build/tests/gpu/test-motion-words"
    step tiled-steps 300 "$build/tests/gpu/test-tiled-steps"
    step tile-forest 300 "$build/tests/gpu/test-tile-forest"
    step forest-tiles 400 "$build/tests/gpu/test-forest-tiles"
    step algorithms 240 "$build/tests/algorithms/test-algorithms"
    step volume 60 "$build/tests/algorithms/test-volume" --cuda
    step segments-gpu 240 "$build/tests/algorithms/test-segments-gpu"
    step element-cuda 240 tests/element/run-gpu-host.sh "$build"
    ;;
  reliability)
    step reliability-cuda 600 tests/fuzz/run-gpu-host.sh "$build"
    ;;
  pipelines)
    # Issue 17: CUDA memory in the element, nvcodec around it (the bundle
    # carries gstreamer1.0-plugins-bad), mapped memory read in place,
    # overlays drawn on the host; what nvcodec finds on this host.
    nvidia-smi -L
    nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so.* 2>/dev/null | head -n 1)
    [ -n "$nvrtc" ] && export GST_CUDA_NVRTC_LIBNAME="$nvrtc"
    step nvcodec-inspect 60 sh -c 'gst-inspect-1.0 nvcodec; \
      echo "-- nvcuvid (nvh264dec):"; ldconfig -p | grep -E "nvcuvid|nvidia-encode" \
      || echo "no libnvcuvid/libnvidia-encode on this host"'
    # What the bench figures depend on: the host link, the CPU, huge pages.
    link=pcie.link.gen.max,pcie.link.gen.current,pcie.link.width.current
    step host-info 30 sh -c "nvidia-smi --query-gpu=name,$link --format=csv; \
      nvidia-smi topo -m; lscpu; cat /sys/kernel/mm/transparent_hugepage/enabled"
    # The library's overlays and buffers, when the GPU tests came along.
    for t in draw buffers; do
      [ -x "$build/tests/gpu/test-gpu-$t" ] &&
        step "gpu-$t" 60 "$build/tests/gpu/test-gpu-$t"
    done
    # 22 s a program (each takes 1-6 s): a hang costs one, not the group.
    step element-cuda-pipelines 150 env ELEMENT_TEST_TIMEOUT=22 \
      ELEMENT_TESTS="lifecycle draw pipelines cuda-caps cuda-memory \
      cuda-pipeline" tests/element/run-gpu-host.sh "$build"
    ;;
  bench-pipelines)
    # Issue 17's figures: where the frames are (system, pinned, mapped,
    # CUDA memory) x 1080p/4K x GRAY8/NV12 x draw none/boxes, then many
    # streams in one process at 1080p.
    # --host-draw: the overlays alone, drawn into host frames; --link: the
    # host-to-device link alone with as many copy streams. GStreamer's
    # CUDA memory has no GRAY8: the streams run NV12 (luma labeled).
    step pipeline-memory 150 "$build/bench/gpucclblob-pipeline-bench" \
      --backends cuda --sizes 1080p,4k --formats GRAY8,NV12 \
      --draw none,boxes --memory system,pinned,mapped,cuda --seconds 0.3 \
      --host-draw --csv "$out/pipeline-memory.csv"
    step pipeline-streams 150 "$build/bench/gpucclblob-pipeline-bench" \
      --backends cuda --sizes 1080p --formats NV12 --draw none \
      --memory pinned,mapped,cuda --streams 1,4,8,16,32 --seconds 0.4 \
      --link --csv "$out/pipeline-streams.csv"
    ;;
  profile-streams)
    # What 8 pipelines of CUDA-memory frames wait for (API calls, kernels,
    # copies, waits): nsys's summaries; the report itself is not kept.
    if command -v nsys > /dev/null; then
      step nsys-streams 90 nsys profile -t cuda,osrt -s none \
        --cpuctxsw=none --force-overwrite=true -o "$out/streams8" \
        "$build/bench/gpucclblob-pipeline-bench" --backends cuda \
        --sizes 1080p --formats NV12 --draw none --memory cuda --streams 8 \
        --seconds 0.5
      step nsys-stats 60 nsys stats --report cuda_api_sum \
        --report cuda_gpu_kern_sum --report cuda_gpu_mem_time_sum \
        --report osrt_sum "$out/streams8.nsys-rep"
      rm -f "$out/streams8.nsys-rep" "$out/streams8.sqlite"
    else
      echo "== nsys-streams: no nsys on this host"
    fi
    ;;
  sanitize)
    step sanitize 420 tests/gpu/sanitize.sh "$build" "$out/sanitize"
    step sanitize-draw 120 compute-sanitizer --tool memcheck --leak-check full \
      --error-exitcode 99 "$build/tests/gpu/test-gpu-draw" --reduced
    # mode=segments (Stava-Benes comparing values, the tail's cuts).
    for tool in memcheck racecheck; do
      step "sanitize-segments-$tool" 300 compute-sanitizer --tool "$tool" \
        --error-exitcode 99 "$build/tests/algorithms/test-segments-gpu" --reduced
    done
    # The other algorithms, one at a time on small images: racecheck runs
    # two orders of magnitude slower than the plain test.
    for alg in BUF BUF_IC BKE BKE_IC OUF HYBRID3 STAVA_BENES; do
      for tool in memcheck racecheck; do
        step "sanitize-$alg-$tool" 120 compute-sanitizer --tool "$tool" \
          --error-exitcode 99 "$build/tests/algorithms/test-algorithms" \
          --reduced --max-pixels 2500 --only "$alg"
      done
    done
    # Binarisation by motion: the model read and written in tile labeling.
    for tool in memcheck racecheck initcheck; do
      step "sanitize-motion-$tool" 300 compute-sanitizer --tool "$tool" \
        --error-exitcode 99 "$build/tests/gpu/test-gpu-motion" --quick
    done
    step sanitize-motion-words 300 compute-sanitizer --tool memcheck \
      --error-exitcode 99 "$build/tests/gpu/test-motion-words" --quick
    # A pipeline run under memcheck: the element's metadata tests on CUDA.
    step sanitize-element 300 env GPUCCL_TEST_BACKEND=cuda CK_FORK=no \
      compute-sanitizer --tool memcheck --error-exitcode 99 \
      "$build/tests/element/test-element-meta"
    ;;
  bench)
    step pipeline-bench 300 "$build/bench/gpucclblob-pipeline-bench" \
      --backends cuda,cpu --csv "$out/pipeline.csv"
    step pipeline-bench-mapped 120 "$build/bench/gpucclblob-pipeline-bench" \
      --backends cuda --sizes 1080p,4k --formats GRAY8,NV12 \
      --element-props "memory=mapped" --csv "$out/pipeline-mapped.csv"
    step track-bench 120 "$build/bench/gpuccl-track-bench" \
      --backend cpu,cuda,cuda-search --csv "$out/track.csv"
    # Issue 29: binarisation by motion against threshold mode (kernel and
    # wall time), 1080p and 4K.
    step motion-bench 240 "$build/bench/gpuccl-motion-bench" \
      --backend cuda,cpu --frames 200
    # Issue 27: region, mask and blob intensities beside the default
    # path, on the objects (3 blobs) and the texture (~10 000 blobs).
    step options-bench 200 "$build/bench/gpuccl-options-bench" \
      --backend cuda,cpu --frames 200
    step options-bench-dense 200 "$build/bench/gpuccl-options-bench" \
      --backend cuda,cpu --frames 200 --threshold 140 --no-invert
    step track-share 200 "$build/bench/gpucclblob-pipeline-bench" \
      --backends cuda,cpu --sizes 1080p --formats GRAY8 --draw none \
      --blobs 1000 --scene lattice --track-share --repeat 7 --seconds 0.5 \
      --csv "$out/track-share.csv"
    ;;
  *)
    echo "unknown group $group (tests, reliability, sanitize, bench," \
      "pipelines, bench-pipelines, profile-streams)"
    failed=1
    ;;
  esac
done
exit $failed
