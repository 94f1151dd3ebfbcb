#!/usr/bin/env bash
# Issue 7's real-picture and volume benchmarks on a GPU host, every runner
# in one run each, each step under its own time limit (40 + 25 + 50 s) so
# the whole stays under two minutes; a step cut short keeps its CSV and
# the markdown rows it had printed:
#   real-8 / real-4  gpuccl-bench --real: the pictures of PICTURES (made by
#                    bench/fetch_real_images.sh), as they are and scaled to
#                    2048 on the longer side, 8- and 4-connectivity
#   volume           gpuccl-bench --volume: CPU, BUF 3D, BKE 3D on random
#                    256^3 and 512x512x128 volumes
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

# real-4: BUF/BKE skip themselves (8-connectivity only); fewer CPU runners.
step real-8 40 --real "$pictures" --real-sides 0,2048 --connectivity 8 --reps 3
step real-4 25 --real "$pictures" --real-sides 0,2048 --connectivity 4 --reps 3 \
  --runners cpu,opencv,cuda-ha4-dev,cuda-ha4-64-dev,cuda-ha4-host,\
cuda-ouf-dev,cuda-hybrid3-dev,cuda-stava-benes-dev,npp-label+compress,npp-label
step volume 50 --volume --volume-sizes 256x256x256,512x512x128 \
  --densities 10,20,30,50,70,90 --reps 5 --cpu-reps 1

if command -v gnuplot >/dev/null 2>&1; then
  plot="$(dirname "$0")/plot_real.sh"
  for conn in 8 4; do
    "$plot" "$out/real-$conn.csv" "$out/real-$conn-2048.png" \
      "real pictures scaled to 2048, $conn-connectivity" '@2048$' || status=1
  done
fi
exit $status
