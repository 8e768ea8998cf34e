// 3-D Convolution and Deconvolution on (N, C, D, H, W) data, the CPU
// reference kernels that kernels/cpu/nn_conv.cc's and nn_deconv.cc's kernels
// hand rank-5 data to (semantics in core/src/op/nn_conv.cc and nn_deconv.cc,
// applied per spatial axis).
#ifndef WEFT_KERNELS_CPU_NN_CONV3D_H_
#define WEFT_KERNELS_CPU_NN_CONV3D_H_

#include <vector>

#include "weft/op.h"

namespace weft {
namespace cpu {

// in = (data, weight[, bias]), out = (output).
void Conv3dForwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out);
// in = (ograd, data, weight), out = (data_grad, weight_grad[, bias_grad]).
void Conv3dBackwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out);

// Deconvolution: in = (data, weight[, bias]), out = (output).
void Deconv3dForwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out);
// in = (ograd, data, weight), out = (data_grad, weight_grad[, bias_grad]).
void Deconv3dBackwardCpu(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_CONV3D_H_
