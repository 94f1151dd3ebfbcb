#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Assemble the libFuzzer targets into a folder that runs on another x86-64
# machine without meson or a build (gpu-host-fuzz.sh runs it):
#
#   tests/fuzz/make-fuzz-bundle.sh [BUILD [BUNDLE [CORPUS_DIR...]]]
#   tests/fuzz/make-fuzz-bundle.sh build-fuzz fuzz-bundle build-fuzz/long
#
#   BUILD    the clang ASan+UBSan fuzz build (default build-fuzz; configured
#            and brought up to date by run-fuzz.sh --build-only)
#   BUNDLE   the folder made (default fuzz-bundle in the source root; it is
#            replaced); ignore it in git (.git/info/exclude) to carry it
#   CORPUS_DIR  more folders holding <target>/ corpora to merge in (e.g. a
#            long local run's); BUILD/fuzz-corpus and tests/fuzz/corpus
#            always are
#
# The bundle keeps the build's layout (tests/fuzz/, kernels/, gst/), so the
# targets' and the plugin's $ORIGIN run paths find our libraries with no
# LD_LIBRARY_PATH; GLib and GStreamer come from the machine (on the GPU
# host: .gpu-host/activate.sh). Debug information stays in, so that the
# offsets in a report from there symbolise here against the same files.
# corpus/<target>/ is the union of the corpora, minimised by libFuzzer's
# -merge=1 (every regression input in tests/fuzz/corpus stays replayed by
# the meson tests, whether the merge keeps it or not).
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${1:-$src/build-fuzz}")
bundle=$(realpath -m "${2:-$src/fuzz-bundle}")
shift $(($# < 2 ? $# : 2))
extra=("$@")

"$src/tests/fuzz/run-fuzz.sh" --build "$build" --build-only

rm -rf "$bundle"
mkdir -p "$bundle/tests/fuzz" "$bundle/kernels" "$bundle/meta" "$bundle/gst"
cp "$build/tests/fuzz/fuzz-gpuccl" "$build/tests/fuzz/fuzz-element" \
  "$bundle/tests/fuzz/"
# the libraries with their version links (not meson's *.p folders)
find "$build/kernels" -maxdepth 1 -name 'libgpuccl.so*' ! -type d \
  -exec cp -P {} "$bundle/kernels/" \;
find "$build/meta" -maxdepth 1 -name 'libgstcclblobmeta.so*' ! -type d \
  -exec cp -P {} "$bundle/meta/" \;
cp "$build/gst/libgstgpucclblob.so" "$bundle/gst/"

# The environment of run-fuzz.sh, so that the merge runs the targets as
# the fuzzing does.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$bundle/fuzz-no-plugins"' EXIT
# shellcheck source=tests/fuzz/fuzz-env.sh
. "$src/tests/fuzz/fuzz-env.sh"
fuzz_env "$bundle"
export GST_REGISTRY="$scratch/registry.bin"

for t in gpuccl element; do
  dirs=("$src/tests/fuzz/corpus/$t")
  for d in "$build/fuzz-corpus" "${extra[@]}"; do
    [ -d "$d/$t" ] && dirs+=("$d/$t")
  done
  mkdir -p "$bundle/corpus/$t"
  "$bundle/tests/fuzz/fuzz-$t" -merge=1 -max_len=4096 -timeout=120 \
    -rss_limit_mb=4096 -artifact_prefix="$scratch/$t-" \
    "$bundle/corpus/$t" "${dirs[@]}" >"$scratch/merge-$t.log" 2>&1 ||
    { tail -30 "$scratch/merge-$t.log"; echo "make-fuzz-bundle.sh: merge of $t failed"; exit 1; }
  echo "make-fuzz-bundle.sh: corpus/$t: $(find "$bundle/corpus/$t" -type f | wc -l)" \
    "inputs from ${dirs[*]} ($(grep -o 'MERGE-OUTER: .*' "$scratch/merge-$t.log" | tail -1))"
done
echo "make-fuzz-bundle.sh: $bundle, $(du -sh --apparent-size "$bundle" | cut -f1)"
