#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Jetson CSI camera: frames from nvarguscamerasrc (NVMM memory) converted
# by nvvidconv into system memory (gpucclblob does not read NVMM), labeled
# and tracked by gpucclblob, boxes and centroids drawn, shown in a window.
# On Jetson's integrated GPU memory=auto is mapped: the frames of the
# element's pool are read in place by the kernels, not copied. Bright
# objects on a dark scene work best; THRESHOLD / INVERT=true otherwise.
# Stop with Ctrl-C. Without nvarguscamerasrc (not a Jetson, or JetPack's
# GStreamer plugins missing) it says so and exits 0.
#
# NOT RUN ON A JETSON by the project (no Jetson here): written from
# JetPack's element documentation, check it on the device.
#
# Usage: pipelines/csi-camera.sh [SENSOR_ID]      (default 0)
#   WIDTH=1920 HEIGHT=1080 FPS=30, THRESHOLD=127, INVERT=false,
#   MIN_AREA=50, GPUCCL_BACKEND=auto|cuda|cpu, GPUCCL_BUILD_DIR=<build dir>,
#   SINK=nv3dsink (JetPack's; autovideosink elsewhere)
set -euo pipefail
source "$(dirname "$0")/common.sh"

sensor=${1:-0}
if ! have_element nvarguscamerasrc; then
  echo "no nvarguscamerasrc: not a Jetson with JetPack's GStreamer plugins" \
    "(try pipelines/camera.sh for a V4L2 camera)"
  exit 0
fi
if ! have_element nvvidconv; then
  echo "nvvidconv is missing: install JetPack's nvidia-l4t-gstreamer" >&2
  exit 2
fi
sink=${SINK:-nv3dsink}
have_element "$sink" || sink=autovideosink

# NV12 in system memory is what nvvidconv writes out of NVMM; the element
# labels its Y plane. -e: Ctrl-C sends EOS, so the pipeline shuts down.
exec gst-launch-1.0 -e \
  nvarguscamerasrc sensor-id="$sensor" \
  ! "video/x-raw(memory:NVMM),width=${WIDTH:-1920},height=${HEIGHT:-1080},framerate=${FPS:-30}/1" \
  ! nvvidconv ! video/x-raw,format=NV12 \
  ! gpucclblob backend="$GPUCCL_BACKEND" memory=auto draw=boxes+centroids \
      track=true threshold="${THRESHOLD:-127}" invert="${INVERT:-false}" \
      min-area="${MIN_AREA:-50}" \
  ! nvvidconv ! "$sink"
