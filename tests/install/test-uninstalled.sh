#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# docs/metadata.md's C sample built against the build tree, nothing
# installed: its block as printed (gstcclblobmeta-uninstalled.pc, then
# meson devenv), run in a directory that has build/ and the sample where
# the source tree has them, so that the program it writes lands there.
# Usage: test-uninstalled.sh BUILD_DIR METADATA.md PIPELINE_SOURCE.c
set -euo pipefail
build=$(realpath "$1") doc=$2 pipeline_source=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$doc" >"$work/uninstalled.sh" <<'PY'
import re, sys
part = open(sys.argv[1]).read().split("### C\n", 1)[1].split("\n## ", 1)[0]
found = [b for b in re.findall(r"```sh\n(.*?)```", part, re.S) if "meson-uninstalled" in b]
if len(found) != 1:
    sys.exit("docs/metadata.md, C: not one sh block with meson-uninstalled: update this test")
print(found[0], end="")
PY
mkdir -p "$work/tests/install"
ln -s "$build" "$work/build"
ln -s "$pipeline_source" "$work/tests/install/installed_pipeline.c"
cd "$work"
cat uninstalled.sh
out=$(bash -e uninstalled.sh 2>&1 </dev/null) ||
  { echo "$out"; echo "FAIL: docs/metadata.md's build against build/"; exit 1; }
echo "$out"
[ "$(grep -c '^track 1: ' <<<"$out")" -eq 3 ] ||
  { echo "FAIL: the C sample: not 3 frames on track 1"; exit 1; }
echo "docs/metadata.md: the C sample builds and runs against build/ as printed"
