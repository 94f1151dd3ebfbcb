/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gpucclblob plugin: one element. */
#include "gstgpucclblob.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  return GST_ELEMENT_REGISTER (gpucclblob, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpucclblob,
    "Connected-component labeling and blob analysis on NVIDIA GPUs and CPUs",
    plugin_init, VERSION, "LGPL", PACKAGE, GST_PACKAGE_ORIGIN)
