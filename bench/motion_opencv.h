/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OpenCV's background subtraction for gpuccl-motion-bench
 * (motion_opencv.cpp): MOG2, then connectedComponentsWithStats. */
#ifndef GPUCCL_MOTION_OPENCV_H
#define GPUCCL_MOTION_OPENCV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MotionOpencv MotionOpencv;

/* One thread (cv::setNumThreads(1)), like the CPU backend; no shadow
 * detection (a second pass the library has no counterpart of). NULL on
 * an OpenCV error. */
MotionOpencv *motion_opencv_new(void);
/* One GRAY8 frame: MOG2's foreground, labeled with stats (8-connectivity).
 * Returns the components (background excluded), -1 on an OpenCV error. */
long motion_opencv_frame(MotionOpencv *m, const uint8_t *data, int width,
                         int height, size_t stride);
void motion_opencv_free(MotionOpencv *m);

#ifdef __cplusplus
}
#endif

#endif /* GPUCCL_MOTION_OPENCV_H */
