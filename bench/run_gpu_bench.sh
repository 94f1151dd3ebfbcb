#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GPU benchmark grid of issue 4 on a GPU host: 1920x1080, 2048x2048 and
# 3840x2160, density 10..90 % x granularity 1, 4, 16, 4- and 8-connectivity;
# gpuccl's CUDA backend (kernel time and end to end), NPP and the CPU
# backend in the same run. CSV and markdown per case under OUTDIR, then a
# summary of the NPP ratios (bench/gpu_ratios.py).
#   bench/run_gpu_bench.sh [build-dir] [outdir] [reps]
# SIZES and RUNNERS in the environment narrow the run, e.g.
#   SIZES="2048x2048 1920x1080" RUNNERS=cuda-ha4-dev,npp-label,npp-label+compress
# (the CPU runner alone takes minutes at 4K).
set -u
build="${1:-build}"
out="${2:-bench-out}"
reps="${3:-10}"
mkdir -p "$out"
runners="${RUNNERS:-cpu,cuda-ha4-dev,cuda-ha4-64-dev,cuda-ha4-host,cuda-ha4-pinned,npp-label+compress,npp-label}"
for size in ${SIZES:-1920x1080 2048x2048 3840x2160}; do
  for conn in 4 8; do
    "$build/bench/gpuccl-bench" --size "$size" --connectivity "$conn" \
      --reps "$reps" --densities 10:90:10 --granularities 1,4,16 \
      --runners "$runners" --csv "$out/bench-$size-$conn.csv" \
      > "$out/bench-$size-$conn.md" 2> "$out/bench-$size-$conn.err"
  done
done
python3 "$(dirname "$0")/gpu_ratios.py" "$out"/bench-*.csv
