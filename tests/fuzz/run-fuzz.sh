#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run the libFuzzer targets (clang, ASan + UBSan) for a time or a number of
# runs, each growing its own corpus seeded from tests/fuzz/corpus/<target>.
#
#   tests/fuzz/run-fuzz.sh                      # 60 s split across targets
#   tests/fuzz/run-fuzz.sh --seconds 600        # longer
#   tests/fuzz/run-fuzz.sh --runs 1000000       # offline: 10^6 runs each
#   tests/fuzz/run-fuzz.sh --targets gpuccl --corpus /tmp/c
#
# Options:
#   --seconds N    total seconds, split evenly across the targets (default 60)
#   --runs N       runs per target instead of a time limit
#   --targets "…"  among: gpuccl element draw volume tracker background (default: all;
#                  element needs the GStreamer element to be built)
#   --build DIR    the clang fuzz build (default: build-fuzz in the source
#                  root); configured here when missing:
#                  CC=clang meson setup DIR -Dcuda=disabled
#                  -Db_sanitize=address,undefined -Db_lundef=false
#                  with -fsanitize=fuzzer-no-link so every library is covered
#   --corpus DIR   where the growing corpora live (default DIR/fuzz-corpus)
#   --build-only   configure and build the targets, run nothing (used by
#                  make-fuzz-bundle.sh)
#
# The pixel loops of the CPU overlays are built without coverage hooks
# (coverage-ignore.txt says why); a build configured before that is
# reconfigured here.
#
# Exit: 0 no crash, 1 a crash (the input is kept in DIR/fuzz-artifacts and
# its path printed: copy it into tests/fuzz/corpus/<target>/ so the
# regression tests replay it), 77 when clang or libFuzzer is missing.
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=60
runs=
targets="gpuccl element draw volume tracker background"
build=
corpus=
build_only=

while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) seconds=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --targets) targets=$2; shift 2 ;;
  --build) build=$2; shift 2 ;;
  --corpus) corpus=$2; shift 2 ;;
  --build-only) build_only=1; shift ;;
  -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
  *) echo "run-fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
build=${build:-$src/build-fuzz}
corpus=${corpus:-$build/fuzz-corpus}

if ! command -v clang >/dev/null 2>&1; then
  echo "run-fuzz.sh: SKIP: clang is not installed"
  exit 77
fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' |
  clang -x c -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null; then
  echo "run-fuzz.sh: SKIP: clang cannot link libFuzzer (libclang-rt-dev)"
  exit 77
fi

# Configure and build the fuzz targets (incremental when already there).
fuzz_cflags=-fsanitize=fuzzer-no-link
ignore="$src/tests/fuzz/coverage-ignore.txt"
if echo 'int main(void){return 0;}' | clang -x c -fsanitize=fuzzer-no-link \
  -fsanitize-coverage-ignorelist="$ignore" -o /dev/null - 2>/dev/null; then
  fuzz_cflags="$fuzz_cflags -fsanitize-coverage-ignorelist=$ignore"
fi
if [ ! -f "$build/build.ninja" ]; then
  echo "run-fuzz.sh: configuring $build"
  mkdir -p "$build"
  # shellcheck source=/dev/null
  . "$src/scripts/env.sh" 2>/dev/null || true
  CC=clang CXX=clang++ \
    CFLAGS="$fuzz_cflags" CXXFLAGS=-fsanitize=fuzzer-no-link \
    meson setup "$build" "$src" -Dcuda=disabled \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbench=disabled >"$build/fuzz-setup.log" 2>&1 ||
    { cat "$build/fuzz-setup.log"; echo "run-fuzz.sh: meson setup failed"; exit 1; }
elif ! grep -qF -- "$fuzz_cflags" "$build/build.ninja"; then
  echo "run-fuzz.sh: reconfiguring $build with: $fuzz_cflags"
  meson configure "$build" -Dc_args="$fuzz_cflags" >"$build/fuzz-setup.log" 2>&1 ||
    { cat "$build/fuzz-setup.log"; echo "run-fuzz.sh: meson configure failed"; exit 1; }
fi
ninja_targets=()
for t in $targets; do
  ninja_targets+=("tests/fuzz/fuzz-$t")
  # the element target loads the plugin at run time
  [ "$t" = element ] && ninja_targets+=(gst/libgstgpucclblob.so)
done
if ! ninja -C "$build" "${ninja_targets[@]}" >"$build/fuzz-build.log" 2>&1; then
  tail -40 "$build/fuzz-build.log"
  echo "run-fuzz.sh: build failed (log: $build/fuzz-build.log)"
  exit 1
fi

[ -n "$build_only" ] && exit 0

n=$(echo "$targets" | wc -w)
per=$(( seconds / n ))
[ "$per" -ge 1 ] || per=1
mkdir -p "$build/fuzz-artifacts"

# shellcheck source=tests/fuzz/fuzz-env.sh
. "$src/tests/fuzz/fuzz-env.sh"
fuzz_env "$build"
export GST_REGISTRY="$build/fuzz-registry.bin"

status=0
for t in $targets; do
  bin="$build/tests/fuzz/fuzz-$t"
  mkdir -p "$corpus/$t"
  limit=(-max_total_time="$per")
  [ -n "$runs" ] && limit=(-runs="$runs")
  echo "run-fuzz.sh: fuzz-$t ${limit[*]} corpus $corpus/$t"
  log="$build/fuzz-$t.log"
  start=$(date +%s)
  "$bin" "${limit[@]}" -max_len=4096 -timeout=120 -error_exitcode=1 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" \
    "$corpus/$t" "$src/tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  end=$(date +%s)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "run-fuzz.sh: fuzz-$t: ${execs:-?} runs in $((end - start)) s," \
    "${cov:-cov: ?}, peak RSS ${peak:-?} MB, exit $rc"
  if [ "$rc" -ne 0 ]; then
    status=1
    tail -60 "$log"
    echo "run-fuzz.sh: fuzz-$t FAILED; inputs kept:"
    ls -1 "$build/fuzz-artifacts/$t-"* 2>/dev/null
  fi
done
exit $status
