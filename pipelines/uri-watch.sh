#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A file or network stream through gpucclblob into an application: any URI
# GStreamer can play (file://, rtsp://, http://) is decoded by
# uridecodebin, labeled and tracked by gpucclblob, and handed to the
# embedding application gpucclblob-watch at its appsink; the application
# reads the blob metadata of each frame and prints it as JSON lines.
# Without a URI, a clip of the moving-balls demo is generated first
# (VP8/WebM when vp8enc is installed, else raw video in Matroska), so the
# script runs anywhere. Writes OUTDIR/blobs.jsonl and prints a summary.
#
# Usage: pipelines/uri-watch.sh [URI] [OUTDIR]
#   OUTDIR default build/uri-out (in GPUCCL_BUILD_DIR; a new directory in
#   /tmp when there is no build tree)
#   FRAMES=60 (frames of the generated clip), GPUCCL_BACKEND=auto|cuda|cpu,
#   GPUCCL_BUILD_DIR=<meson build dir> (default: build)
#   e.g. pipelines/uri-watch.sh rtsp://camera.local:554/stream
set -euo pipefail
source "$(dirname "$0")/common.sh"

uri=${1:-}
out=${2:-$(default_out_dir uri-out)}
mkdir -p "$out"
app=$(watch_app)

if [ -z "$uri" ]; then
  if have_element vp8enc && have_element webmmux; then
    clip="$out/balls.webm" encode="vp8enc deadline=1 ! webmmux"
  else
    clip="$out/balls.mkv" encode="matroskamux"
  fi
  # shellcheck disable=SC2046 # the fragments are meant to split into words
  gst-launch-1.0 -q $(balls_mix) ! videoconvert ! $encode ! filesink location="$clip" \
    $(balls_tiles "${FRAMES:-60}")
  uri="file://$(cd "$(dirname "$clip")" && pwd)/$(basename "$clip")"
  echo "generated $clip"
fi

# sync=false: a file is processed as fast as it decodes; a live source
# (RTSP) paces itself. track-max-lost=15: an object hidden in a merged
# blob for up to 15 frames keeps its id.
"$app" -o "$out/blobs.jsonl" \
  uridecodebin uri="$uri" ! videoconvert \
  ! gpucclblob backend="$GPUCCL_BACKEND" track=true track-max-lost=15 \
  ! appsink name=sink sync=false

frames=$(wc -l <"$out/blobs.jsonl")
echo "$frames frames from $uri, JSON lines in $out/blobs.jsonl"
echo "blobs per frame (frames: count):"
grep -o '"count":[0-9]*' "$out/blobs.jsonl" | sed 's/.*://' | sort -n | uniq -c |
  awk '{ printf "  %5d frames: %d blobs\n", $1, $2 }'
