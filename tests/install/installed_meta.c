/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A user's program built against the installed meta library, with the
 * include line the README documents: attach a blob table to a buffer and
 * read it back. Built and run by test-installed.sh. */
#include <gpucclblob/gstcclblobmeta.h>

#include <stdio.h>

int
main (void)
{
  gst_init (NULL, NULL);

  GstCclBlob blob = {.id = 1,.area = 9,.x0 = 2,.y0 = 3,.x1 = 4,.y1 = 5,
    .sum_x = 27,.sum_y = 36
  };
  guint32 track_id = 7;
  GstBuffer *buffer = gst_buffer_new ();
  gst_buffer_add_ccl_blob_meta (buffer, 16, 16, &blob, &track_id, NULL, 1);

  const GstCclBlobMeta *meta = gst_buffer_get_ccl_blob_meta (buffer);
  gdouble cx = 0, cy = 0;
  if (meta && meta->n_blobs == 1)
    gst_ccl_blob_get_centroid (&meta->blobs[0], &cx, &cy);
  int ok = meta && meta->n_blobs == 1 && meta->track_ids[0] == 7
      && meta->blobs[0].area == 9 && cx == 3.0 && cy == 4.0;
  printf ("%s\n", ok ? "meta read back" : "meta missing or wrong");
  gst_buffer_unref (buffer);
  return ok ? 0 : 1;
}
