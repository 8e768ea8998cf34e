// Cubic and Lanczos-4 resizing of 8-bit images as OpenCV 4's cv::resize
// does them (INTER_CUBIC, INTER_LANCZOS4: MXNet's inter_method 2 and 4), so
// that the pixels are MXNet's (tests compare with cv2.resize).
//
// A destination coordinate d samples the source at
// f = (d + 0.5) * (src / dst) - 0.5 (double, rounded to float); s = floor(f)
// and the kernel's taps s - k/2 + 1 ... s + k/2 get weights from f - s,
// rounded to 11-bit integers (2048 = 1.0); taps outside the image read its
// edge. The horizontal pass makes int rows; the vertical pass combines k of
// them. Lanczos-4 and the last width % 8 values of a cubic row use OpenCV's
// integer rounding, (sum + 2^21) >> 22; the rest of a cubic row uses its
// SSE2 path: the weights as floats scaled by 2^-22, the products summed from
// the last row up, rounded to nearest even.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/image_resize_internal.h"

namespace weft {
namespace io {
namespace {

constexpr int kCoefScale = 2048;

void CubicWeights(float x, float* c) {
  const float a = -0.75f;
  c[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
  c[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
  c[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

void Lanczos4Weights(float x, float* c) {
  const double s45 = 0.70710678118654752440084436210485;
  const double cs[8][2] = {{1, 0},  {-s45, -s45}, {0, 1},  {s45, -s45},
                           {-1, 0}, {s45, s45},   {0, -1}, {-s45, s45}};
  const double pi = 3.1415926535897932384626433832795;
  float sum = 0;
  const double y0 = -(x + 3) * pi * 0.25, s0 = std::sin(y0), c0 = std::cos(y0);
  for (int i = 0; i < 8; ++i) {
    const float t = x + 3 - i;
    if (std::fabs(t) >= 1e-6f) {
      const double y = -t * pi * 0.25;
      c[i] = static_cast<float>((cs[i][0] * s0 + cs[i][1] * c0) / (y * y));
    } else {
      c[i] = 1e30f;  // x at a sample: all the weight there after normalising
    }
    sum += c[i];
  }
  sum = 1.f / sum;
  for (int i = 0; i < 8; ++i) c[i] *= sum;
}

int16_t ToCoef(float v) {
  return static_cast<int16_t>(std::min(32767L, std::max(-32768L, std::lrint(v * kCoefScale))));
}

// One axis: the first tap of each destination coordinate and ksize weights.
struct Taps {
  std::vector<int> first;
  std::vector<int16_t> w;
};

Taps MakeTaps(int src, int dst, int ksize) {
  const double scale = 1.0 / (static_cast<double>(dst) / src);
  Taps t{std::vector<int>(dst), std::vector<int16_t>(size_t(dst) * ksize)};
  float c[8];
  for (int d = 0; d < dst; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    const int s = static_cast<int>(std::floor(f));
    f -= s;
    if (ksize == 4)
      CubicWeights(f, c);
    else
      Lanczos4Weights(f, c);
    t.first[d] = s - ksize / 2 + 1;
    for (int k = 0; k < ksize; ++k) t.w[size_t(d) * ksize + k] = ToCoef(c[k]);
  }
  return t;
}

void HorizontalPass(const Image& src, int y, const Taps& xs, int ksize, std::vector<int>* out) {
  const int c = src.channels, width = static_cast<int>(xs.first.size());
  const uint8_t* row = src.at(y, 0);
  for (int dx = 0; dx < width; ++dx) {
    const int16_t* w = &xs.w[size_t(dx) * ksize];
    for (int ch = 0; ch < c; ++ch) {
      int v = 0;
      for (int k = 0; k < ksize; ++k) {
        const int sx = std::min(std::max(xs.first[dx] + k, 0), src.width - 1);
        v += row[sx * c + ch] * w[k];
      }
      (*out)[size_t(dx) * c + ch] = v;
    }
  }
}

uint8_t Saturate(long v) { return static_cast<uint8_t>(std::min(255L, std::max(0L, v))); }

// OpenCV's VResizeCubicVec_32s8u for SSE2: 8 values at a time.
uint8_t CubicFloat(const std::vector<int>* const* rows, const float* b, size_t i) {
  float v = static_cast<float>((*rows[3])[i]) * b[3];
  v = static_cast<float>((*rows[2])[i]) * b[2] + v;
  v = static_cast<float>((*rows[1])[i]) * b[1] + v;
  v = static_cast<float>((*rows[0])[i]) * b[0] + v;
  return Saturate(std::lrint(v));
}

}  // namespace

Image ResizeKernel(const Image& src, int width, int height, int ksize) {
  const Taps xs = MakeTaps(src.width, width, ksize);
  const Taps ys = MakeTaps(src.height, height, ksize);
  const size_t n = size_t(width) * src.channels;
  std::vector<std::vector<int>> rows(src.height);  // horizontal passes, made on demand
  Image dst(height, width, src.channels);
  const float scale = 1.f / (kCoefScale * kCoefScale);
  const size_t simd_end = n / 8 * 8;
  for (int dy = 0; dy < height; ++dy) {
    const std::vector<int>* r[8];
    for (int k = 0; k < ksize; ++k) {
      const int sy = std::min(std::max(ys.first[dy] + k, 0), src.height - 1);
      if (rows[sy].empty()) {
        rows[sy].resize(n);
        HorizontalPass(src, sy, xs, ksize, &rows[sy]);
      }
      r[k] = &rows[sy];
    }
    const int16_t* beta = &ys.w[size_t(dy) * ksize];
    float bf[4];
    for (int k = 0; k < 4 && ksize == 4; ++k) bf[k] = beta[k] * scale;
    uint8_t* out = dst.at(dy, 0);
    for (size_t i = 0; i < n; ++i) {
      if (ksize == 4 && i < simd_end) {
        out[i] = CubicFloat(r, bf, i);
        continue;
      }
      long sum = 0;
      for (int k = 0; k < ksize; ++k) sum += static_cast<long>((*r[k])[i]) * beta[k];
      out[i] = Saturate((sum + (1L << 21)) >> 22);
    }
  }
  return dst;
}

}  // namespace io
}  // namespace weft
