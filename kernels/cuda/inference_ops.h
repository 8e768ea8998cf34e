// CUDA launchers of the inference passes' ops (kernels/cuda/inference_ops.cu):
// the epilogue of the cuDNN _fused_Convolution (nn_conv.cc).
#ifndef WEFT_KERNELS_CUDA_INFERENCE_OPS_H_
#define WEFT_KERNELS_CUDA_INFERENCE_OPS_H_

#include <cstdint>

#include "cpu/fused_conv_act.h"
#include "weft/op.h"

namespace weft {
namespace cuda {

// y[i] = act(conv[i] + bias[c] + sum[i]) over NC(spatial) outputs of
// `channels` channels with `inner` elements each (bias and sum may be null;
// c = i / inner % channels), stored under `req` (kAdd adds into y). conv
// may be y itself.
void LaunchConvEpilogue(const OpContext& ctx, DType t, const cpu::FusedConvAct& act,
                        const void* conv, const void* bias, const void* sum, void* y, int64_t n,
                        int64_t channels, int64_t inner, OpReq req);

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_INFERENCE_OPS_H_
