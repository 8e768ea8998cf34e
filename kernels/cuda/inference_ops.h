// CUDA launchers of the per-channel kernels around cuDNN's convolutions
// (kernels/cuda/inference_ops.cu, used by nn_conv.cc): the epilogue of
// _fused_Convolution (also the float16/bfloat16 bias add) and the
// float16/bfloat16 bias gradient.
#ifndef WEFT_KERNELS_CUDA_INFERENCE_OPS_H_
#define WEFT_KERNELS_CUDA_INFERENCE_OPS_H_

#include <cstdint>

#include "cpu/fused_conv_act.h"
#include "weft/op.h"

namespace weft {
namespace cuda {

// y[i] = act(conv[i] + bias[c] + sum[i]) over NC(spatial) outputs of
// `channels` channels with `inner` elements each (conv, bias and sum may be
// null: 0; c = i / inner % channels), stored under `req` (kAdd adds into
// y). conv may be y itself.
void LaunchConvEpilogue(const OpContext& ctx, DType t, const cpu::FusedConvAct& act,
                        const void* conv, const void* bias, const void* sum, void* y, int64_t n,
                        int64_t channels, int64_t inner, OpReq req);

// db[c] (under `req`) = the sum of dy over the `outer` x `inner` elements of
// channel c of an (outer, channels, inner) array, accumulated in float
// (double for float64), one block per channel.
void LaunchChannelSum(const OpContext& ctx, DType t, const void* dy, int64_t outer,
                      int64_t channels, int64_t inner, OpReq req, void* db);

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_INFERENCE_OPS_H_
