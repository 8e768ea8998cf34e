// Shared pieces of the image operators' CPU kernels (image_ops.cc,
// image_color_ops.cc, image_cv_ops.cc): MXNet's arithmetic type and its
// saturate_cast, and the (H, W, C) views of a blob.
#ifndef WEFT_KERNELS_CPU_IMAGE_OPS_H_
#define WEFT_KERNELS_CPU_IMAGE_OPS_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "weft/blob.h"
#include "weft/float16.h"

namespace weft {
namespace cpu {

// MXNet computes `DType op float` in float, and in double for double data.
template <typename T>
using ImageArith = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
ImageArith<T> ToArith(T v) {
  return static_cast<ImageArith<T>>(ToDouble(v));
}

// MXNet's saturate_cast of the image operators: uint8 clamps to [0, 255]
// and truncates; floats convert. Other integers are clamped to their range
// too (a conversion out of range is undefined in C++; MXNet does not clamp),
// and NaN gives 0.
template <typename T, typename A>
T SaturateCast(A v) {
  if constexpr (std::is_integral_v<T>) {
    const double dv = static_cast<double>(v);
    if (dv != dv) return T(0);  // NaN
    if (dv <= static_cast<double>(std::numeric_limits<T>::min()))
      return std::numeric_limits<T>::min();
    if (dv >= static_cast<double>(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return FromDouble<T>(static_cast<double>(v));
  }
}

// (rows, columns, channels) of an image blob (H, W, C), or of image `n` of a
// batch (N, H, W, C): the last three axes.
struct ImageDims {
  int64_t h = 0, w = 0, c = 0, n = 1;
  static ImageDims Of(const TBlob& b) {
    const Shape& s = b.shape;
    const int r = s.ndim();
    return {s[r - 3], s[r - 2], s[r - 1], r == 4 ? s[0] : 1};
  }
  int64_t pixels() const { return h * w; }
  int64_t size() const { return h * w * c; }
};

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_IMAGE_OPS_H_
