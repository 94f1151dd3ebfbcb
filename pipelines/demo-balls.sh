#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The gpucclblob demo: five bright balls moving on a dark background (built
# from videotestsrc, no camera needed) are binarized, labeled and tracked
# by gpucclblob, which draws each blob's bounding box and centroid into the
# frame. Writes to OUTDIR (default ./demo-out):
#   snapshot-NN.png  two PNG snapshots per second of video
#   demo.webm        the whole overlay video (when vp8enc is installed)
#   messages.log     the element's per-frame "gpucclblob" bus messages
# and prints how many blobs each frame had (5 expected: one per ball).
#
# Usage: pipelines/demo-balls.sh [OUTDIR]
#   FRAMES=90 (frames to render), GPUCCL_BACKEND=auto|cuda|cpu,
#   GPUCCL_BUILD_DIR=<meson build dir> (default: build)
set -euo pipefail
source "$(dirname "$0")/common.sh"

out=${1:-demo-out}
frames=${FRAMES:-90}
mkdir -p "$out"
rm -f "$out"/snapshot-*.png "$out/demo.webm" "$out/messages.log"

snapshots="queue ! videorate drop-only=true ! video/x-raw,framerate=2/1 ! videoconvert ! pngenc ! multifilesink location=$out/snapshot-%02d.png"
video=""
if have_element vp8enc && have_element webmmux; then
  video="t. ! queue ! videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$out/demo.webm"
fi

# shellcheck disable=SC2046 # the fragments are meant to split into words
gst-launch-1.0 -m -e \
  $(balls_mix) \
  ! gpucclblob backend="$GPUCCL_BACKEND" draw=boxes+centroids track=true \
      post-messages=true box-color=0xffff3030 \
  ! tee name=t \
  t. ! $snapshots \
  $video \
  $(balls_tiles "$frames") >"$out/messages.log"

n_snap=$(find "$out" -name 'snapshot-*.png' | wc -l)
echo "wrote $n_snap snapshots to $out/${video:+ and $out/demo.webm}"
echo "blobs per frame (frames: count):"
grep -o 'count=(uint)[0-9]*' "$out/messages.log" | sed 's/.*)//' | sort -n | uniq -c |
  awk '{ printf "  %5d frames: %d blobs\n", $1, $2 }'
