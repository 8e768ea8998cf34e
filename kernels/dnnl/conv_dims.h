// The geometry of a oneDNN convolution (user dims and per-axis strides,
// dilations and paddings) from weft's Convolution parameters, shared by the
// float (nn_conv_dnnl.cc) and int8 (quantized_conv_dnnl.cc) kernels.
#ifndef WEFT_KERNELS_DNNL_CONV_DIMS_H_
#define WEFT_KERNELS_DNNL_CONV_DIMS_H_

#include <cstdint>
#include <vector>

#include <dnnl.hpp>

#include "weft/op.h"

namespace weft {
namespace onednn {

// What the primitives of one geometry are built from: plain user dims and
// the per-axis convolution parameters (2 axes for 1-D / 2-D data, which
// runs as 2-D with H = 1, and 3 for 3-D).
struct ConvDims {
  dnnl::memory::dims src, wei, dst, bias, strides, dilates, pad_l, pad_r;
};

// From data (N, C, [D,] [H,] W) to out.
ConvDims DimsOf(const ParamValues& p, const Shape& data, const Shape& out);

// A cache key of the geometry, the bias and the data type.
std::vector<int64_t> Key(const ConvDims& d, bool bias, dnnl::memory::data_type dt);

}  // namespace onednn
}  // namespace weft

#endif  // WEFT_KERNELS_DNNL_CONV_DIMS_H_
