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
      echo "error: gpucclblob-watch not built (needs json-glib)" >&2
      return 2
    }
  fi
}

# True when GStreamer has the element named $1.
have_element() { gst-inspect-1.0 "$1" >/dev/null 2>&1; }

# The moving-balls source: five `videotestsrc pattern=ball` (each ball bright
# on black, moving on its own path because each tile has its own size)
# placed side by side by a compositor, with gaps so that no two balls ever
# touch: every frame has exactly BALLS_COUNT blobs. Two gst-launch
# fragments: balls_mix is the compositor, ending in raw I420 960x360 at
# 30 fps (link your elements after it); balls_tiles N is the sources, N
# frames each (append it after your chain).
BALLS_COUNT=5
BALLS_TILES=(
  # x   y    w    h    ARGB colour
  "0    0    360  360  0xffffffff"
  "370  0    300  170  0xffffff40"
  "370  180  300  180  0xff40ffff"
  "680  0    280  220  0xffff80ff"
  "680  230  280  130  0xff80ff80"
)

balls_mix() {
  local mix="compositor name=mix background=black" i=0 x y w h c
  for t in "${BALLS_TILES[@]}"; do
    read -r x y w h c <<<"$t"
    mix+=" sink_$i::xpos=$x sink_$i::ypos=$y"
    i=$((i + 1))
  done
  echo "$mix ! video/x-raw,format=I420,width=960,height=360,framerate=30/1"
}

balls_tiles() {
  local frames=$1 srcs="" i=0 x y w h c
  for t in "${BALLS_TILES[@]}"; do
    read -r x y w h c <<<"$t"
    srcs+=" videotestsrc pattern=ball motion=wavy foreground-color=$c num-buffers=$frames"
    srcs+=" ! video/x-raw,width=$w,height=$h,framerate=30/1 ! mix.sink_$i"
    i=$((i + 1))
  done
  echo "$srcs"
}
