# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The environment the libFuzzer targets run in; sourced by run-fuzz.sh,
# make-fuzz-bundle.sh and gpu-host-fuzz.sh:
#   fuzz_env DIR   DIR holds gst/libgstgpucclblob.so (a build or a bundle);
#                  DIR/fuzz-no-plugins is made, an empty system plugin
#                  folder. GST_REGISTRY is the caller's (one per process
#                  where several run at once).
fuzz_env() {
  # Sanitizers stop at the first error so libFuzzer keeps the input (UBSan
  # stays recoverable at build time so that a suppressions file given in
  # UBSAN_OPTIONS can mask a known bug while a long run looks for others);
  # leaks are checked per input (GLib's and GStreamer's one-time
  # allocations stay reachable, so they are not reported).
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
  # The element target loads our plugin by its file name (fuzz_element.c
  # says why); plugins are scanned in-process (an uninstrumented plugin
  # scanner cannot load an ASan plugin).
  export GPUCCL_PLUGIN="$1/gst/libgstgpucclblob.so"
  unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0
  export GST_REGISTRY_FORK=no
  # No system plugins: the target needs only ours. An in-process scan of
  # all of them (a fresh or stale registry) makes more than 2048 GQuarks,
  # and GLib then drops its first quark array on purpose (gquark.c: "This
  # leaks the old quarks array"): LSan reported that 16384-byte block,
  # allocated by g_quark_init, as a direct leak at exit of the first run
  # after a build.
  mkdir -p "$1/fuzz-no-plugins"
  export GST_PLUGIN_SYSTEM_PATH_1_0="$1/fuzz-no-plugins"
  export G_SLICE=always-malloc
  export G_DEBUG=gc-friendly
}
