/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* See motion_opencv.h. */
#include "motion_opencv.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/background_segm.hpp>

struct MotionOpencv {
  cv::Ptr<cv::BackgroundSubtractorMOG2> mog2;
  cv::Mat fg, labels, stats, centroids;
};

extern "C" MotionOpencv *motion_opencv_new(void)
{
  try {
    cv::setNumThreads(1);
    MotionOpencv *m = new MotionOpencv;
    m->mog2 = cv::createBackgroundSubtractorMOG2(500, 16.0, false);
    return m;
  } catch (...) {
    return nullptr;
  }
}

extern "C" long motion_opencv_frame(MotionOpencv *m, const uint8_t *data,
                                    int width, int height, size_t stride)
{
  try {
    const cv::Mat frame(height, width, CV_8UC1, const_cast<uint8_t *>(data),
                        stride);
    m->mog2->apply(frame, m->fg);
    const int n = cv::connectedComponentsWithStats(m->fg, m->labels, m->stats,
                                                   m->centroids, 8, CV_32S);
    return n - 1;
  } catch (...) {
    return -1;
  }
}

extern "C" void motion_opencv_free(MotionOpencv *m)
{
  delete m;
}
