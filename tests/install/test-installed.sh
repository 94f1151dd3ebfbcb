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
# Then docs/install.md's environment, exactly: its block (prefix= pointed
# at the staged install) in an otherwise empty environment, and the
# commands it gives: gst-inspect-1.0, the C sample (PIPELINE_SOURCE.c)
# built through pkg-config, the README's Python example, gpucclblob-watch;
# and without LD_LIBRARY_PATH the plugin must not load (what the doc says).
# The versioned library names the doc gives must be the installed ones.
#
# Usage: test-installed.sh BUILD_DIR META_SOURCE.c LIB_SOURCE.c
#          PIPELINE_SOURCE.c README.md INSTALL.md
#   (CC: the C compiler). Each program is built with its own package's
#   flags only, so one package's include path cannot hide the other's.
set -euo pipefail
build=$1 meta_source=$2 lib_source=$3 pipeline_source=$4 readme=$5 install_doc=$6
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

# Every versioned library docs/install.md names (libgpuccl.so.2, ...) is
# one the install has: a soname bump must reach the doc.
for name in $(grep -o 'lib[A-Za-z0-9_]*\.so\.[0-9][0-9]*' "$install_doc" | sort -u); do
  [ -e "$libdir/$name" ] || {
    echo "FAIL: docs/install.md names $name, not installed (in $libdir:" \
      "$(cd "$libdir" && ls lib*.so.* | tr '\n' ' '))"
    exit 1
  }
done
echo "the sonames docs/install.md names are installed"

# docs/install.md, "Under another prefix": the block, then its commands.
prefix=$(realpath "$(pkg-config --variable=prefix gstcclblobmeta)")
python3 - "$install_doc" "$readme" "$prefix" "$stage" <<'PY'
import re, sys
doc, readme, prefix, stage = sys.argv[1:]
def blocks(path, heading, lang):
    part = open(path).read().split(heading, 1)[1]
    return re.findall(r"```" + lang + r"\n(.*?)```", part, re.S)
env = blocks(doc, "## Under another prefix", "sh")[0]
if "prefix=/opt/gpucclblob\n" not in env:
    sys.exit("docs/install.md: no prefix=/opt/gpucclblob line: update this test")
env = env.replace("prefix=/opt/gpucclblob\n", f"prefix={prefix}\n")
open(f"{stage}/env.sh", "w").write(env)
open(f"{stage}/env-no-ld.sh", "w").write(
    "".join(l + "\n" for l in env.splitlines() if "LD_LIBRARY_PATH" not in l))
open(f"{stage}/app.py", "w").write(blocks(readme, "## Reading the blobs", "python")[0])
PY
cp "$pipeline_source" "$stage/app.c"
cd "$stage"
# The documented environment and nothing else (HOME: a fresh registry).
clean_env() { env -i HOME="$stage/home" PATH=/usr/bin:/bin CC="$cc" "$@"; }
out=$(clean_env bash -euo pipefail -c '
  source ./env.sh
  gst-inspect-1.0 gpucclblob | grep Filename
  $CC app.c -o app $(pkg-config --cflags --libs gstcclblobmeta) && ./app
  python3 app.py
  gpucclblob-watch --frames 1 videotestsrc pattern=ball ! gpucclblob ! fakesink
' 2>&1 < /dev/null) || { echo "$out"; echo "FAIL: docs/install.md's commands"; exit 1; }
echo "$out"
expect() {  # COUNT PATTERN WHAT
  [ "$(grep -c -- "$2" <<<"$out")" -eq "$1" ] || { echo "FAIL: $3"; exit 1; }
}
expect 1 "Filename *$libdir/gstreamer-1.0/libgstgpucclblob.so" "gst-inspect-1.0: the prefix's plugin"
expect 3 '^track 1: ' "the C sample: 3 frames, track 1"
expect 3 '^\[(1, ' "the Python sample: 3 tables, track 1"
expect 1 '"blobs":\[{"id":1' "gpucclblob-watch on PATH"
# (a registry of its own: the first one remembers the plugin as loaded)
if env -i HOME="$stage/home-no-ld" PATH=/usr/bin:/bin \
    bash -c 'source ./env-no-ld.sh; gst-inspect-1.0 gpucclblob' >/dev/null 2>&1; then
  echo "FAIL: the plugin loads without LD_LIBRARY_PATH: docs/install.md says it does not"
  exit 1
fi
echo "docs/install.md: environment and commands work as written"
