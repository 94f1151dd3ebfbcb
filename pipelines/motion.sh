#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Motion as the foreground (binarize=background): two balls move over a
# textured background (zone-plate rings, half contrast) under a light
# that changes slowly over the whole frame (a uniform layer whose level
# follows a slow sine), all built from videotestsrc (no camera). A fixed
# threshold on such a frame joins the balls with the texture's bright
# rings; the running-average background learns the texture and follows
# the light, so after the warm-up the balls are the blobs, boxed and
# tracked (with, for a few frames each, what the average half learned:
# places the balls left during the warm-up, and trails of a slow ball).
# Writes to OUTDIR (default build/motion-out, in GPUCCL_BUILD_DIR; a new
# directory in /tmp when there is no build tree):
#   snapshot-NN.png  two PNG snapshots per second
#   messages.log     the element's per-frame "gpucclblob" bus messages
# and prints the blobs per frame of this run and of binarize=threshold on
# the same frames.
#
# Usage: pipelines/motion.sh [OUTDIR]
#   FRAMES=150, GPUCCL_BACKEND=auto|cuda|cpu,
#   GPUCCL_BUILD_DIR=<meson build dir> (default: build)
set -euo pipefail
source "$(dirname "$0")/common.sh"

out=${1:-$(default_out_dir motion-out)}
frames=${FRAMES:-150}
mkdir -p "$out"
rm -f "$out"/snapshot-*.png "$out/messages.log"

caps="video/x-raw,format=BGRA,width=640,height=360,framerate=30/1"
# The scene: texture (sink_0), light (sink_1, 30 % over it), two balls.
scene() {
  echo "videotestsrc pattern=zone-plate kx2=40 ky2=25 num-buffers=$frames ! $caps"
  echo "! videobalance contrast=0.5 ! mix.sink_0"
  echo "videotestsrc pattern=zone-plate kt=1 num-buffers=$frames ! $caps ! mix.sink_1"
  echo "videotestsrc pattern=ball motion=wavy background-color=0x00000000"
  echo "num-buffers=$frames ! $caps ! mix.sink_2"
  echo "videotestsrc pattern=ball motion=wavy foreground-color=0xffffff60"
  echo "background-color=0x00000000 num-buffers=$frames"
  echo "! video/x-raw,format=BGRA,width=300,height=200,framerate=30/1 ! videoflip"
  echo "video-direction=horiz ! mix.sink_3"
}
mix="compositor name=mix background=black sink_1::alpha=0.3 sink_3::xpos=300 sink_3::ypos=150
  ! video/x-raw,width=640,height=360,framerate=30/1 ! videoconvert ! video/x-raw,format=I420"
snapshots="queue ! videorate drop-only=true ! video/x-raw,framerate=2/1 ! videoconvert ! pngenc
  ! multifilesink location=$out/snapshot-%02d.png"

# shellcheck disable=SC2046,SC2086 # the fragments are meant to split into words
gst-launch-1.0 -m -e $mix \
  ! gpucclblob backend="$GPUCCL_BACKEND" binarize=background learning-rate=0.05 \
      background-frames=20 threshold=30 min-area=60 \
      track=true draw=boxes+ids post-messages=true box-color=0xffff4040 \
  ! $snapshots $(scene) >"$out/messages.log"

# shellcheck disable=SC2046,SC2086
fixed=$(gst-launch-1.0 -m $mix \
  ! gpucclblob backend="$GPUCCL_BACKEND" threshold=160 min-area=60 post-messages=true \
  ! fakesink $(scene) | grep -o 'count=(uint)[0-9]*' | sed 's/.*)//')

n_snap=$(find "$out" -name 'snapshot-*.png' | wc -l)
echo "wrote $n_snap snapshots to $out"
echo "binarize=background (20 warm-up frames, then the two balls; frames: count):"
grep -o 'count=(uint)[0-9]*' "$out/messages.log" | sed 's/.*)//' | sort -n | uniq -c |
  awk '{ printf "  %5d frames: %d blobs\n", $1, $2 }'
echo "binarize=threshold threshold=160 on the same frames (bright rings join the balls):"
echo "$fixed" | sort -n | uniq -c | sort -rn | head -3 |
  awk '{ printf "  %5d frames: %d blobs\n", $1, $2 }'
