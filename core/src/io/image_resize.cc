// ResizeImage (weft/image_aug.h): OpenCV 4's cv::resize for 8-bit images,
// nearest and bilinear, with OpenCV's coordinates and fixed-point rounding so
// that the pixels are MXNet's (tests compare with cv2.resize).
//
// Bilinear: a destination column dx samples the source at
// fx = (dx + 0.5) * (src_w / dst_w) - 0.5 (computed in double, rounded to
// float); sx = floor(fx) and the weights (1 - fx', fx') are rounded to 11-bit
// integers (2048 = 1.0). Columns left of the image clamp to column 0, right
// of it to the last column with weight 1; rows outside it keep their weights
// and read the edge row (OpenCV clips only their indices). A horizontal pass makes int rows
// (value * 2048); the vertical pass combines two of them as OpenCV's
// VResizeLinear for uchar does: ((b0 * (r0 >> 4)) >> 16) + ((b1 * (r1 >> 4))
// >> 16) + 2 >> 2. An exact 2x downscale in both directions is OpenCV's
// INTER_AREA instead: the rounded mean of each 2x2 block. Enlarging by area
// (INTER_AREA with a factor below 1) is bilinear with OpenCV's area weights:
// sx = floor(dx * scale), fx = (dx + 1) - (sx + 1) / scale, less its floor
// (0 when not positive). Cubic, Lanczos-4 and shrinking by area live in
// image_resize_kernel.cc and image_resize_area.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "io/image_resize_internal.h"
#include "weft/image_aug.h"
#include "weft/status.h"

namespace weft {
namespace {

constexpr int kCoefBits = 11;
constexpr int kCoefScale = 1 << kCoefBits;

// One axis of the bilinear map: source index and two fixed-point weights.
struct Tap {
  int index;   // first source index (the second is index + 1, clamped)
  int w0, w1;  // weights, summing to kCoefScale
};

int16_t RoundCoef(float v) {
  return static_cast<int16_t>(std::lrint(std::min(32767.f, std::max(-32768.f, v))));
}

// `clamp_weights`: OpenCV moves columns outside the image onto its edge with
// weight 1 (x); rows keep their weights and only the row indices are
// clipped (y), which rounds differently in the vertical pass.
// `area`: the area weights of an enlarging INTER_AREA.
std::vector<Tap> LinearTaps(int src, int dst, bool clamp_weights, bool area) {
  const double inv_scale = static_cast<double>(dst) / src, scale = 1.0 / inv_scale;
  std::vector<Tap> taps(dst);
  for (int d = 0; d < dst; ++d) {
    float f;
    int s;
    if (area) {
      s = static_cast<int>(std::floor(d * scale));
      f = static_cast<float>((d + 1) - (s + 1) * inv_scale);
      f = f <= 0 ? 0.f : f - std::floor(f);
    } else {
      f = static_cast<float>((d + 0.5) * scale - 0.5);
      s = static_cast<int>(std::floor(f));
      f -= s;
    }
    if (clamp_weights && s < 0) f = 0, s = 0;
    if (clamp_weights && s >= src - 1) f = 0, s = src - 1;
    taps[d] = {s, RoundCoef((1.f - f) * kCoefScale), RoundCoef(f * kCoefScale)};
  }
  return taps;
}

// The horizontal pass of one source row: width * channels ints.
void HorizontalPass(const Image& src, int y, const std::vector<Tap>& xs, std::vector<int>* out) {
  const int c = src.channels;
  const uint8_t* row = src.at(y, 0);
  for (size_t dx = 0; dx < xs.size(); ++dx) {
    const Tap& t = xs[dx];
    const int next = std::min(t.index + 1, src.width - 1);
    for (int k = 0; k < c; ++k)
      (*out)[dx * c + k] = row[t.index * c + k] * t.w0 + row[next * c + k] * t.w1;
  }
}

Image Bilinear(const Image& src, int width, int height, bool area) {
  const std::vector<Tap> xs = LinearTaps(src.width, width, true, area);
  const std::vector<Tap> ys = LinearTaps(src.height, height, false, area);
  Image dst(height, width, src.channels);
  const size_t n = size_t(width) * src.channels;
  std::vector<int> r0(n), r1(n);
  int have0 = -1, have1 = -1;  // source rows now in r0, r1
  for (int dy = 0; dy < height; ++dy) {
    const int y0 = std::min(std::max(ys[dy].index, 0), src.height - 1);
    const int y1 = std::min(std::max(ys[dy].index + 1, 0), src.height - 1);
    if (have0 != y0) {
      if (have1 == y0)
        std::swap(r0, r1), have1 = -1;
      else
        HorizontalPass(src, y0, xs, &r0);
      have0 = y0;
    }
    if (have1 != y1) HorizontalPass(src, y1, xs, &r1), have1 = y1;
    const int b0 = ys[dy].w0, b1 = ys[dy].w1;
    uint8_t* out = dst.at(dy, 0);
    for (size_t i = 0; i < n; ++i) {
      const int v = (((b0 * (r0[i] >> 4)) >> 16) + ((b1 * (r1[i] >> 4)) >> 16) + 2) >> 2;
      out[i] = static_cast<uint8_t>(std::min(255, std::max(0, v)));
    }
  }
  return dst;
}

Image HalveByArea(const Image& src) {
  Image dst(src.height / 2, src.width / 2, src.channels);
  const int c = src.channels;
  for (int y = 0; y < dst.height; ++y)
    for (int x = 0; x < dst.width; ++x)
      for (int k = 0; k < c; ++k) {
        const int sum = src.at(2 * y, 2 * x)[k] + src.at(2 * y, 2 * x + 1)[k] +
                        src.at(2 * y + 1, 2 * x)[k] + src.at(2 * y + 1, 2 * x + 1)[k];
        dst.at(y, x)[k] = static_cast<uint8_t>((sum + 2) >> 2);
      }
  return dst;
}

Image Nearest(const Image& src, int width, int height) {
  const double fx = 1.0 / (static_cast<double>(width) / src.width);
  const double fy = 1.0 / (static_cast<double>(height) / src.height);
  Image dst(height, width, src.channels);
  std::vector<int> xs(width);
  for (int x = 0; x < width; ++x)
    xs[x] = std::min(static_cast<int>(std::floor(x * fx)), src.width - 1);
  for (int y = 0; y < height; ++y) {
    const int sy = std::min(static_cast<int>(std::floor(y * fy)), src.height - 1);
    for (int x = 0; x < width; ++x) std::copy_n(src.at(sy, xs[x]), src.channels, dst.at(y, x));
  }
  return dst;
}

}  // namespace

Image ResizeImage(const Image& src, int width, int height, int inter_method) {
  if (width < 1 || height < 1 || src.empty())
    Fail(StatusCode::kInvalidArgument, "ResizeImage: ", src.width, "x", src.height, " to ", width,
         "x", height, ": sizes must be positive");
  if (inter_method < 0 || inter_method > 4)
    Fail(StatusCode::kInvalidArgument, "ResizeImage: inter_method must be 0 (nearest), 1 ",
         "(bilinear), 2 (cubic), 3 (area) or 4 (lanczos4), given ", inter_method);
  if (inter_method == 0) return Nearest(src, width, height);
  if (width == src.width && height == src.height) return src;
  if ((inter_method == 1 || inter_method == 3) && src.width == 2 * width &&
      src.height == 2 * height)
    return HalveByArea(src);
  if (inter_method == 2 || inter_method == 4)
    return io::ResizeKernel(src, width, height, inter_method == 2 ? 4 : 8);
  if (inter_method == 3 && width <= src.width && height <= src.height)
    return io::ResizeAreaDown(src, width, height);
  return Bilinear(src, width, height, inter_method == 3);
}

}  // namespace weft
