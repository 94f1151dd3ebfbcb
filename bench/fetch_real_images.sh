#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The real pictures of `gpuccl-bench --real DIR`, gathered into DIR and
# named CATEGORY-NAME.EXT after YACCLAB's real datasets (documents,
# medical, natural images; textures stand in for its fingerprints): the
# sample data of scikit-image (Debian package python3-skimage) and the two
# pictures libleptonica-dev ships. The bench binarises them itself (Otsu).
#
#   bench/fetch_real_images.sh DIR
#
# python3-skimage installed: its data directory is used. Not installed (it
# pulls in SciPy, Matplotlib and 47 more packages for 20 pictures): the
# package file alone is fetched with `apt-get download` and only its data
# directory is unpacked, nothing is installed. The GPU host has no network:
# run this here and carry DIR (e.g. under the build directory) with the
# working tree.
set -euo pipefail
dest="${1:?usage: $0 DIR}"
mkdir -p "$dest"

skimage=/usr/lib/python3/dist-packages/skimage/data
if [ ! -f "$skimage/camera.png" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download -q python3-skimage >/dev/null 2>&1) || {
    echo "$0: python3-skimage is neither installed nor downloadable" \
         "(apt-get update first?)" >&2
    exit 1
  }
  dpkg-deb --fsys-tarfile "$tmp"/python3-skimage_*.deb |
    tar -x -C "$tmp" ./usr/lib/python3/dist-packages/skimage/data/
  skimage="$tmp$skimage"
fi

# category source-file
pictures=(
  "document $skimage/page.png"
  "document $skimage/text.png"
  "document $skimage/bw_text.png"
  "medical $skimage/retina.jpg"
  "medical $skimage/ihc.png"
  "medical $skimage/cell.png"
  "medical $skimage/microaneurysms.png"
  "medical /usr/share/doc/libleptonica-dev/aneurisms8.jpg"
  "natural $skimage/camera.png"
  "natural $skimage/coins.png"
  "natural $skimage/moon.png"
  "natural $skimage/astronaut.png"
  "natural $skimage/coffee.png"
  "natural $skimage/chelsea.png"
  "natural $skimage/rocket.jpg"
  "natural $skimage/hubble_deep_field.jpg"
  "natural $skimage/horse.png"
  "natural /usr/share/doc/libleptonica-dev/dave-orig.png"
  "texture $skimage/brick.png"
  "texture $skimage/gravel.png"
  "texture $skimage/grass.png"
)
n=0
for entry in "${pictures[@]}"; do
  category="${entry%% *}"
  src="${entry#* }"
  if [ ! -f "$src" ]; then
    echo "$0: missing $src, left out" >&2
    continue
  fi
  base="$(basename "$src")"
  cp "$src" "$dest/$category-${base//_/-}"
  n=$((n + 1))
done
echo "$n pictures in $dest"
