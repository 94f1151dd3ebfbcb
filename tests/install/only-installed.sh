#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `meson setup -Dtests=disabled -Dbench=disabled` (docs/install.md) builds
# only what is installed: configure SOURCE_DIR so in a temporary directory
# and list every target built by default that is not installed. Allowed:
# gpuccl-internal, the objects of libgpuccl (linked whole into it), and
# gpucclblob-cuda, the plugin's CUDA-memory part (linked into it).
# Usage: only-installed.sh SOURCE_DIR
set -euo pipefail
src=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
meson setup "$dir/b" "$src" -Dtests=disabled -Dbench=disabled -Dcuda=disabled \
  >"$dir/setup.log" 2>&1 || { tail -20 "$dir/setup.log"; exit 1; }
meson introspect "$dir/b" --targets | python3 -c '
import json, sys
targets = json.load(sys.stdin)
extra = [t["name"] for t in targets if t.get("build_by_default", True)
         and not t["installed"]
         and t["name"] not in ("gpuccl-internal", "gpucclblob-cuda")]
built = [t["name"] for t in targets if t.get("build_by_default", True)]
print("built by default:", ", ".join(built))
if extra:
    sys.exit("FAIL: built but not installed: " + ", ".join(extra))
print("only installed targets (and gpuccl-internal, gpucclblob-cuda)")
'
