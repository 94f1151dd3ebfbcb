#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Summary of gpuccl-bench CSVs (bench/run_gpu_bench.sh): per image size and
connectivity, the worst cell over the density x granularity grid of the CUDA
backend's kernel time, its end-to-end time, and its ratios to NPP (device
time of NPP label+compress and of NPP label alone over gpuccl's kernel time,
the smallest ratio over the grid = the bound), as a markdown table; kernel
times also as the mean over the grid."""
import csv
import sys
from collections import defaultdict


def main(paths):
    cells = defaultdict(dict)  # (w, h, conn) -> {(d, g): {runner: row}}
    for path in paths:
        with open(path) as f:
            for row in csv.DictReader(f):
                key = (int(row["width"]), int(row["height"]), int(row["connectivity"]))
                cell = (int(row["density"]), int(row["granularity"]))
                cells[key].setdefault(cell, {})[row["runner"]] = row
    print("| size | conn | HA4 kernel µs worst (d,g) | mean | HA4-64 kernel µs"
          " worst | mean | e2e host µs worst | e2e pinned µs worst |"
          " CPU ms worst | min NPP L+C / HA4 | min NPP label / HA4 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(cells):
        grid = cells[key]

        def worst(runner, field):
            vals = [(float(r[runner][field]), c) for c, r in grid.items()
                    if runner in r and float(r[runner][field]) >= 0]
            return max(vals) if vals else (float("nan"), None)

        def mean(runner, field):
            vals = [float(r[runner][field]) for r in grid.values()
                    if runner in r and float(r[runner][field]) >= 0]
            return sum(vals) / len(vals) if vals else float("nan")

        def min_ratio(npp):
            vals = [(float(r[npp]["device_ms_median"]) /
                     float(r["cuda-ha4-dev"]["device_ms_median"]), c)
                    for c, r in grid.items()
                    if npp in r and "cuda-ha4-dev" in r]
            return min(vals) if vals else (float("nan"), None)

        k, kc = worst("cuda-ha4-dev", "device_ms_median")
        k64, _ = worst("cuda-ha4-64-dev", "device_ms_median")
        e, _ = worst("cuda-ha4-host", "ms_median")
        p, _ = worst("cuda-ha4-pinned", "ms_median")
        cpu, _ = worst("cpu", "ms_median")
        lc, lcc = min_ratio("npp-label+compress")
        la, lac = min_ratio("npp-label")
        km = mean("cuda-ha4-dev", "device_ms_median")
        k64m = mean("cuda-ha4-64-dev", "device_ms_median")
        print(f"| {key[0]}x{key[1]} | {key[2]} | {k*1e3:.1f} {kc} | {km*1e3:.1f} |"
              f" {k64*1e3:.1f} | {k64m*1e3:.1f} |"
              f" {e*1e3:.1f} | {p*1e3:.1f} | {cpu:.2f} | {lc:.1f}x {lcc} | {la:.1f}x {lac} |")


if __name__ == "__main__":
    main(sys.argv[1:])
