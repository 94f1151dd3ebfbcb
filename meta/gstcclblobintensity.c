/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstCclBlobMeta's optional intensities (measure-intensity): set, read,
 * and as raw bytes for the Python override. Copied and scaled with the
 * table in gstcclblobmeta.c. */
#include "gstcclblobmetaprivate.h"

#include <string.h>

/**
 * gst_ccl_blob_meta_set_intensity:
 * @meta: a #GstCclBlobMeta
 * @intensity: (array) (nullable): n_blobs intensities, in the table's
 *   order; copied. %NULL removes them
 *
 * Returns: %FALSE when the copy cannot be allocated (the meta then has
 *   none)
 */
gboolean
gst_ccl_blob_meta_set_intensity (GstCclBlobMeta * meta,
    const GstCclBlobIntensity * intensity)
{
  gsize bytes;

  g_return_val_if_fail (meta != NULL, FALSE);

  g_clear_pointer (&meta->intensity, gst_ccl_blob_table_free);
  if (!intensity || meta->n_blobs == 0)
    return TRUE;
  bytes = (gsize) meta->n_blobs * sizeof (GstCclBlobIntensity);
  meta->intensity = gst_ccl_blob_table_alloc (bytes);
  if (!meta->intensity)
    return FALSE;
  memcpy (meta->intensity, intensity, bytes);
  return TRUE;
}

/**
 * gst_ccl_blob_meta_get_intensity:
 * @meta: a #GstCclBlobMeta
 * @index: 0..n_blobs - 1
 *
 * Returns: (transfer none) (nullable): the intensity of the blob at
 *   @index, %NULL when not measured or past the end
 */
const GstCclBlobIntensity *
gst_ccl_blob_meta_get_intensity (const GstCclBlobMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  return meta->intensity && index < meta->n_blobs ?
      &meta->intensity[index] : NULL;
}

/**
 * gst_ccl_blob_meta_get_intensity_bytes:
 * @meta: a #GstCclBlobMeta
 * @n_bytes: (out): n_blobs * sizeof (GstCclBlobIntensity), 0 when not
 *   measured
 *
 * Returns: (transfer none) (array length=n_bytes) (element-type guint8):
 *   the intensities as raw memory (Python: meta.intensity)
 */
const guint8 *
gst_ccl_blob_meta_get_intensity_bytes (const GstCclBlobMeta * meta,
    gsize * n_bytes)
{
  g_return_val_if_fail (meta != NULL && n_bytes != NULL, NULL);

  *n_bytes = meta->intensity ?
      (gsize) meta->n_blobs * sizeof (GstCclBlobIntensity) : 0;
  return (const guint8 *) meta->intensity;
}
