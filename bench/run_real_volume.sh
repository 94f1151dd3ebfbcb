#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 7's real-picture and volume benchmarks on a GPU host, every runner
# in one run each, each step under its own time limit (40 + 25 + 50 s) so
# the whole stays under two minutes (under four with GRID=1); a step cut
# short keeps its CSV and the markdown rows it had printed:
#   real-8 / real-4  gpuccl-bench --real: the pictures of PICTURES (made by
#                    bench/fetch_real_images.sh), as they are and scaled to
#                    2048 on the longer side, 8- and 4-connectivity
#   volume           gpuccl-bench --volume: CPU, BUF 3D, BKE 3D on random
#                    256^3 and 512x512x128 volumes
#   grid-8 / grid-4  only with GRID=1 (60 + 40 s more; GRID=only runs just
#                    these two, and PICTURES is then unused): the 2048^2 random
#                    grid (density 0-100 step 10, granularity 1,2,4,8,16),
#                    every CUDA algorithm and NPP, for docs/algorithms'
#                    grid tables (plot with bench/plot_grid.sh)
# CSV, markdown and stderr of each under OUTDIR; plots when gnuplot is
# there (else run bench/plot_real.sh on the CSVs later).
#   bench/run_real_volume.sh BUILD-DIR PICTURES OUTDIR
set -u
build="${1:?usage: $0 BUILD-DIR PICTURES OUTDIR}"
pictures="${2:?usage: $0 BUILD-DIR PICTURES OUTDIR}"
out="${3:?usage: $0 BUILD-DIR PICTURES OUTDIR}"
bench="$build/bench/gpuccl-bench"
mkdir -p "$out"
status=0

step() { # name seconds args...
  local name="$1" limit="$2"
  shift 2
  local t0=$SECONDS
  timeout "$limit" "$bench" "$@" --csv "$out/$name.csv" \
    > "$out/$name.md" 2> "$out/$name.err"
  local rc=$?
  echo "$name: exit $rc after $((SECONDS - t0)) s"
  [ "$rc" -eq 0 ] || status=1
}

if [ "${GRID:-0}" != only ]; then
  # real-4: BUF/BKE skip themselves (8-connectivity only); fewer CPU runners.
  step real-8 40 --real "$pictures" --real-sides 0,2048 --connectivity 8 --reps 3
  step real-4 25 --real "$pictures" --real-sides 0,2048 --connectivity 4 --reps 3 \
    --runners cpu,cpu-table,opencv,cuda-ha4-dev,cuda-ha4-64-dev,cuda-ha4-host,\
cuda-ouf-dev,cuda-hybrid3-dev,cuda-stava-benes-dev,npp-label+compress,npp-label
  step volume 50 --volume --volume-sizes 256x256x256,512x512x128 \
    --densities 10,20,30,50,70,90 --reps 5 --cpu-reps 1
fi

if [ "${GRID:-0}" = 1 ] || [ "${GRID:-0}" = only ]; then
  algos=cuda-ha4-dev,cuda-ouf-dev,cuda-stava-benes-dev,cuda-hybrid3-dev,\
npp-label+compress,npp-label
  step grid-8 60 --size 2048x2048 --connectivity 8 --reps 5 \
    --densities 0:100:10 --granularities 1,2,4,8,16 \
    --runners "$algos,cuda-buf-dev,cuda-buf-ic-dev,cuda-bke-dev,cuda-bke-ic-dev"
  step grid-4 40 --size 2048x2048 --connectivity 4 --reps 5 \
    --densities 0:100:10 --granularities 1,2,4,8,16 --runners "$algos"
fi

if command -v gnuplot >/dev/null 2>&1; then
  plot="$(dirname "$0")/plot_real.sh"
  for conn in 8 4; do
    [ -s "$out/real-$conn.csv" ] && { "$plot" "$out/real-$conn.csv" \
      "$out/real-$conn-2048.png" \
      "real pictures scaled to 2048, $conn-connectivity" '@2048$' || status=1; }
    [ -s "$out/grid-$conn.csv" ] && { "$(dirname "$0")/plot_grid.sh" \
      "$out/grid-$conn.csv" "$out/time-vs-density-2048-${conn}conn.png" \
      "2048x2048 random grid, $conn-connectivity" || status=1; }
  done
fi
exit $status
