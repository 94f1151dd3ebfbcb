/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OpenCV baseline for gpucclblob-pipeline-bench (pipeline_opencv.cpp). */
#ifndef GPUCCL_PIPELINE_OPENCV_H
#define GPUCCL_PIPELINE_OPENCV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One frame: channels 1 (grey plane) or 4 (RGBA, converted to grey);
 * threshold, then connected components with stats. Returns the number of
 * components (background excluded), -1 on an OpenCV error. */
long pipeline_opencv_frame(const uint8_t *data, int width, int height,
                           size_t stride, int channels, int threshold,
                           int connectivity);

/* OpenCV's worker thread count. */
int pipeline_opencv_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_PIPELINE_OPENCV_H */
