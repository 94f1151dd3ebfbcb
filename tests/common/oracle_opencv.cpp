// SPDX-License-Identifier: LGPL-2.1-or-later
// OpenCV as an oracle: connectedComponentsWithStats behind a C interface.
#include "oracle.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <vector>

static cv::Mat wrap(const uint8_t *data, int width, int height, size_t stride)
{
  // OpenCV does not write its input; the const_cast only satisfies cv::Mat.
  return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(data), stride);
}

extern "C" long oracle_opencv(const uint8_t *data, int width, int height,
                              size_t stride, int connectivity,
                              uint32_t *labels, OracleStats *stats,
                              size_t stats_cap)
{
  try {
    cv::Mat cv_labels, cv_stats, cv_centroids;
    int n = cv::connectedComponentsWithStats(wrap(data, width, height, stride),
                                             cv_labels, cv_stats, cv_centroids,
                                             connectivity, CV_32S);
    // OpenCV's numbering (0 background) -> raster order of first pixels.
    std::vector<uint32_t> order(static_cast<size_t>(n), 0);
    uint32_t next = 0;
    for (int y = 0; y < height; y++) {
      const int32_t *row = cv_labels.ptr<int32_t>(y);
      for (int x = 0; x < width; x++) {
        int32_t l = row[x];
        if (l != 0 && order[l] == 0)
          order[l] = ++next;
        labels[static_cast<size_t>(y) * width + x] = l ? order[l] : 0;
      }
    }
    if (stats && stats_cap >= next) {
      for (int l = 1; l < n; l++) {
        if (order[l] == 0)
          continue;
        OracleStats &s = stats[order[l] - 1];
        const int32_t *st = cv_stats.ptr<int32_t>(l);
        s = OracleStats{};
        s.x0 = static_cast<uint32_t>(st[cv::CC_STAT_LEFT]);
        s.y0 = static_cast<uint32_t>(st[cv::CC_STAT_TOP]);
        s.x1 = s.x0 + static_cast<uint32_t>(st[cv::CC_STAT_WIDTH]) - 1;
        s.y1 = s.y0 + static_cast<uint32_t>(st[cv::CC_STAT_HEIGHT]) - 1;
        s.area = static_cast<uint64_t>(st[cv::CC_STAT_AREA]);
        s.cx = cv_centroids.at<double>(l, 0);
        s.cy = cv_centroids.at<double>(l, 1);
      }
    }
    return static_cast<long>(next);
  } catch (const cv::Exception &) {
    return -1;
  }
}

extern "C" long oracle_opencv_bench(const uint8_t *data, int width, int height,
                                    size_t stride, int connectivity,
                                    int with_stats)
{
  static thread_local cv::Mat cv_labels, cv_stats, cv_centroids;
  try {
    cv::Mat input = wrap(data, width, height, stride);
    if (!with_stats)
      return cv::connectedComponents(input, cv_labels, connectivity, CV_32S);
    return cv::connectedComponentsWithStats(input, cv_labels, cv_stats,
                                            cv_centroids, connectivity, CV_32S);
  } catch (const cv::Exception &) {
    return -1;
  }
}

extern "C" int oracle_opencv_otsu(const uint8_t *data, int width, int height,
                                  size_t stride)
{
  try {
    cv::Mat binary;
    double t = cv::threshold(wrap(data, width, height, stride), binary, 0, 255,
                             cv::THRESH_BINARY | cv::THRESH_OTSU);
    return static_cast<int>(t);
  } catch (const cv::Exception &) {
    return -1;
  }
}

extern "C" void oracle_opencv_set_threads(int threads)
{
  cv::setNumThreads(threads > 0 ? threads : -1);
}

extern "C" int oracle_opencv_get_threads(void) { return cv::getNumThreads(); }
