#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Install the build into a temporary prefix (meson install --destdir) and
# build a user's program there the way the README says: the include lines
# <gpucclblob/gstcclblobmeta.h> and <gpuccl.h>, `pkg-config --cflags --libs
# gstcclblobmeta gpuccl`, with nothing of the install in a default search
# path; then load the installed plugin from there.
# The .pc files are relocatable (prefix from ${pcfiledir}), so the staged
# install acts as a real prefix.
#
# Usage: test-installed.sh BUILD_DIR META_SOURCE.c LIB_SOURCE.c
#   (CC: the C compiler). Each program is built with its own package's
#   flags only, so one package's include path cannot hide the other's.
set -euo pipefail
build=$1 meta_source=$2 lib_source=$3
cc=${CC:-cc}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$stage" >/dev/null
pcdir=$(dirname "$(find "$stage" -name gstcclblobmeta.pc | head -1)")
[ -f "$pcdir/gstcclblobmeta.pc" ] || { echo "FAIL: no gstcclblobmeta.pc installed"; exit 1; }

export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir=$(realpath "$(pkg-config --variable=libdir gstcclblobmeta)")
build_and_run() {  # PACKAGE SOURCE
  local flags
  flags=$(pkg-config --cflags --libs "$1")
  echo "pkg-config --cflags --libs $1: $flags"
  # shellcheck disable=SC2086 # the flags are meant to split into words
  $cc -o "$stage/prog-$1" "$2" $flags
  LD_LIBRARY_PATH="$libdir" "$stage/prog-$1"
}
build_and_run gstcclblobmeta "$meta_source"
build_and_run gpuccl "$lib_source"

# The installed plugin loads from the prefix (its libraries found there).
inspect=$(GST_REGISTRY="$stage/registry.bin" GST_PLUGIN_SYSTEM_PATH_1_0="" \
  GST_PLUGIN_PATH="$libdir/gstreamer-1.0" LD_LIBRARY_PATH="$libdir" \
  gst-inspect-1.0 gpucclblob 2>&1) || true
grep -q "Filename *$libdir/gstreamer-1.0/" <<<"$inspect" || {
  echo "FAIL: the installed plugin does not load from $libdir/gstreamer-1.0:"
  echo "$inspect" | head -20
  exit 1
}
echo "installed plugin loads"
