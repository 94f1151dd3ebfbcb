#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Bar chart of a `gpuccl-bench --real` CSV: one group of bars per picture,
# one bar per runner, ms per image (device time where the runner has one,
# else wall), log scale, like YACCLAB's per-dataset charts.
#   bench/plot_real.sh real.csv out.png ["title"] [picture-regex] [runners]
# picture-regex picks pictures (awk regex, e.g. '@2048$' for the scaled
# ones, '^[^@]*$' for the native ones); runners is a comma list, in the
# order of the bars (default: every runner of the CSV, in its order).
# Needs gnuplot (gnuplot-nox, in scripts/setup).
set -euo pipefail
csv="$1"
png="$2"
title="${3:-gpuccl-bench, real pictures}"
pick="${4:-.}"
runners="${5:-}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# A table: picture, then one column per runner.
awk -F, -v pick="$pick" -v want="$runners" '
  NR == 1 { next }
  $2 !~ pick { next }
  {
    ms = ($12 != "" && $12 >= 0) ? $12 : $10
    if (!($1 in seen_r)) { seen_r[$1] = 1; order_r[++nr] = $1 }
    if (!($2 in seen_p)) { seen_p[$2] = 1; order_p[++np] = $2 }
    v[$1, $2] = ms
  }
  END {
    if (want != "") nr = split(want, order_r, ",")
    printf "picture"
    for (r = 1; r <= nr; r++) printf " %s", order_r[r]
    printf "\n"
    for (p = 1; p <= np; p++) {
      printf "%s", order_p[p]
      for (r = 1; r <= nr; r++)
        printf " %s", ((order_r[r], order_p[p]) in v) ? v[order_r[r], order_p[p]] : "NaN"
      printf "\n"
    }
  }' "$csv" > "$tmp/table"

n_runners=$(($(head -1 "$tmp/table" | wc -w) - 1))
n_pictures=$(($(wc -l < "$tmp/table") - 1))
if [ "$n_pictures" -lt 1 ] || [ "$n_runners" -lt 1 ]; then
  echo "$0: nothing to plot (picture filter '$pick')" >&2
  exit 1
fi
width=$((400 + n_pictures * (n_runners * 9 + 12)))
[ "$width" -gt 3600 ] && width=3600

gnuplot <<GP
set terminal pngcairo size $width,800 noenhanced
set output '$png'
set title '$title'
set ylabel 'ms per image (device time where there is one, else wall)'
set logscale y
set grid ytics
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set xtics rotate by -40 scale 0
set bmargin 12
set key outside right top
# gnuplot cycles through 8 colours; more runners than that need their own.
array col[16] = ['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2','#7f7f7f','#bcbd22','#17becf','#000000','#ffd700','#00008b','#8b0000','#006400','#ff1493']
do for [i=1:16] { set linetype i linecolor rgb col[i] }
set linetype cycle 16
plot for [c=2:$((n_runners + 1))] '$tmp/table' using c:xtic(1) title columnheader(c)
GP
echo "wrote $png"
