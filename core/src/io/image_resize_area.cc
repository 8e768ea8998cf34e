// Shrinking by pixel area as OpenCV 4's cv::resize does it for 8-bit images
// (INTER_AREA with both factors >= 1: MXNet's inter_method 3), so that the
// pixels are MXNet's (tests compare with cv2.resize). Enlarging by area is
// bilinear with area weights (image_resize.cc).
//
// Integer factors: the rounded mean of each block (sum * (1/area) in float,
// rounded to nearest even). Other factors: each destination cell covers
// `scale` source pixels per axis; a source pixel's weight is the fraction
// of the cell it covers (OpenCV's tables, in float), a row is the weighted
// sum of its pixels, and a destination row the weighted sum of its rows.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/image_resize_internal.h"

namespace weft {
namespace io {
namespace {

uint8_t RoundToByte(float v) {
  return static_cast<uint8_t>(std::min(255L, std::max(0L, std::lrint(v))));
}

struct Cover {
  int dst, src;  // destination and source index (pixels, not values)
  float alpha;   // the share of the destination cell
};

// OpenCV's computeResizeAreaTab.
std::vector<Cover> AreaTable(int src, int dst, double scale) {
  std::vector<Cover> tab;
  for (int d = 0; d < dst; ++d) {
    const double f1 = d * scale, f2 = f1 + scale;
    const double cell = std::min(scale, src - f1);
    int s1 = static_cast<int>(std::ceil(f1)), s2 = static_cast<int>(std::floor(f2));
    s2 = std::min(s2, src - 1);
    s1 = std::min(s1, s2);
    if (s1 - f1 > 1e-3) tab.push_back({d, s1 - 1, static_cast<float>((s1 - f1) / cell)});
    for (int s = s1; s < s2; ++s) tab.push_back({d, s, static_cast<float>(1.0 / cell)});
    if (f2 - s2 > 1e-3)
      tab.push_back({d, s2, static_cast<float>(std::min(std::min(f2 - s2, 1.), cell) / cell)});
  }
  return tab;
}

Image AreaIntegerFactor(const Image& src, int width, int height, int fx, int fy) {
  Image dst(height, width, src.channels);
  const float scale = 1.f / (fx * fy);
  const int c = src.channels;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int k = 0; k < c; ++k) {
        int sum = 0;
        for (int dy = 0; dy < fy; ++dy)
          for (int dx = 0; dx < fx; ++dx) sum += src.at(y * fy + dy, x * fx + dx)[k];
        dst.at(y, x)[k] = RoundToByte(sum * scale);
      }
  return dst;
}

Image AreaTables(const Image& src, int width, int height, double sx, double sy) {
  const std::vector<Cover> xs = AreaTable(src.width, width, sx);
  const std::vector<Cover> ys = AreaTable(src.height, height, sy);
  const int c = src.channels;
  const size_t n = size_t(width) * c;
  std::vector<float> buf(n), sum(n, 0.f);
  Image dst(height, width, c);
  int prev = ys.empty() ? 0 : ys[0].dst;
  for (const Cover& y : ys) {
    std::fill(buf.begin(), buf.end(), 0.f);
    const uint8_t* row = src.at(y.src, 0);
    for (const Cover& x : xs)
      for (int k = 0; k < c; ++k) buf[x.dst * c + k] += row[x.src * c + k] * x.alpha;
    if (y.dst != prev) {
      uint8_t* out = dst.at(prev, 0);
      for (size_t i = 0; i < n; ++i) out[i] = RoundToByte(sum[i]), sum[i] = y.alpha * buf[i];
      prev = y.dst;
    } else {
      for (size_t i = 0; i < n; ++i) sum[i] += y.alpha * buf[i];
    }
  }
  uint8_t* out = dst.at(prev, 0);
  for (size_t i = 0; i < n; ++i) out[i] = RoundToByte(sum[i]);
  return dst;
}

}  // namespace

Image ResizeAreaDown(const Image& src, int width, int height) {
  const double sx = 1.0 / (static_cast<double>(width) / src.width);
  const double sy = 1.0 / (static_cast<double>(height) / src.height);
  const int ix = static_cast<int>(std::lrint(sx)), iy = static_cast<int>(std::lrint(sy));
  if (std::fabs(sx - ix) < DBL_EPSILON && std::fabs(sy - iy) < DBL_EPSILON)
    return AreaIntegerFactor(src, width, height, ix, iy);
  return AreaTables(src, width, height, sx, sy);
}

}  // namespace io
}  // namespace weft
