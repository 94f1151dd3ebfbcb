# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the pipeline scripts: finds the gpucclblob plugin of a build
# tree and puts it on GST_PLUGIN_PATH, unless gst-inspect already sees it
# (e.g. after `meson install`).
#
#   GPUCCL_BUILD_DIR  build directory to use (default: <repo>/build)
#   GPUCCL_BACKEND    auto (default), cuda or cpu

repo_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${GPUCCL_BACKEND:=auto}"

build_dir=${GPUCCL_BUILD_DIR:-$repo_dir/build}
if [ -n "${GPUCCL_BUILD_DIR:-}" ] || ! gst-inspect-1.0 gpucclblob >/dev/null 2>&1; then
  if [ ! -d "$build_dir/gst" ]; then
    echo "error: no gpucclblob plugin: build first (meson setup build && ninja -C build)" >&2
    echo "       or set GPUCCL_BUILD_DIR to your build directory" >&2
    exit 2
  fi
  export GST_PLUGIN_PATH="$(cd "$build_dir/gst" && pwd)${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
  if ! gst-inspect-1.0 gpucclblob >/dev/null 2>&1; then
    echo "error: $build_dir/gst holds no loadable gpucclblob plugin" >&2
    exit 2
  fi
fi

# The embedding application: the build's, else an installed one.
watch_app() {
  if [ -x "$build_dir/pipelines/gpucclblob-watch" ]; then
    echo "$build_dir/pipelines/gpucclblob-watch"
  else
    command -v gpucclblob-watch || {
      echo "error: no gpucclblob-watch in $build_dir/pipelines nor installed:" \
        "ninja -C $build_dir pipelines/gpucclblob-watch (it needs json-glib)" >&2
      return 2
    }
  fi
}

# Where a script writes when no OUTDIR is given: $1 (demo-out, ...) in the
# build directory, or a new temporary directory when there is no build tree
# (an installed plugin); never the current directory, which may be the
# source tree.
default_out_dir() {
  if [ -d "$build_dir" ]; then
    echo "$build_dir/$1"
  else
    mktemp -d "${TMPDIR:-/tmp}/gpucclblob-$1.XXXXXX"
  fi
}

# True when GStreamer has the element named $1.
have_element() { gst-inspect-1.0 "$1" >/dev/null 2>&1; }

# The moving-balls source: four bright balls on black, built from
# `videotestsrc pattern=ball` (a ball on a transparent background, moving
# on a Lissajous path set by its tile's size) in tiles a compositor lays
# over each other. Two pairs of tiles overlap, one tile of each pair
# mirrored (videoflip), so the two balls of a pair run towards each other,
# touch (one blob for 4 to 7 frames) and part again: frames 16-19, 81-84
# and 216-219 on the left, 7-13, 87-93 and 207-213 on the right (30 fps,
# frames from 0). Two gst-launch
# fragments: balls_mix is the compositor, ending in raw I420 960x360 at
# 30 fps (link your elements after it); balls_tiles N [ONLY] is the
# sources, N frames each (append it after your chain); with ONLY (0..3)
# every other ball is transparent, so that ball is alone on the same path.
BALLS_COUNT=4
BALLS_TILES=(
  # x   y    w    h    mirror   ARGB colour
  "10   20   420  300  identity 0xffffffff"
  "210  50   420  300  horiz    0xffffff40"
  "630  20   260  300  identity 0xff40ffff"
  "700  50   260  300  horiz    0xffff80ff"
)

balls_mix() {
  local mix="compositor name=mix background=black" i=0 x y w h m c
  for t in "${BALLS_TILES[@]}"; do
    read -r x y w h m c <<<"$t"
    mix+=" sink_$i::xpos=$x sink_$i::ypos=$y"
    i=$((i + 1))
  done
  echo "$mix ! video/x-raw,width=960,height=360,framerate=30/1 ! videoconvert ! video/x-raw,format=I420"
}

balls_tiles() {
  local frames=$1 only=${2:-} srcs="" i=0 x y w h m c
  for t in "${BALLS_TILES[@]}"; do
    read -r x y w h m c <<<"$t"
    if [ -n "$only" ] && [ "$only" != "$i" ]; then
      c=0x00000000
    fi
    srcs+=" videotestsrc pattern=ball motion=wavy foreground-color=$c"
    srcs+=" background-color=0x00000000 num-buffers=$frames"
    srcs+=" ! video/x-raw,format=BGRA,width=$w,height=$h,framerate=30/1"
    srcs+=" ! videoflip video-direction=$m ! mix.sink_$i"
    i=$((i + 1))
  done
  echo "$srcs"
}
