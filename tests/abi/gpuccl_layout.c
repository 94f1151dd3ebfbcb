/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libgpuccl's public layout against gpuccl.layout; also that the soname
 * this build gives the library, the header and the loaded library agree
 * on GPUCCL_ABI_VERSION. Usage: abi-gpuccl MANIFEST | --print */
#include "gpuccl.h"
#include "gpuccl_track.h"
#include "gpuccl_volume.h"
#include "layout_check.h"

#include <stdlib.h>

static void fill(Layout *l)
{
  LAYOUT_VALUE(l, GPUCCL_MAX_SIDE);
  LAYOUT_VALUE(l, GPUCCL_NO_BLOB);
  LAYOUT_VALUE(l, GPUCCL_VOLUME_MAX_VOXELS);

  LAYOUT_ENUM(l, GpucclStatus);
  LAYOUT_VALUE(l, GPUCCL_ERROR_INTERNAL);
  LAYOUT_ENUM(l, GpucclBackend);
  LAYOUT_VALUE(l, GPUCCL_BACKEND_CPU);
  LAYOUT_ENUM(l, GpucclAlgorithm);
  LAYOUT_VALUE(l, GPUCCL_ALGORITHM_HA4);
  LAYOUT_VALUE(l, GPUCCL_ALGORITHM_BUF);
  LAYOUT_VALUE(l, GPUCCL_ALGORITHM_OUF);
  LAYOUT_VALUE(l, GPUCCL_ALGORITHM_LAST);
  LAYOUT_ENUM(l, GpucclMode);
  LAYOUT_VALUE(l, GPUCCL_MODE_SEGMENTS);
  LAYOUT_ENUM(l, GpucclMemory);
  LAYOUT_VALUE(l, GPUCCL_MEMORY_MAPPED);
  LAYOUT_ENUM(l, GpucclPixelFormat);
  LAYOUT_VALUE(l, GPUCCL_PIXEL_PACKED4);
  LAYOUT_ENUM(l, GpucclChannel);
  LAYOUT_VALUE(l, GPUCCL_CHANNEL_BLUE);
  LAYOUT_ENUM(l, GpucclAutoThreshold);
  LAYOUT_VALUE(l, GPUCCL_AUTO_THRESHOLD_OTSU);
  LAYOUT_ENUM(l, GpucclDrawFlags);
  LAYOUT_VALUE(l, GPUCCL_DRAW_LABELS);
  LAYOUT_ENUM(l, GpucclFrameFormat);
  LAYOUT_VALUE(l, GPUCCL_FRAME_PACKED4);
  LAYOUT_ENUM(l, GpucclVolumeAlgorithm);
  LAYOUT_VALUE(l, GPUCCL_VOLUME_BKE);
  LAYOUT_ENUM(l, GpucclTrackEndReason);
  LAYOUT_VALUE(l, GPUCCL_TRACK_FINISHED);
  LAYOUT_ENUM(l, GpucclBackgroundMode);
  LAYOUT_VALUE(l, GPUCCL_BACKGROUND_DIFFERENCE);

  LAYOUT_STRUCT(l, GpucclError);
  LAYOUT_FIELD(l, GpucclError, status);
  LAYOUT_FIELD(l, GpucclError, message);

  LAYOUT_STRUCT(l, GpucclImage);
  LAYOUT_FIELD(l, GpucclImage, data);
  LAYOUT_FIELD(l, GpucclImage, width);
  LAYOUT_FIELD(l, GpucclImage, height);
  LAYOUT_FIELD(l, GpucclImage, stride);
  LAYOUT_FIELD(l, GpucclImage, format);
  LAYOUT_FIELD(l, GpucclImage, offset_r);
  LAYOUT_FIELD(l, GpucclImage, offset_g);
  LAYOUT_FIELD(l, GpucclImage, offset_b);

  LAYOUT_STRUCT(l, GpucclNearest);
  LAYOUT_FIELD(l, GpucclNearest, d2);
  LAYOUT_FIELD(l, GpucclNearest, blob);

  LAYOUT_STRUCT(l, GpucclNearestRequest);
  LAYOUT_FIELD(l, GpucclNearestRequest, x);
  LAYOUT_FIELD(l, GpucclNearestRequest, y);
  LAYOUT_FIELD(l, GpucclNearestRequest, n);
  LAYOUT_FIELD(l, GpucclNearestRequest, answers);

  LAYOUT_STRUCT(l, GpucclParams);
  LAYOUT_FIELD(l, GpucclParams, threshold);
  LAYOUT_FIELD(l, GpucclParams, invert);
  LAYOUT_FIELD(l, GpucclParams, auto_threshold);
  LAYOUT_FIELD(l, GpucclParams, channel);
  LAYOUT_FIELD(l, GpucclParams, connectivity);
  LAYOUT_FIELD(l, GpucclParams, min_area);
  LAYOUT_FIELD(l, GpucclParams, max_area);
  LAYOUT_FIELD(l, GpucclParams, max_blobs);
  LAYOUT_FIELD(l, GpucclParams, want_labels);
  LAYOUT_FIELD(l, GpucclParams, algorithm);
  LAYOUT_FIELD(l, GpucclParams, mode);
  LAYOUT_FIELD(l, GpucclParams, nearest);
  LAYOUT_FIELD(l, GpucclParams, background);
  LAYOUT_FIELD(l, GpucclParams, mask);
  LAYOUT_FIELD(l, GpucclParams, want_intensity);

  LAYOUT_STRUCT(l, GpucclBlobIntensity);
  LAYOUT_FIELD(l, GpucclBlobIntensity, sum);
  LAYOUT_FIELD(l, GpucclBlobIntensity, min);
  LAYOUT_FIELD(l, GpucclBlobIntensity, max);

  LAYOUT_STRUCT(l, GpucclBackgroundParams);
  LAYOUT_FIELD(l, GpucclBackgroundParams, mode);
  LAYOUT_FIELD(l, GpucclBackgroundParams, learning_rate);
  LAYOUT_FIELD(l, GpucclBackgroundParams, selective);
  LAYOUT_FIELD(l, GpucclBackgroundParams, warmup_frames);

  LAYOUT_STRUCT(l, GpucclBlob);
  LAYOUT_FIELD(l, GpucclBlob, id);
  LAYOUT_FIELD(l, GpucclBlob, area);
  LAYOUT_FIELD(l, GpucclBlob, x0);
  LAYOUT_FIELD(l, GpucclBlob, y0);
  LAYOUT_FIELD(l, GpucclBlob, x1);
  LAYOUT_FIELD(l, GpucclBlob, y1);
  LAYOUT_FIELD(l, GpucclBlob, sum_x);
  LAYOUT_FIELD(l, GpucclBlob, sum_y);

  LAYOUT_STRUCT(l, GpucclResult);
  LAYOUT_FIELD(l, GpucclResult, width);
  LAYOUT_FIELD(l, GpucclResult, height);
  LAYOUT_FIELD(l, GpucclResult, n_components);
  LAYOUT_FIELD(l, GpucclResult, n_blobs);
  LAYOUT_FIELD(l, GpucclResult, blobs);
  LAYOUT_FIELD(l, GpucclResult, values);
  LAYOUT_FIELD(l, GpucclResult, threshold);
  LAYOUT_FIELD(l, GpucclResult, labels);

  LAYOUT_STRUCT(l, GpucclFrame);
  LAYOUT_FIELD(l, GpucclFrame, format);
  LAYOUT_FIELD(l, GpucclFrame, width);
  LAYOUT_FIELD(l, GpucclFrame, height);
  LAYOUT_FIELD(l, GpucclFrame, data);
  LAYOUT_FIELD(l, GpucclFrame, stride);
  LAYOUT_FIELD(l, GpucclFrame, offset_r);
  LAYOUT_FIELD(l, GpucclFrame, offset_g);
  LAYOUT_FIELD(l, GpucclFrame, offset_b);

  LAYOUT_STRUCT(l, GpucclDrawParams);
  LAYOUT_FIELD(l, GpucclDrawParams, flags);
  LAYOUT_FIELD(l, GpucclDrawParams, r);
  LAYOUT_FIELD(l, GpucclDrawParams, g);
  LAYOUT_FIELD(l, GpucclDrawParams, b);
  LAYOUT_FIELD(l, GpucclDrawParams, line_width);

  LAYOUT_STRUCT(l, GpucclTrackerParams);
  LAYOUT_FIELD(l, GpucclTrackerParams, max_distance);
  LAYOUT_FIELD(l, GpucclTrackerParams, max_lost);
  LAYOUT_FIELD(l, GpucclTrackerParams, max_tracks);

  LAYOUT_STRUCT(l, GpucclTrackEnd);
  LAYOUT_FIELD(l, GpucclTrackEnd, id);
  LAYOUT_FIELD(l, GpucclTrackEnd, reason);
  LAYOUT_FIELD(l, GpucclTrackEnd, first_frame);
  LAYOUT_FIELD(l, GpucclTrackEnd, last_frame);
  LAYOUT_FIELD(l, GpucclTrackEnd, frames_seen);
  LAYOUT_FIELD(l, GpucclTrackEnd, first_x);
  LAYOUT_FIELD(l, GpucclTrackEnd, first_y);
  LAYOUT_FIELD(l, GpucclTrackEnd, last_x);
  LAYOUT_FIELD(l, GpucclTrackEnd, last_y);

  LAYOUT_STRUCT(l, GpucclTrackEvents);
  LAYOUT_FIELD(l, GpucclTrackEvents, frame);
  LAYOUT_FIELD(l, GpucclTrackEvents, started);
  LAYOUT_FIELD(l, GpucclTrackEvents, n_started);
  LAYOUT_FIELD(l, GpucclTrackEvents, ended);
  LAYOUT_FIELD(l, GpucclTrackEvents, n_ended);

  LAYOUT_STRUCT(l, GpucclVolumeImage);
  LAYOUT_FIELD(l, GpucclVolumeImage, data);
  LAYOUT_FIELD(l, GpucclVolumeImage, width);
  LAYOUT_FIELD(l, GpucclVolumeImage, height);
  LAYOUT_FIELD(l, GpucclVolumeImage, depth);
  LAYOUT_FIELD(l, GpucclVolumeImage, row_stride);
  LAYOUT_FIELD(l, GpucclVolumeImage, slice_stride);

  LAYOUT_STRUCT(l, GpucclVolumeParams);
  LAYOUT_FIELD(l, GpucclVolumeParams, threshold);
  LAYOUT_FIELD(l, GpucclVolumeParams, algorithm);
  LAYOUT_FIELD(l, GpucclVolumeParams, want_labels);

  LAYOUT_STRUCT(l, GpucclVolumeBlob);
  LAYOUT_FIELD(l, GpucclVolumeBlob, id);
  LAYOUT_FIELD(l, GpucclVolumeBlob, x0);
  LAYOUT_FIELD(l, GpucclVolumeBlob, y0);
  LAYOUT_FIELD(l, GpucclVolumeBlob, z0);
  LAYOUT_FIELD(l, GpucclVolumeBlob, x1);
  LAYOUT_FIELD(l, GpucclVolumeBlob, y1);
  LAYOUT_FIELD(l, GpucclVolumeBlob, z1);
  LAYOUT_FIELD(l, GpucclVolumeBlob, voxels);
  LAYOUT_FIELD(l, GpucclVolumeBlob, sum_x);
  LAYOUT_FIELD(l, GpucclVolumeBlob, sum_y);
  LAYOUT_FIELD(l, GpucclVolumeBlob, sum_z);
  LAYOUT_FIELD(l, GpucclVolumeBlob, cx);
  LAYOUT_FIELD(l, GpucclVolumeBlob, cy);
  LAYOUT_FIELD(l, GpucclVolumeBlob, cz);

  LAYOUT_STRUCT(l, GpucclVolumeResult);
  LAYOUT_FIELD(l, GpucclVolumeResult, width);
  LAYOUT_FIELD(l, GpucclVolumeResult, height);
  LAYOUT_FIELD(l, GpucclVolumeResult, depth);
  LAYOUT_FIELD(l, GpucclVolumeResult, n_components);
  LAYOUT_FIELD(l, GpucclVolumeResult, blobs);
  LAYOUT_FIELD(l, GpucclVolumeResult, labels);
}

int main(int argc, char **argv)
{
  if (GPUCCL_SOVERSION != GPUCCL_ABI_VERSION ||
      gpuccl_abi_version() != GPUCCL_ABI_VERSION) {
    printf("FAIL: GPUCCL_ABI_VERSION %d, soname version %d (kernels/"
           "meson.build), loaded library %u: they must agree\n",
           GPUCCL_ABI_VERSION, GPUCCL_SOVERSION, gpuccl_abi_version());
    return 1;
  }
  return layout_main(argc, argv, "gpuccl", GPUCCL_ABI_VERSION, fill);
}
