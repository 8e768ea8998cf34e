// ShiftHls (weft/image_aug.h): MXNet's HSL jitter, OpenCV 4's 8-bit
// cvtColor(BGR2HLS), an offset per channel clamped to H [0, 180], L and S
// [0, 255], and cvtColor(HLS2BGR). OpenCV converts 8-bit pixels through
// float: channels / 255, H in degrees halved to fit a byte, each result
// rounded to nearest (ties to even) and saturated; this file follows its
// scalar formulas step by step.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "weft/image_aug.h"
#include "weft/status.h"

namespace weft {
namespace {

uint8_t RoundSat(float v) {
  const long r = std::lrint(v);
  return static_cast<uint8_t>(r < 0 ? 0 : r > 255 ? 255 : r);
}

// RGB2HLS_b for one pixel: (H in [0, 180), L, S).
void RgbToHls(const uint8_t* rgb, int hls[3]) {
  const float r = rgb[0] * (1.f / 255.f), g = rgb[1] * (1.f / 255.f), b = rgb[2] * (1.f / 255.f);
  float vmax = r, vmin = r;
  if (vmax < g) vmax = g;
  if (vmax < b) vmax = b;
  if (vmin > g) vmin = g;
  if (vmin > b) vmin = b;
  float diff = vmax - vmin;
  const float l = (vmax + vmin) * 0.5f;
  float h = 0.f, s = 0.f;
  if (diff > FLT_EPSILON) {
    s = l < 0.5f ? diff / (vmax + vmin) : diff / (2 - vmax - vmin);
    diff = 60.f / diff;
    if (vmax == r)
      h = (g - b) * diff;
    else if (vmax == g)
      h = (b - r) * diff + 120.f;
    else
      h = (r - g) * diff + 240.f;
    if (h < 0.f) h += 360.f;
  }
  hls[0] = RoundSat(h * (180.f / 360.f));
  hls[1] = RoundSat(l * 255.f);
  hls[2] = RoundSat(s * 255.f);
}

// HLS2RGB_b for one pixel.
void HlsToRgb(const int hls[3], uint8_t* rgb) {
  float h = static_cast<float>(hls[0]);
  const float l = hls[1] * (1.f / 255.f), s = hls[2] * (1.f / 255.f);
  float r, g, b;
  if (s == 0) {
    r = g = b = l;
  } else {
    // OpenCV's sector table, indices into {p2, p1, rising, falling} for (b, g, r).
    static const int kSector[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                      {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    const float p2 = l <= 0.5f ? l * (1 + s) : l + s - l * s;
    const float p1 = 2 * l - p2;
    h *= 6.f / 180.f;
    while (h < 0) h += 6;
    while (h >= 6) h -= 6;
    const int sector = static_cast<int>(std::floor(h));
    h -= sector;
    const float tab[4] = {p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h};
    b = tab[kSector[sector][0]];
    g = tab[kSector[sector][1]];
    r = tab[kSector[sector][2]];
  }
  rgb[0] = RoundSat(r * 255.f);
  rgb[1] = RoundSat(g * 255.f);
  rgb[2] = RoundSat(b * 255.f);
}

}  // namespace

void ShiftHls(Image* img, int dh, int dl, int ds) {
  if (img->channels != 3)
    Fail(StatusCode::kInvalidArgument, "random_h / random_s / random_l: needs an RGB image, given ",
         img->channels, " channel(s)");
  const int delta[3] = {dh, dl, ds}, limit[3] = {180, 255, 255};
  const size_t n = size_t(img->height) * img->width;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = img->data.data() + i * 3;
    int hls[3];
    RgbToHls(p, hls);
    for (int k = 0; k < 3; ++k) hls[k] = std::clamp(hls[k] + delta[k], 0, limit[k]);
    HlsToRgb(hls, p);
  }
}

}  // namespace weft
