// SPDX-License-Identifier: LGPL-2.1-or-later
// The OpenCV baseline of gpucclblob-pipeline-bench: what an application
// without gpucclblob does per frame — grey conversion (RGBA only),
// cv::threshold, cv::connectedComponentsWithStats.
#include "pipeline_opencv.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace {
struct Scratch {
  cv::Mat grey, binary, labels, stats, centroids;
};
thread_local Scratch scratch;
} // namespace

extern "C" long pipeline_opencv_frame(const uint8_t *data, int width,
                                      int height, size_t stride, int channels,
                                      int threshold, int connectivity)
{
  try {
    cv::Mat src(height, width, channels == 4 ? CV_8UC4 : CV_8UC1,
                const_cast<uint8_t *>(data), stride);
    const cv::Mat *plane = &src;
    if (channels == 4) {
      cv::cvtColor(src, scratch.grey, cv::COLOR_RGBA2GRAY);
      plane = &scratch.grey;
    }
    cv::threshold(*plane, scratch.binary, threshold, 255, cv::THRESH_BINARY);
    int n = cv::connectedComponentsWithStats(scratch.binary, scratch.labels,
                                             scratch.stats, scratch.centroids,
                                             connectivity, CV_32S);
    return n - 1; // OpenCV counts the background
  } catch (const cv::Exception &) {
    return -1;
  }
}

extern "C" int pipeline_opencv_threads(void) { return cv::getNumThreads(); }
