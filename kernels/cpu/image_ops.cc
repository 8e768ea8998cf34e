// CPU kernels of the geometric image operators (core/src/op/image_ops.cc):
// _image_to_tensor, _image_normalize and its gradient, _image_resize
// (weft/image_aug.h's ResizeImage: OpenCV's cv::resize, uint8), _image_crop
// and its gradient, and the flips (plain and random). Crops and flips move
// whole elements, so they serve every dtype.
#include <cstring>
#include <random>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/image_ops.h"
#include "weft/dtype.h"
#include "weft/float_tuple.h"
#include "weft/image_aug.h"
#include "weft/mutex.h"
#include "weft/runtime.h"

namespace weft {
namespace cpu {

namespace {

void ToTensorCpu(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const ImageDims d = ImageDims::Of(in[0]);
  float* y = out[0].data<float>();
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    ParallelFor(d.n * d.c, [&](int64_t nc) {
      const int64_t n = nc / d.c, c = nc % d.c;
      const T* src = x + n * d.size() + c;
      float* dst = y + n * d.size() + c * d.pixels();
      for (int64_t i = 0; i < d.pixels(); ++i)
        dst[i] = static_cast<float>(ToArith(src[i * d.c]) / ImageArith<T>(255.0f));
    });
  });
}

// mean and std as three values (one given: repeated), MXNet's reading.
struct NormalizeParams {
  float mean[3], std[3];
  static NormalizeParams Of(const NodeAttrs& attrs) {
    NormalizeParams p;
    const std::vector<float> m = op::FloatTupleValue(attrs, "mean");
    const std::vector<float> s = op::FloatTupleValue(attrs, "std");
    for (int c = 0; c < 3; ++c) {
      p.mean[c] = m.size() == 1 ? m[0] : m[std::min<size_t>(c, m.size() - 1)];
      p.std[c] = s.size() == 1 ? s[0] : s[std::min<size_t>(c, s.size() - 1)];
    }
    return p;
  }
};

// (N, C, H*W) planes of a (C, H, W) or (N, C, H, W) blob.
void Planes(const TBlob& b, int64_t* n, int64_t* c, int64_t* len) {
  const Shape& s = b.shape;
  const int r = s.ndim();
  *n = r == 4 ? s[0] : 1;
  *c = s[r - 3];
  *len = s[r - 2] * s[r - 1];
}

void NormalizeCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const NormalizeParams p = NormalizeParams::Of(attrs);
  int64_t n, c, len;
  Planes(in[0], &n, &c, &len);
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    using A = ImageArith<T>;
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    ParallelFor(n * c, [&](int64_t plane) {
      const int64_t ch = plane % c;
      for (int64_t i = plane * len; i < (plane + 1) * len; ++i)
        y[i] = SaturateCast<T>((ToArith(x[i]) - A(p.mean[ch])) / A(p.std[ch]));
    });
  });
}

void NormalizeBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const NormalizeParams p = NormalizeParams::Of(attrs);
  int64_t n, c, len;
  Planes(in[1], &n, &c, &len);
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    T* dx = out[0].data<T>();
    ParallelFor(n * c, [&](int64_t plane) {
      const double scale = 1.0 / p.std[plane % c];
      for (int64_t i = plane * len; i < (plane + 1) * len; ++i)
        dx[i] = FromDouble<T>(ToDouble(dy[i]) * scale);
    });
  });
}

struct ResizeParams {
  int interp = 1;
  static ResizeParams Decode(const ParamValues& p) {
    return {static_cast<int>(p.GetInt("interp"))};
  }
};

void ResizeCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  if (in[0].dtype != DType::kUint8)
    Fail(StatusCode::kNotImplemented, "operator _image_resize (node '", attrs.name, "'): dtype ",
         DTypeName(in[0].dtype),
         " is not implemented (uint8 images, as transforms.Resize gets them before ToTensor)");
  const ImageDims d = ImageDims::Of(in[0]), o = ImageDims::Of(out[0]);
  const int interp = attrs.params.Decoded<ResizeParams>().interp;
  for (int64_t n = 0; n < d.n; ++n) {
    Image img(static_cast<int>(d.h), static_cast<int>(d.w), static_cast<int>(d.c));
    std::memcpy(img.data.data(), in[0].data<uint8_t>() + n * d.size(), d.size());
    const Image r = ResizeImage(img, static_cast<int>(o.w), static_cast<int>(o.h), interp);
    std::memcpy(out[0].data<uint8_t>() + n * o.size(), r.data.data(), o.size());
  }
}

struct CropParams {
  int64_t x = 0, y = 0;
  static CropParams Decode(const ParamValues& p) { return {p.GetInt("x"), p.GetInt("y")}; }
};

// Copies the crop's rows between `big` (the image) and `small` (the crop):
// to the crop when `to_small`, else back into the image.
void CropRows(const TBlob& big, const TBlob& small, const CropParams& p, bool to_small) {
  const ImageDims d = ImageDims::Of(big), o = ImageDims::Of(small);
  const size_t es = DTypeSize(big.dtype), row = static_cast<size_t>(o.w * o.c) * es;
  auto* b = static_cast<uint8_t*>(big.dptr);
  auto* s = static_cast<uint8_t*>(small.dptr);
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t r = 0; r < o.h; ++r) {
      uint8_t* bp = b + ((n * d.h + p.y + r) * d.w + p.x) * d.c * es;
      uint8_t* sp = s + (n * o.h + r) * o.w * o.c * es;
      if (to_small)
        std::memcpy(sp, bp, row);
      else
        std::memcpy(bp, sp, row);
    }
}

void CropCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  CropRows(in[0], out[0], attrs.params.Decoded<CropParams>(), true);
}

void CropBackwardCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  std::memset(out[0].dptr, 0, out[0].Bytes());
  CropRows(out[0], in[0], attrs.params.Decoded<CropParams>(), false);
}

// Mirrors an (H, W, C) image: columns when `left_right`, else rows.
void Flip(const TBlob& in, const TBlob& out, bool left_right) {
  const ImageDims d = ImageDims::Of(in);
  const size_t px = static_cast<size_t>(d.c) * DTypeSize(in.dtype), row = px * d.w;
  const auto* x = static_cast<const uint8_t*>(in.dptr);
  auto* y = static_cast<uint8_t*>(out.dptr);
  for (int64_t r = 0; r < d.h; ++r) {
    if (!left_right) {
      std::memcpy(y + r * row, x + (d.h - 1 - r) * row, row);
      continue;
    }
    for (int64_t col = 0; col < d.w; ++col)
      std::memcpy(y + r * row + col * px, x + r * row + (d.w - 1 - col) * px, px);
  }
}

KernelFn FlipCpu(bool left_right) {
  return [left_right](const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (req[0] != OpReq::kNull) Flip(in[0], out[0], left_right);
  };
}

// MXNet's random flips: the image is kept when a fair coin says true.
KernelFn RandomFlipCpu(bool left_right, const char* op) {
  return [left_right, op](const OpContext& octx, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (!octx.rng) Fail(StatusCode::kInternal, "operator ", op, ": no random state");
    bool keep;
    {
      MutexLock lock(&octx.rng->mu);
      keep = std::bernoulli_distribution()(octx.rng->engine);
    }
    if (req[0] == OpReq::kNull) return;
    if (keep)
      std::memcpy(out[0].dptr, in[0].dptr, in[0].Bytes());
    else
      Flip(in[0], out[0], left_right);
  };
}

}  // namespace

void RegisterImageOpsCpu(KernelRegistry* reg) {
  reg->Add("_image_to_tensor", DeviceType::kCPU, {"cpu", 0, ToTensorCpu, false});
  reg->Add("_image_normalize", DeviceType::kCPU, {"cpu", 0, NormalizeCpu, false});
  reg->Add("_backward_image_normalize", DeviceType::kCPU, {"cpu", 0, NormalizeBackwardCpu, false});
  reg->Add("_image_resize", DeviceType::kCPU, {"cpu", 0, ResizeCpu, false});
  reg->Add("_image_crop", DeviceType::kCPU, {"cpu", 0, CropCpu, false});
  reg->Add("_backward_image_crop", DeviceType::kCPU, {"cpu", 0, CropBackwardCpu, false});
  reg->Add("_image_flip_left_right", DeviceType::kCPU, {"cpu", 0, FlipCpu(true), false});
  reg->Add("_image_flip_top_bottom", DeviceType::kCPU, {"cpu", 0, FlipCpu(false), false});
  reg->Add("_image_random_flip_left_right", DeviceType::kCPU,
           {"cpu", 0, RandomFlipCpu(true, "_image_random_flip_left_right"), false});
  reg->Add("_image_random_flip_top_bottom", DeviceType::kCPU,
           {"cpu", 0, RandomFlipCpu(false, "_image_random_flip_top_bottom"), false});
}

}  // namespace cpu
}  // namespace weft
