#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Time vs density per runner from a gpuccl-bench CSV, like the figures of
# Allegretti et al. 2019: device time (CUDA events; wall time where a runner
# has none) averaged over the granularities of each density, log scale.
#   bench/plot_grid.sh grid.csv out.png ["title"]
# Needs gnuplot (gnuplot-nox, in scripts/setup).
set -euo pipefail
csv="$1"
png="$2"
title="${3:-gpuccl-bench}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# One file per runner: density, mean ms over granularities.
awk -F, -v dir="$tmp" 'NR > 1 {
    ms = ($10 != "" && $10 >= 0) ? $10 : $8
    key = $1 SUBSEP $5
    sum[key] += ms; n[key]++; runners[$1] = 1; dens[$5] = 1
  }
  END {
    for (r in runners) {
      f = dir "/" r ".dat"
      for (d = 0; d <= 100; d++)
        if ((r, d) in n)
          printf "%d %.6f\n", d, sum[r, d] / n[r, d] > f
      print r > (dir "/runners")
    }
  }' "$csv"

plots=""
while read -r r; do
  [ -n "$plots" ] && plots="$plots, "
  plots="$plots'$tmp/$r.dat' using 1:2 with linespoints title '$r'"
done < <(sort "$tmp/runners")

gnuplot <<GP
set terminal pngcairo size 1100,700 noenhanced
set output '$png'
set title '$title'
set xlabel 'foreground density (%)'
set ylabel 'ms per image (device time, mean over granularities)'
set logscale y
set grid
set key outside right
plot $plots
GP
echo "wrote $png"
