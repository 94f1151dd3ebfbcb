#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The gpucclblob demo: four bright balls on a dark background (built from
# videotestsrc, no camera needed), two pairs of which meet, touch and part
# again, are binarized, labeled and tracked by gpucclblob, which draws each
# blob in its label colour, its bounding box, centroid and track id. While
# two balls touch they are one blob with one id; when they part, each gets
# its own id back. Writes to OUTDIR (default build/demo-out, in
# GPUCCL_BUILD_DIR; a new directory in /tmp when there is no build tree):
#   snapshot-NN.png  three PNG snapshots per second (frames 0, 10, 20, ...)
#   demo.webm        the whole overlay video (when vp8enc is installed)
#   messages.log     the element's per-frame "gpucclblob" bus messages
# and prints how many blobs the frames had and which track ids were seen.
#
# Usage: pipelines/demo-balls.sh [OUTDIR]
#   FRAMES=240 (frames to render), GPUCCL_BACKEND=auto|cuda|cpu,
#   GPUCCL_BUILD_DIR=<meson build dir> (default: build)
set -euo pipefail
source "$(dirname "$0")/common.sh"

out=${1:-$(default_out_dir demo-out)}
frames=${FRAMES:-240}
mkdir -p "$out"
rm -f "$out"/snapshot-*.png "$out/demo.webm" "$out/messages.log"

snapshots="queue ! videorate drop-only=true ! video/x-raw,framerate=3/1 ! videoconvert ! pngenc ! multifilesink location=$out/snapshot-%02d.png"
video=""
if have_element vp8enc && have_element webmmux; then
  video="t. ! queue ! videoconvert ! vp8enc deadline=1 ! webmmux ! filesink location=$out/demo.webm"
fi

# track-max-lost: a ball hidden in a merged blob keeps its id for up to
# 15 frames (the merges here last 3 to 6).
# shellcheck disable=SC2046 # the fragments are meant to split into words
gst-launch-1.0 -m -e \
  $(balls_mix) \
  ! gpucclblob backend="$GPUCCL_BACKEND" draw=boxes+centroids+labels+ids \
      track=true track-max-lost=15 post-messages=true box-color=0xffffffff \
  ! tee name=t \
  t. ! $snapshots \
  $video \
  $(balls_tiles "$frames") >"$out/messages.log"

n_snap=$(find "$out" -name 'snapshot-*.png' | wc -l)
echo "wrote $n_snap snapshots to $out/${video:+ and $out/demo.webm}"
echo "blobs per frame (frames: count; $BALLS_COUNT balls, fewer while two touch):"
grep -o 'count=(uint)[0-9]*' "$out/messages.log" | sed 's/.*)//' | sort -n | uniq -c |
  awk '{ printf "  %5d frames: %d blobs\n", $1, $2 }'
echo "track ids seen: $(grep -o 'track-id\\=\\(uint\\)[0-9]*' "$out/messages.log" |
  sed 's/.*)//' | sort -n | uniq | tr '\n' ' ')"
