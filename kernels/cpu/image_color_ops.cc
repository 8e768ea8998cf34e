// CPU kernels of the colour image operators (core/src/op/image_ops.cc) on one
// (H, W, C) image, C 1 or 3 (RGB), with MXNet 1.9.1's operator arithmetic
// (src/operator/image/image_random-inl.h), which differs from its
// ImageRecordIter augmenter's OpenCV calls (weft/image_aug.h): results are
// computed in float (double for double data) and stored by saturate_cast,
// which for uint8 clamps to [0, 255] and truncates.
//
//   brightness(a):  y = x * a
//   contrast(a):    y = x * a + (1 - a) * m, m the mean of 0.299 R + 0.587 G
//                   + 0.114 B over the image (of x for one channel)
//   saturation(a):  y = x * a + (1 - a) * g with g = 0.114 B: MXNet's loop
//                   assigns each channel's term instead of adding it, so only
//                   the last survives (kept, as exported graphs compute it);
//                   one channel is copied
//   hue(a):         RGB -> HLS (h in degrees), h += 360 a, HLS -> RGB, as
//                   MXNet's float conversion (OpenCV's formulas)
//   lighting(a):    y_c = x_c + sum_k eig[c][k] * a_k with AlexNet's
//                   eigenvectors times eigenvalues
// color_jitter draws the order of the four by std::shuffle, then each
// enabled step's factor (1 + U(-v, v); hue U(-v, v)), all before computing.
// Draws come from the context's RandomState (Runtime::Seed). Where MXNet
// leaves the output unwritten (hue and lighting on one channel, a jitter
// with every amount 0) the input is copied.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/image_ops.h"
#include "weft/dtype.h"
#include "weft/float_tuple.h"
#include "weft/mutex.h"
#include "weft/runtime.h"

namespace weft {
namespace cpu {

namespace {

constexpr float kGray[3] = {0.299f, 0.587f, 0.114f};

template <typename T>
void Brightness(const T* x, T* y, const ImageDims& d, float a) {
  for (int64_t i = 0; i < d.size(); ++i)
    y[i] = SaturateCast<T>(static_cast<float>(ToDouble(x[i])) * a);
}

template <typename T>
void Contrast(const T* x, T* y, const ImageDims& d, float a) {
  float sum = 0.f;
  if (d.c > 1) {
    for (int64_t l = 0; l < d.pixels(); ++l)
      for (int c = 0; c < 3; ++c) sum = static_cast<float>(sum + ToArith(x[l * 3 + c]) * kGray[c]);
  } else {
    for (int64_t l = 0; l < d.pixels(); ++l) sum = static_cast<float>(sum + ToArith(x[l]));
  }
  const float beta = (1 - a) * (sum / static_cast<float>(d.pixels()));
  for (int64_t i = 0; i < d.size(); ++i)
    y[i] = SaturateCast<T>(static_cast<float>(ToArith(x[i]) * a + beta));
}

template <typename T>
void Saturation(const T* x, T* y, const ImageDims& d, float a) {
  if (d.c == 1) {
    if (x != y) std::memcpy(y, x, d.size() * sizeof(T));
    return;
  }
  for (int64_t l = 0; l < d.pixels(); ++l) {
    float gray = static_cast<float>(ToArith(x[l * 3 + 2]) * kGray[2]);  // MXNet's last term only
    gray *= 1.f - a;
    for (int c = 0; c < 3; ++c)
      y[l * 3 + c] = SaturateCast<T>(static_cast<float>(gray + ToArith(x[l * 3 + c]) * a));
  }
}

// RGB in [0, 255] to hue (degrees), lightness and saturation in [0, 1].
void RgbToHls(float r, float g, float b, float* h, float* l, float* s) {
  r /= 255.f;
  g /= 255.f;
  b /= 255.f;
  const float hi = std::fmax(std::fmax(r, g), b), lo = std::fmin(std::fmin(r, g), b);
  float diff = hi - lo;
  *l = (hi + lo) * 0.5f;
  *h = *s = 0.f;
  if (diff <= FLT_EPSILON) return;
  *s = *l < 0.5f ? diff / (hi + lo) : diff / (2.0f - hi - lo);
  diff = 60.f / diff;
  if (hi == r)
    *h = (g - b) * diff;
  else if (hi == g)
    *h = (b - r) * diff + 120.f;
  else
    *h = (r - g) * diff + 240.f;
  if (*h < 0.f) *h += 360.f;
}

void HlsToRgb(float h, float l, float s, float* r, float* g, float* b) {
  if (s == 0) {
    *r = *g = *b = l * 255.f;
    return;
  }
  // Which of (p2, p1, falling, rising) each of B, G, R takes, per sector.
  static const int kSector[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                    {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
  const float p2 = l <= 0.5f ? l * (1 + s) : l + s - l * s, p1 = 2 * l - p2;
  h *= 1.f / 60.f;
  while (h < 0) h += 6;
  while (h >= 6) h -= 6;
  const int sector = static_cast<int>(h);
  h -= sector;
  const float tab[4] = {p2, p1, p1 + (p2 - p1) * (1 - h), p1 + (p2 - p1) * h};
  *b = tab[kSector[sector][0]] * 255.f;
  *g = tab[kSector[sector][1]] * 255.f;
  *r = tab[kSector[sector][2]] * 255.f;
}

template <typename T>
void Hue(const T* x, T* y, const ImageDims& d, float a) {
  if (d.c == 1) {
    if (x != y) std::memcpy(y, x, d.size() * sizeof(T));
    return;
  }
  for (int64_t l = 0; l < d.pixels(); ++l) {
    float rgb[3], h, li, s;
    for (int c = 0; c < 3; ++c) rgb[c] = static_cast<float>(ToDouble(x[l * 3 + c]));
    RgbToHls(rgb[0], rgb[1], rgb[2], &h, &li, &s);
    HlsToRgb(h + a * 360.f, li, s, &rgb[0], &rgb[1], &rgb[2]);
    for (int c = 0; c < 3; ++c) y[l * 3 + c] = SaturateCast<T>(rgb[c]);
  }
}

template <typename T>
void Lighting(const T* x, T* y, const ImageDims& d, const float alpha[3]) {
  if (d.c == 1) {
    if (x != y) std::memcpy(y, x, d.size() * sizeof(T));
    return;
  }
  // AlexNet's eigenvectors (columns) times eigenvalues, as MXNet stores them.
  static const float kEig[3][3] = {{55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009},
                                   {55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140},
                                   {55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203}};
  float pca[3];
  for (int c = 0; c < 3; ++c)
    pca[c] = kEig[c][0] * alpha[0] + kEig[c][1] * alpha[1] + kEig[c][2] * alpha[2];
  for (int64_t l = 0; l < d.pixels(); ++l)
    for (int c = 0; c < 3; ++c)
      y[l * 3 + c] = SaturateCast<T>(static_cast<float>(ToDouble(x[l * 3 + c])) + pca[c]);
}

enum Step { kBrightness = 0, kContrast = 1, kSaturation = 2, kHue = 3 };

// Runs step `s` with factor `a` on the image (`x` may equal `y`).
void Apply(Step s, float a, const TBlob& in, const TBlob& out, bool from_out) {
  const ImageDims d = ImageDims::Of(in);
  DispatchDType(in.dtype, [&](auto t) {
    using T = decltype(t);
    const T* x = from_out ? out.data<T>() : in.data<T>();
    T* y = out.data<T>();
    if (s == kBrightness) Brightness(x, y, d, a);
    if (s == kContrast) Contrast(x, y, d, a);
    if (s == kSaturation) Saturation(x, y, d, a);
    if (s == kHue) Hue(x, y, d, a);
  });
}

RandomState* Rng(const OpContext& octx, const char* op) {
  if (!octx.rng) Fail(StatusCode::kInternal, "operator ", op, ": no random state");
  return octx.rng;
}

struct FactorParams {
  float lo = 0, hi = 0;
  static FactorParams Decode(const ParamValues& p) {
    return {static_cast<float>(p.GetFloat("min_factor")),
            static_cast<float>(p.GetFloat("max_factor"))};
  }
};

KernelFn RandomStepCpu(Step step, const char* op) {
  return [step, op](const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    const FactorParams& f = attrs.params.Decoded<FactorParams>();
    if (f.lo > f.hi)
      Fail(StatusCode::kInvalidArgument, "operator ", op, " (node '", attrs.name, "'): min_factor ",
           f.lo, " exceeds max_factor ", f.hi);
    RandomState* rng = Rng(octx, op);
    float a;
    {
      MutexLock lock(&rng->mu);
      a = std::uniform_real_distribution<float>(f.lo, f.hi)(rng->engine);
    }
    if (req[0] != OpReq::kNull) Apply(step, a, in[0], out[0], false);
  };
}

struct JitterParams {
  float amount[4];  // brightness, contrast, saturation, hue
  static JitterParams Decode(const ParamValues& p) {
    return {{static_cast<float>(p.GetFloat("brightness")),
             static_cast<float>(p.GetFloat("contrast")),
             static_cast<float>(p.GetFloat("saturation")), static_cast<float>(p.GetFloat("hue"))}};
  }
};

void ColorJitterCpu(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const JitterParams& p = attrs.params.Decoded<JitterParams>();
  RandomState* rng = Rng(octx, "_image_random_color_jitter");
  int order[4] = {0, 1, 2, 3};
  float factor[4] = {0, 0, 0, 0};
  {
    MutexLock lock(&rng->mu);
    std::shuffle(order, order + 4, rng->engine);
    for (int s : order) {
      const float v = p.amount[s];
      if (v <= 0) continue;
      const float u = std::uniform_real_distribution<float>(-v, v)(rng->engine);
      factor[s] = s == kHue ? u : static_cast<float>(1.0 + u);
    }
  }
  if (req[0] == OpReq::kNull) return;
  bool written = false;
  for (int s : order) {
    if (p.amount[s] <= 0) continue;
    Apply(static_cast<Step>(s), factor[s], in[0], out[0], written);
    written = true;
  }
  if (!written) std::memcpy(out[0].dptr, in[0].dptr, in[0].Bytes());
}

// alpha (3 values) for _image_adjust_lighting; alpha_std for the random one.
void LightingCpu(const float alpha[3], const TBlob& in, const TBlob& out) {
  const ImageDims d = ImageDims::Of(in);
  DispatchDType(in.dtype, [&](auto t) {
    using T = decltype(t);
    Lighting(in.data<T>(), out.data<T>(), d, alpha);
  });
}

void AdjustLightingCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const std::vector<float> a = op::FloatTupleValue(attrs, "alpha", 3);
  if (req[0] != OpReq::kNull) LightingCpu(a.data(), in[0], out[0]);
}

struct LightingParams {
  float alpha_std = 0.05f;
  static LightingParams Decode(const ParamValues& p) {
    return {static_cast<float>(p.GetFloat("alpha_std"))};
  }
};

void RandomLightingCpu(const OpContext& octx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const float sd = attrs.params.Decoded<LightingParams>().alpha_std;
  RandomState* rng = Rng(octx, "_image_random_lighting");
  float a[3];
  {
    MutexLock lock(&rng->mu);
    std::normal_distribution<float> dist(0, sd);
    for (float& v : a) v = dist(rng->engine);
  }
  if (req[0] != OpReq::kNull) LightingCpu(a, in[0], out[0]);
}

}  // namespace

void RegisterImageColorOpsCpu(KernelRegistry* reg) {
  reg->Add("_image_random_brightness", DeviceType::kCPU,
           {"cpu", 0, RandomStepCpu(kBrightness, "_image_random_brightness"), false});
  reg->Add("_image_random_contrast", DeviceType::kCPU,
           {"cpu", 0, RandomStepCpu(kContrast, "_image_random_contrast"), false});
  reg->Add("_image_random_saturation", DeviceType::kCPU,
           {"cpu", 0, RandomStepCpu(kSaturation, "_image_random_saturation"), false});
  reg->Add("_image_random_hue", DeviceType::kCPU,
           {"cpu", 0, RandomStepCpu(kHue, "_image_random_hue"), false});
  reg->Add("_image_random_color_jitter", DeviceType::kCPU, {"cpu", 0, ColorJitterCpu, false});
  reg->Add("_image_adjust_lighting", DeviceType::kCPU, {"cpu", 0, AdjustLightingCpu, false});
  reg->Add("_image_random_lighting", DeviceType::kCPU, {"cpu", 0, RandomLightingCpu, false});
}

}  // namespace cpu
}  // namespace weft
