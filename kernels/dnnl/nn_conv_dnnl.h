// The oneDNN convolution kernels' coverage, for tests (no oneDNN header).
#ifndef WEFT_KERNELS_DNNL_NN_CONV_DNNL_H_
#define WEFT_KERNELS_DNNL_NN_CONV_DNNL_H_

#include "weft/op.h"

namespace weft {
namespace onednn {

// Whether the "dnnl" kernels of Convolution / _backward_Convolution run
// oneDNN (rather than the "cpu" fallback) for a convolution with `params`
// from `data` (N, C, [H,] W) to `out` of dtype `dtype`, with or without bias.
bool ConvolutionCovered(const ParamValues& params, const Shape& data, const Shape& out, DType dtype,
                        bool bias);

}  // namespace onednn
}  // namespace weft

#endif  // WEFT_KERNELS_DNNL_NN_CONV_DNNL_H_
