# SPDX-License-Identifier: LGPL-2.1-or-later
# Source this on the GPU host from the project root:
#   source .gpu-host13/activate.sh
# (scripts/gpu-host13-prepare copies it into .gpu-host13/). Unpacks the
# Debian 13 (GStreamer 1.26) runtime once into /tmp/gpu-host13-root (again
# when the bundle is newer) and points the dynamic loader and GStreamer at
# it; GPU_HOST_ROOT tells the run-gpu-host scripts where it is.
_gh_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
_gh_root=/tmp/gpu-host13-root
if [ ! -e "$_gh_root/.done" ] || [ "$_gh_dir/root.tar.xz" -nt "$_gh_root/.done" ]; then
  rm -rf "$_gh_root"
  mkdir -p "$_gh_root"
  tar -C "$_gh_root" -xJf "$_gh_dir/root.tar.xz"
  touch "$_gh_root/.done"
fi
_gh_lib="$_gh_root/usr/lib/x86_64-linux-gnu"
export GPU_HOST_ROOT="$_gh_root"
export LD_LIBRARY_PATH="$_gh_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$_gh_root/usr/bin:$PATH"
export GST_PLUGIN_SYSTEM_PATH="$_gh_lib/gstreamer-1.0"
export GST_PLUGIN_SCANNER="$_gh_lib/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner"
export GST_REGISTRY="$_gh_root/registry.bin"
echo "gpu-host13: $(cat "$_gh_root/VERSION")"
unset _gh_dir _gh_root _gh_lib
