/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpucclblob's binarisation by motion (binarize=difference|background):
 * one libgpuccl background model, made in the context that labels the
 * frames (so it follows them from the host context to a CUDA memory one
 * and between GPUs, starting afresh), given the properties every frame,
 * and forgotten on reset-background, new caps, a new region and stop. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpucclblobprivate.h"

#define GST_CAT_DEFAULT gst_gpuccl_blob_debug

void
gst_gpuccl_blob_motion_free (GstGpucclBlob * self)
{
  g_clear_pointer (&self->background, gpuccl_background_free);
  self->background_ctx = NULL;
}

void
gst_gpuccl_blob_motion_reset (GstGpucclBlob * self)
{
  g_atomic_int_set (&self->background_reset, TRUE);
}

/* p->background for a frame labeled on ctx; FALSE with an element error
 * when the model cannot be made. binarize=threshold frees the model. */
gboolean
gst_gpuccl_blob_motion_params (GstGpucclBlob * self, GpucclContext * ctx,
    const Settings * s, GpucclParams * p)
{
  GpucclBackgroundParams bp;
  GpucclError error = { 0 };

  if (s->binarize == GST_GPUCCL_BLOB_BINARIZE_THRESHOLD) {
    gst_gpuccl_blob_motion_free (self);
    return TRUE;
  }
  if (s->mode != GPUCCL_MODE_BINARY) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("binarize=%s needs mode=binary: a label map (mode=segments) is "
            "not binarized", s->binarize ==
            GST_GPUCCL_BLOB_BINARIZE_DIFFERENCE ? "difference" :
            "background"), (NULL));
    return FALSE;
  }
  gpuccl_background_params_init (&bp);
  bp.mode = s->binarize == GST_GPUCCL_BLOB_BINARIZE_DIFFERENCE ?
      GPUCCL_BACKGROUND_DIFFERENCE : GPUCCL_BACKGROUND_AVERAGE;
  bp.learning_rate = s->learning_rate;
  bp.selective = s->background_selective;
  bp.warmup_frames = s->background_frames;

  if (self->background && self->background_ctx != ctx) {
    GST_INFO_OBJECT (self, "frames on another context: a new background");
    gst_gpuccl_blob_motion_free (self);
  }
  if (!self->background) {
    self->background = gpuccl_background_new (ctx, &bp, &error);
    if (!self->background) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot make the background model: %s", error.message),
          ("gpuccl status: %s", gpuccl_status_name (error.status)));
      return FALSE;
    }
    self->background_ctx = ctx;
  } else if (gpuccl_background_set_params (self->background, &bp,
          &error) != GPUCCL_OK) {
    /* The property specs keep the values in range: not reached. */
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Background parameters refused: %s", error.message), (NULL));
    return FALSE;
  }
  if (g_atomic_int_compare_and_exchange (&self->background_reset, TRUE,
          FALSE))
    gpuccl_background_reset (self->background);
  p->background = self->background;
  return TRUE;
}
