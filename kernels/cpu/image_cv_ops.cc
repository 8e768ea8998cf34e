// CPU kernels of MXNet's OpenCV image operators (core/src/op/image_cv_ops.cc):
// _cvimresize through weft/image_aug.h's ResizeImage (cv::resize, uint8) and
// _cvcopyMakeBorder with cv::copyMakeBorder's border rules (OpenCV's
// borderInterpolate) and its constant: saturate_cast of the fill, rounding to
// nearest for the integer types.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/image_ops.h"
#include "weft/dtype.h"
#include "weft/float_tuple.h"
#include "weft/image_aug.h"

namespace weft {
namespace cpu {

namespace {

struct ImresizeParams {
  int interp = 1;
  static ImresizeParams Decode(const ParamValues& p) {
    return {static_cast<int>(p.GetInt("interp"))};
  }
};

void ImresizeCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  if (in[0].dtype != DType::kUint8)
    Fail(StatusCode::kNotImplemented, "operator _cvimresize (node '", attrs.name, "'): dtype ",
         DTypeName(in[0].dtype), " is not implemented (uint8 images)");
  const ImageDims d = ImageDims::Of(in[0]), o = ImageDims::Of(out[0]);
  Image img(static_cast<int>(d.h), static_cast<int>(d.w), static_cast<int>(d.c));
  std::memcpy(img.data.data(), in[0].dptr, d.size());
  const Image r = ResizeImage(img, static_cast<int>(o.w), static_cast<int>(o.h),
                              attrs.params.Decoded<ImresizeParams>().interp);
  std::memcpy(out[0].dptr, r.data.data(), o.size());
}

struct BorderParams {
  int64_t top = 0, left = 0;
  int type = 0;
  double value = 0;
  static BorderParams Decode(const ParamValues& p) {
    return {p.GetInt("top"), p.GetInt("left"), static_cast<int>(p.GetInt("type")),
            p.GetFloat("value")};
  }
};

// The source index OpenCV's borderInterpolate gives position `p` of an axis
// of `len` for border `type` (1..4), or -1 for the constant border.
int64_t BorderIndex(int64_t p, int64_t len, int type) {
  if (p >= 0 && p < len) return p;
  auto mod = [](int64_t a, int64_t m) { return ((a % m) + m) % m; };
  switch (type) {
    case 1:  // replicate: aaa|abcd|ddd
      return p < 0 ? 0 : len - 1;
    case 2: {  // reflect: cba|abcd|dcb
      const int64_t q = mod(p, 2 * len);
      return q < len ? q : 2 * len - 1 - q;
    }
    case 3:  // wrap: bcd|abcd|abc
      return mod(p, len);
    case 4: {  // reflect-101: dcb|abcd|cba
      if (len == 1) return 0;
      const int64_t q = mod(p, 2 * (len - 1));
      return q < len ? q : 2 * (len - 1) - q;
    }
    default:
      return -1;
  }
}

template <typename T>
T FillValue(double v) {
  if constexpr (std::is_integral_v<T>) {
    const double r = std::nearbyint(v);
    const double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    return static_cast<T>(r < lo ? lo : r > hi ? hi : r);
  } else {
    return FromDouble<T>(v);
  }
}

void BorderCpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const DType t = in[0].dtype;
  if (t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kUint8 && t != DType::kInt32)
    Fail(StatusCode::kDType, "operator _cvcopyMakeBorder (node '", attrs.name, "'): dtype ",
         DTypeName(t), " is not supported (float32, float64, uint8 or int32, OpenCV's types)");
  const BorderParams& p = attrs.params.Decoded<BorderParams>();
  const std::vector<float> values = op::FloatTupleValue(attrs, "values");
  const ImageDims d = ImageDims::Of(in[0]), o = ImageDims::Of(out[0]);
  std::vector<double> fill(static_cast<size_t>(d.c), 0.0);
  for (int64_t c = 0; c < d.c && c < 4; ++c)
    fill[c] = values.empty() ? (c < 3 ? p.value : 0.0)
                             : (c < static_cast<int64_t>(values.size()) ? values[c] : 0.0);
  DispatchDType(t, [&](auto tag) {
    using T = decltype(tag);
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    for (int64_t r = 0; r < o.h; ++r) {
      const int64_t sr = BorderIndex(r - p.top, d.h, p.type);
      for (int64_t col = 0; col < o.w; ++col) {
        const int64_t sc = BorderIndex(col - p.left, d.w, p.type);
        T* dst = y + (r * o.w + col) * d.c;
        for (int64_t c = 0; c < d.c; ++c)
          dst[c] = sr < 0 || sc < 0 ? FillValue<T>(fill[c]) : x[(sr * d.w + sc) * d.c + c];
      }
    }
  });
}

}  // namespace

void RegisterImageCvOpsCpu(KernelRegistry* reg) {
  reg->Add("_cvimresize", DeviceType::kCPU, {"cpu", 0, ImresizeCpu, false});
  reg->Add("_cvcopyMakeBorder", DeviceType::kCPU, {"cpu", 0, BorderCpu, false});
}

}  // namespace cpu
}  // namespace weft
