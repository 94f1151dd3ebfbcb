#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run both libFuzzer targets from a bundle (make-fuzz-bundle.sh) on a
# machine without meson or a build: many workers per target at low
# priority, for a wall-clock budget, then merge each target's corpus and
# write a summary. Made for the GPU host's idle CPU cores while the GPU
# tests run, but it runs anywhere the bundle's libraries load.
#
#   source .gpu-host/activate.sh        # on the GPU host: GStreamer, GLib
#   tests/fuzz/gpu-host-fuzz.sh fuzz-bundle "$OUT" 480
#   tests/fuzz/gpu-host-fuzz.sh fuzz-bundle /tmp/f 60 --workers "gpuccl=1 element=1"
#
#   BUNDLE   the folder make-fuzz-bundle.sh made
#   OUT      where the results go: exactly two files, fuzz-summary.txt and
#            fuzz-results.tar.gz (every worker's log, the merged corpora,
#            every input that failed), so that a folder with a limit on
#            its number of files can take them
#   SECONDS  wall-clock budget, everything included: the workers fuzz for
#            SECONDS minus the time kept for the merge (--merge-seconds)
#
# Options:
#   --workers "T=N ..."  workers per target (default "gpuccl=2 element=10":
#                 fuzz-element is 2-3x slower per input and further from its
#                 10^6 runs)
#   --runs N      runs per target, shared among its workers (default
#                 1000000); a worker stops at its share or at the deadline
#   --nice N      priority of the workers (default 19: the GPU tests that
#                 share the machine keep the CPU they need)
#   --merge-seconds N  kept at the end for merging (default 60)
#   --work DIR    scratch folder (default: a new one under ${TMPDIR:-/tmp})
#
# Each worker is an independent libFuzzer process; the workers of a target
# share one growing corpus folder (libFuzzer reloads it every second, so one
# worker's finds reach the others). A worker that fails (crash, leak,
# sanitizer report, timeout, out of memory) keeps its input and is started
# again (three times at most) with what is left of its time and runs.
# Exit: 0 no failure, 1 a failure (inputs in the tarball, crashes/), 2 bad
# arguments or a bundle that does not start.
set -u

usage() { sed -n '2,37p' "$0"; exit 2; }
[ $# -ge 3 ] || usage
bundle=$(cd "$1" 2>/dev/null && pwd) || { echo "gpu-host-fuzz.sh: no bundle $1" >&2; exit 2; }
out=$2
seconds=$3
shift 3
workers="gpuccl=2 element=10"
runs=1000000
prio=19
merge_s=60
work=
while [ $# -gt 0 ]; do
  case "$1" in
  --workers) workers=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --nice) prio=$2; shift 2 ;;
  --merge-seconds) merge_s=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  -h|--help) usage ;;
  *) echo "gpu-host-fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$seconds$runs$prio$merge_s" in
*[!0-9]*) echo "gpu-host-fuzz.sh: SECONDS, --runs, --nice, --merge-seconds are numbers" >&2; exit 2 ;;
esac
start=$(date +%s)
deadline=$((start + seconds))
# Short budgets (a check run) keep a third for the merge.
[ "$merge_s" -le $((seconds / 3)) ] || merge_s=$((seconds / 3))
fuzz_end=$((deadline - merge_s))

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
work=${work:-$(mktemp -d "${TMPDIR:-/tmp}/gpu-host-fuzz.XXXXXX")}
mkdir -p "$work"/{logs,crashes,corpus,registry,empty}
summary="$work/fuzz-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# The environment of run-fuzz.sh, with the bundle's plugin; GLib,
# GStreamer and their libraries come from the loader path
# (.gpu-host/activate.sh on the GPU host). Each process gets its own
# GST_REGISTRY below.
# shellcheck source=tests/fuzz/fuzz-env.sh
. "$(dirname "$0")/fuzz-env.sh"
fuzz_env "$bundle"

# ASan of clang 14 can fail at start-up (an endless AddressSanitizer:
# DEADLYSIGNAL) under a kernel that randomises mmap with more bits than
# it supports (vm.mmap_rnd_bits 32, google/sanitizers#1614); the targets
# therefore run without address randomisation where the machine lets a
# process ask for that, which changes nothing else for ASan.
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  norand=(setarch "$(uname -m)" -R)
fi

targets=
for tw in $workers; do
  t=${tw%%=*}
  n=${tw#*=}
  bin="$bundle/tests/fuzz/fuzz-$t"
  if [ ! -x "$bin" ] || [ ! -d "$bundle/corpus/$t" ]; then
    echo "gpu-host-fuzz.sh: $bundle has no fuzz-$t or corpus/$t" >&2
    exit 2
  fi
  # The target starts (libraries found, plugin loaded), or we stop here.
  if ! GST_REGISTRY="$work/registry/$t-check.bin" timeout -k 5 60 \
    "${norand[@]}" "$bin" -runs=0 "$work/empty" >"$work/logs/$t-check.log" 2>&1; then
    cat "$work/logs/$t-check.log" >&2
    echo "gpu-host-fuzz.sh: fuzz-$t does not start here" >&2
    exit 2
  fi
  targets="$targets $t"
  eval "n_$t=$n"
done

# One worker: libFuzzer until its share of runs or the deadline, again
# after a failure (each attempt its own log), three failures at most.
worker() {
  local t=$1 i=$2 share=$3 done_runs=0 attempt=0 left rc log got
  # Bounded logs (1 KiB blocks): a start-up loop like the one above must
  # not fill the disk; the process is killed (SIGXFSZ), a failed start.
  ulimit -f 20480
  while [ "$attempt" -le 3 ]; do
    left=$((fuzz_end - $(date +%s)))
    if [ "$left" -lt 5 ] || [ "$done_runs" -ge "$share" ]; then break; fi
    log="$work/logs/$t-w$i-$attempt.log"
    # timeout: a unit that never returns cannot hold the deadline.
    GST_REGISTRY="$work/registry/$t-$i.bin" \
      timeout --preserve-status -s INT -k 20 $((left + 30)) nice -n "$prio" \
      "${norand[@]}" "$bundle/tests/fuzz/fuzz-$t" -runs=$((share - done_runs)) \
      -max_total_time="$left" -max_len=4096 -timeout=60 -error_exitcode=1 \
      -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$work/crashes/$t-w$i-" \
      "$work/corpus/$t" "$bundle/corpus/$t" >"$log" 2>&1
    rc=$?
    echo "$rc" >"$log.rc"
    got=$(runs_of "$log")
    done_runs=$((done_runs + got))
    [ "$rc" -eq 0 ] && break
    # Never got through loading the corpus and left no input: the process
    # did not start (see norand), which is no finding; try again.
    if ! grep -q -e INITED -e 'Test unit written' "$log"; then
      touch "$log.nostart"
    fi
    attempt=$((attempt + 1))
  done
}

# Runs of one log: libFuzzer's final count, else its last status line
# (a process killed hard prints no final statistics).
runs_of() {
  local n
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
  [ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$1" | tail -1)
  echo "${n:-0}"
}

say "gpu-host-fuzz.sh: $(date -u '+%F %T') UTC on $(uname -n), $(nproc) cores;" \
  "workers: $workers; $runs runs per target; fuzzing $((fuzz_end - start)) s" \
  "+ merge ${merge_s} s; nice $prio"
for t in $targets; do
  eval "n=\$n_$t"
  mkdir -p "$work/corpus/$t"
  share=$(((runs + n - 1) / n))
  for i in $(seq 1 "$n"); do
    worker "$t" "$i" "$share" &
  done
done
wait

# Per target: runs summed over every attempt of every worker, the widest
# coverage and the highest RSS any worker reported, its failures.
status=0
for t in $targets; do
  total=0 cov=0 ft=0 rss=0 nlogs=0 bad=0 nostart=0
  for log in "$work/logs/$t"-w*.log; do
    [ -f "$log" ] || continue
    nlogs=$((nlogs + 1))
    total=$((total + $(runs_of "$log")))
    c=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    f=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    r=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    [ -n "$r" ] || r=$(grep -o 'rss: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    [ "${c:-0}" -gt "$cov" ] && cov=$c
    [ "${f:-0}" -gt "$ft" ] && ft=$f
    [ "${r:-0}" -gt "$rss" ] && rss=$r
    rc=$(cat "$log.rc" 2>/dev/null || echo '?')
    # 0: done; the deadline's SIGINT ends libFuzzer with its own exit
    # code 72 (interrupted), which is no failure either.
    if [ -f "$log.nostart" ]; then
      nostart=$((nostart + 1))
      { echo "gpu-host-fuzz.sh: $(basename "$log") exit $rc before fuzzing:"
        grep -m2 -v '^INFO' "$log"; } | cut -c1-200 | tee -a "$summary"
    elif [ "$rc" != 0 ] && [ "$rc" != 72 ]; then
      bad=$((bad + 1))
      { echo "gpu-host-fuzz.sh: $(basename "$log") exit $rc:"
        grep -m4 -E 'ERROR: |runtime error|SUMMARY|Test unit written|deadly signal' \
          "$log"; } | tee -a "$summary"
    fi
  done
  fails=$(find "$work/crashes" -name "$t-*" ! -name "$t-*slow-unit-*" | wc -l)
  slow=$(find "$work/crashes" -name "$t-*slow-unit-*" | wc -l)
  eval "n=\$n_$t"
  say "fuzz-$t: $total runs ($n workers, $nlogs processes, ~$((total / (fuzz_end - start > 0 ? fuzz_end - start : 1))) runs/s)," \
    "cov $cov ft $ft (widest worker), peak RSS $rss MB (highest worker)," \
    "$fails failing inputs, $bad failed processes, $slow slow units (>10 s, no failure)," \
    "$nostart failed starts"
  { [ "$fails" -gt 0 ] || [ "$bad" -gt 0 ]; } && status=1
done

# Merge: the bundle's corpus and what the workers found, minimised into
# one folder per target (in parallel, within what is left of the budget).
for t in $targets; do
  (
    left=$((deadline - $(date +%s)))
    [ "$left" -ge 5 ] || left=5
    mkdir -p "$work/merged/$t"
    ulimit -f 20480
    GST_REGISTRY="$work/registry/$t-merge.bin" timeout -k 10 "$left" \
      nice -n "$prio" "${norand[@]}" "$bundle/tests/fuzz/fuzz-$t" -merge=1 -max_len=4096 \
      -timeout=60 -rss_limit_mb=4096 \
      -artifact_prefix="$work/crashes/$t-merge-" "$work/merged/$t" \
      "$bundle/corpus/$t" "$work/corpus/$t" >"$work/logs/$t-merge.log" 2>&1
    echo $? >"$work/logs/$t-merge.log.rc"
  ) &
done
wait
for t in $targets; do
  before=$(find "$bundle/corpus/$t" -type f | wc -l)
  found=$(find "$work/corpus/$t" -type f | wc -l)
  after=$(find "$work/merged/$t" -type f | wc -l)
  line=$(grep 'MERGE-OUTER: [0-9]* new files' "$work/logs/$t-merge.log" | tail -1)
  rc=$(cat "$work/logs/$t-merge.log.rc")
  if [ "$rc" = 0 ]; then
    say "fuzz-$t corpus: $before in the bundle + $found found -> $after merged" \
      "(${line#*MERGE-OUTER: })"
  else
    say "fuzz-$t corpus: merge did not finish (exit $rc): the raw corpus" \
      "($found found) is in the tarball instead"
    rm -rf "$work/merged/$t"
    cp -r "$work/corpus/$t" "$work/merged/$t"
  fi
done
kept=$(find "$work/crashes" -type f ! -name '*slow-unit-*' | wc -l)
[ "$kept" -gt 0 ] && say "gpu-host-fuzz.sh: $kept failing inputs kept in crashes/ of the tarball" \
  "(merge-* ones failed again while merging)"
aslr="address randomisation on (setarch -R not allowed here)"
[ ${#norand[@]} -gt 0 ] && aslr="address randomisation off (setarch -R)"
say "gpu-host-fuzz.sh: $( [ $status = 0 ] && echo 'no failure' || echo FAILURES)" \
  "in $(( $(date +%s) - start )) s; exit $status; $aslr"

# Two files out: the summary, and one tarball of logs, merged corpora and
# failing inputs; logs cut to their ends if the tarball would pass 15 MiB.
cp "$summary" "$out/fuzz-summary.txt"
tar -C "$work" -czf "$out/fuzz-results.tar.gz" fuzz-summary.txt logs crashes merged
if [ "$(stat -c %s "$out/fuzz-results.tar.gz")" -gt $((15 << 20)) ]; then
  for log in "$work"/logs/*.log; do
    { head -50 "$log"; echo '[...]'; tail -200 "$log"; } >"$log.cut"
    mv "$log.cut" "$log"
  done
  tar -C "$work" -czf "$out/fuzz-results.tar.gz" fuzz-summary.txt logs crashes merged
fi
exit $status
