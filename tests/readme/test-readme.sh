#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The README's steps in order, as a new user takes them, in a fresh clone
# of SOURCE_DIR's HEAD (committed work only):
#   1. scripts/demo cpu                       (builds build/, runs the demo)
#   2. "A pipeline": the first block as printed (videotestsrc, fakesink
#      and gpucclblob-watch through meson devenv), then the camera block
#      with the camera and the window swapped for videotestsrc and
#      fakesink (no camera, no display here)
#   3. "Reading the blobs": the Python block saved as app.py, run the way
#      the README says (meson devenv -C build -w . python3 app.py)
#   4. pipelines/roi_reader.py the same way and pipelines/uri-watch.sh
# Nothing is installed; the clone's build is the demo's (only what the
# demo builds, a few minutes on 2 cores). Exit 77 without git.
# Usage: test-readme.sh SOURCE_DIR
set -euo pipefail
src=$1
command -v git >/dev/null && git -C "$src" rev-parse --verify -q HEAD >/dev/null ||
  { echo "SKIP: $src is not a git checkout"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$src" "$work/gpucclblob"
cd "$work/gpucclblob"
echo "fresh clone of $(git rev-parse --short HEAD) in $PWD"
# A fresh Debian's python3 (the one with python3-gi), ahead of any other.
export PATH=/usr/bin:$PATH
fail() { echo "FAIL: $*"; exit 1; }

step() { echo; echo "== $*"; }
step "scripts/demo cpu"
scripts/demo cpu >demo.log 2>&1 || { tail -40 demo.log; fail "scripts/demo"; }
ls build/demo-out/*.png >/dev/null 2>&1 || fail "the demo wrote no PNG"
tail -3 demo.log

# The README's blocks, by the heading they follow.
python3 - README.md <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def blocks(heading, lang):
    part = text.split(heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```" + lang + r"\n(.*?)```", part, re.S)
def block(heading, lang):
    return blocks(heading, lang)[0]
headless, sh = blocks("## A pipeline", "sh")[:2]
open("readme-headless.sh", "w").write(headless)
for camera, test in (("v4l2src", "videotestsrc pattern=ball num-buffers=10"),
                     ("autovideosink", "fakesink")):
    if camera not in sh:
        sys.exit(f"README's pipeline has no {camera}: update this test")
    sh = sh.replace(camera, test)
open("readme-pipeline.sh", "w").write(sh)
open("app.py", "w").write(block("## Reading the blobs", "python"))
PY

# A README block as printed: SCRIPT must run and print COUNT gpucclblob
# messages whose fields match PATTERN (WHAT names them). Its output stays
# in $out for the step's own checks.
run_block() {  # SCRIPT COUNT WHAT [PATTERN]
  local n
  cat "$1"
  out=$(bash -e "$1" 2>&1) || { echo "$out" | tail; fail "$1"; }
  n=$(grep -c "from element \"gpucclblob0\" (element): gpucclblob,${4:-}" <<<"$out" || true)
  [ "$n" -eq "$2" ] || { echo "$out" | tail; fail "$1: $n $3, not $2"; }
  echo "$2 $3"
}

step "A pipeline, as printed"
run_block readme-headless.sh 30 "gpucclblob messages with track 1" \
  '.*track-id\\=\\(uint\\)1'
grep '^{"frame"' <<<"$out"
[ "$(grep -c '^{"frame".*"track-id":1' <<<"$out")" -eq 2 ] || fail "gpucclblob-watch"

step "A pipeline, the camera's with videotestsrc and fakesink"
run_block readme-pipeline.sh 10 "gpucclblob messages"

step "meson devenv -C build -w . python3 app.py"
out=$(meson devenv -C build -w . python3 app.py 2>&1) || { echo "$out"; fail "app.py"; }
echo "$out"
n=$(grep -c '^\[(1, ' <<<"$out" || true)
[ "$n" -eq 3 ] || fail "app.py printed $n tables with track 1, not 3"

step "meson devenv -C build -w . python3 pipelines/roi_reader.py --frames 3"
out=$(meson devenv -C build -w . python3 pipelines/roi_reader.py --frames 3 2>&1) ||
  { echo "$out"; fail "roi_reader.py"; }
echo "$out"
n=$(grep -c '"track-id": 1' <<<"$out" || true)
[ "$n" -eq 3 ] || fail "roi_reader.py printed $n frames with track 1, not 3"

step "pipelines/uri-watch.sh"
FRAMES=20 pipelines/uri-watch.sh >uri.log 2>&1 || { cat uri.log; fail "uri-watch.sh"; }
tail -2 uri.log
[ "$(wc -l <build/uri-out/blobs.jsonl)" -eq 20 ] || fail "uri-watch.sh: not 20 JSON lines"
# Nothing written into the clone but this test's own files (the scripts'
# outputs go to build/).
left=$(git status --porcelain --untracked-files=all | grep -v -x -E \
  '\?\? (demo\.log|uri\.log|app\.py|readme-(pipeline|headless)\.sh)' || true)
[ -z "$left" ] || { echo "$left"; fail "the steps left files in the clone"; }
echo
echo "README steps: all passed"
