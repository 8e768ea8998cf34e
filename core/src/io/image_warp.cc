// WarpAffineImage and AffineAugMatrix (weft/image_aug.h): OpenCV 4's
// cv::warpAffine(INTER_LINEAR, BORDER_CONSTANT) for 8-bit images, with its
// fixed-point map so that the pixels are MXNet's (tests compare with
// cv2.warpAffine).
//
// OpenCV inverts the forward matrix in double, then for a destination pixel
// (x, y) takes the source position in 1/1024 units, X = round((m1 * y + m2)
// * 1024) + 16 + round(m0 * x * 1024) (Y likewise), drops 5 bits: the
// integer part is X >> 10 and the fraction X >> 5 & 31 in 1/32 steps. The
// bilinear weights of a fraction (fx, fy) are (32 - fy)(32 - fx) * 32 and
// its three siblings, summing to 2^15; a tap outside the source reads the
// fill value; the sum is rounded by + 2^14 >> 15.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "weft/image_aug.h"
#include "weft/status.h"

namespace weft {
namespace {

constexpr int kAbBits = 10;    // OpenCV's AB_BITS
constexpr int kInterBits = 5;  // INTER_BITS
constexpr int kTabSize = 1 << kInterBits;
constexpr int kCoefBits = 15;                   // INTER_REMAP_COEF_BITS
constexpr double kPi = 3.14159265358979323846;  // M_PI
constexpr float kMaxWarpSide = 32767;           // OpenCV's source coordinates are shorts

// saturate_cast<int>(double): round to nearest, ties to even.
int RoundToInt(double v) {
  if (!(v > -2147483648.0)) return INT32_MIN;
  if (v >= 2147483647.0) return INT32_MAX;
  return static_cast<int>(std::nearbyint(v));
}

int16_t SaturateShort(int v) { return static_cast<int16_t>(std::clamp(v, -32768, 32767)); }

// cv::warpAffine's inverse of the forward map (without WARP_INVERSE_MAP).
void Invert(const float fwd[6], double inv[6]) {
  double m[6];
  for (int i = 0; i < 6; ++i) m[i] = fwd[i];
  double d = m[0] * m[4] - m[1] * m[3];
  d = d != 0 ? 1. / d : 0;
  const double a11 = m[4] * d, a22 = m[0] * d;
  m[0] = a11;
  m[1] *= -d;
  m[3] *= -d;
  m[4] = a22;
  const double b1 = -m[0] * m[2] - m[1] * m[5];
  const double b2 = -m[3] * m[2] - m[4] * m[5];
  m[2] = b1;
  m[5] = b2;
  std::copy_n(m, 6, inv);
}

}  // namespace

Image WarpAffineImage(const Image& src, const float matrix[6], int width, int height, int fill) {
  if (src.empty()) Fail(StatusCode::kInvalidArgument, "WarpAffineImage: the source image is empty");
  if (width <= 0 || height <= 0) width = src.width, height = src.height;  // OpenCV: dsize.empty()
  double m[6];
  Invert(matrix, m);
  const int c = src.channels;
  const uint8_t fv = static_cast<uint8_t>(std::clamp(fill, 0, 255));
  constexpr int kAbScale = 1 << kAbBits;
  constexpr int kRoundDelta = kAbScale / kTabSize / 2;
  std::vector<int> adelta(width), bdelta(width);
  for (int x = 0; x < width; ++x) {
    adelta[x] = RoundToInt(m[0] * x * kAbScale);
    bdelta[x] = RoundToInt(m[3] * x * kAbScale);
  }
  Image dst(height, width, c);
  for (int y = 0; y < height; ++y) {
    const int x0 = RoundToInt((m[1] * y + m[2]) * kAbScale) + kRoundDelta;
    const int y0 = RoundToInt((m[4] * y + m[5]) * kAbScale) + kRoundDelta;
    uint8_t* out = dst.at(y, 0);
    for (int x = 0; x < width; ++x, out += c) {
      const int xs = (x0 + adelta[x]) >> (kAbBits - kInterBits);
      const int ys = (y0 + bdelta[x]) >> (kAbBits - kInterBits);
      const int sx = SaturateShort(xs >> kInterBits), sy = SaturateShort(ys >> kInterBits);
      const int fx = xs & (kTabSize - 1), fy = ys & (kTabSize - 1);
      const int w[4] = {(kTabSize - fy) * (kTabSize - fx) * kTabSize,
                        (kTabSize - fy) * fx * kTabSize, fy * (kTabSize - fx) * kTabSize,
                        fy * fx * kTabSize};
      const bool in_x0 = sx >= 0 && sx < src.width, in_x1 = sx + 1 >= 0 && sx + 1 < src.width;
      const bool in_y0 = sy >= 0 && sy < src.height, in_y1 = sy + 1 >= 0 && sy + 1 < src.height;
      const uint8_t* taps[4] = {in_y0 && in_x0 ? src.at(sy, sx) : nullptr,
                                in_y0 && in_x1 ? src.at(sy, sx + 1) : nullptr,
                                in_y1 && in_x0 ? src.at(sy + 1, sx) : nullptr,
                                in_y1 && in_x1 ? src.at(sy + 1, sx + 1) : nullptr};
      for (int k = 0; k < c; ++k) {
        int sum = 0;
        for (int t = 0; t < 4; ++t) sum += (taps[t] ? taps[t][k] : fv) * w[t];
        out[k] = static_cast<uint8_t>(std::min(255, (sum + (1 << (kCoefBits - 1))) >> kCoefBits));
      }
    }
  }
  return dst;
}

AffineWarp AffineAugMatrix(int cols, int rows, int angle, float shear, float scale, float ratio,
                           float min_img_size, float max_img_size) {
  // MXNet's float arithmetic, step by step (its cv::Mat M is CV_32F).
  const float a = static_cast<float>(std::cos(angle / 180.0 * kPi));
  const float b = static_cast<float>(std::sin(angle / 180.0 * kPi));
  const float hs = 2 * scale / (1 + ratio);
  const float ws = ratio * hs;
  const float new_w = std::max(min_img_size, std::min(max_img_size, scale * cols));
  const float new_h = std::max(min_img_size, std::min(max_img_size, scale * rows));
  AffineWarp w;
  float* m = w.matrix;
  m[0] = hs * a - shear * b * ws;
  m[3] = -b * ws;
  m[1] = hs * b + shear * a * ws;
  m[4] = a * ws;
  const float center_w = m[0] * cols + m[1] * rows;
  const float center_h = m[3] * cols + m[4] * rows;
  m[2] = (new_w - center_w) / 2;
  m[5] = (new_h - center_h) / 2;
  if (!(new_w <= kMaxWarpSide && new_h <= kMaxWarpSide))
    Fail(StatusCode::kInvalidArgument, "affine augmentation: the warped image would be ", new_w,
         "x", new_h, " (min_img_size ", min_img_size, ", scale ", scale, "); at most ",
         kMaxWarpSide, " per side");
  // cv::Size(float, float) truncates.
  w.width = static_cast<int>(new_w);
  w.height = static_cast<int>(new_h);
  return w;
}

}  // namespace weft
