#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Live camera blob tracking: frames from a V4L2 camera (v4l2src) are
# binarized, labeled and tracked by gpucclblob, which draws boxes and
# centroids; the result is shown in a window (autovideosink). Bright
# objects on a dark scene work best (a torch, LEDs, a lit ball); use
# THRESHOLD or INVERT=true for dark objects on a bright background.
# Stop with Ctrl-C. Without a camera it says so and exits 0 (nothing to
# show is not an error of the demo).
#
# Usage: pipelines/camera.sh [DEVICE]     (default /dev/video0)
#   THRESHOLD=127, INVERT=false, MIN_AREA=50, GPUCCL_BACKEND=auto|cuda|cpu,
#   GPUCCL_BUILD_DIR=<meson build dir> (default: build)
set -euo pipefail
source "$(dirname "$0")/common.sh"

device=${1:-/dev/video0}
if [ ! -e "$device" ]; then
  echo "no camera at $device: nothing to show (try pipelines/demo-balls.sh)"
  exit 0
fi
if ! have_element v4l2src; then
  echo "v4l2src is missing: install gstreamer1.0-plugins-good" >&2
  exit 2
fi

# -e: Ctrl-C sends EOS, so the pipeline shuts down cleanly.
exec gst-launch-1.0 -e \
  v4l2src device="$device" ! videoconvert ! video/x-raw,format=I420 \
  ! gpucclblob backend="$GPUCCL_BACKEND" draw=boxes+centroids track=true \
      threshold="${THRESHOLD:-127}" invert="${INVERT:-false}" min-area="${MIN_AREA:-50}" \
  ! videoconvert ! autovideosink
