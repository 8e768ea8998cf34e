// 3-D Pooling on (N, C, D, H, W) data, the CPU reference kernels that
// kernels/cpu/nn_pool.cc's Pooling kernels hand rank-5 data to (semantics
// in core/src/op/nn_pool.cc: the 2-D rules applied per axis).
#ifndef WEFT_KERNELS_CPU_NN_POOL3D_H_
#define WEFT_KERNELS_CPU_NN_POOL3D_H_

#include "weft/op.h"

namespace weft {
namespace cpu {

// y = Pooling(x) with `attrs`' parameters, stored with `req`.
void Pool3dForwardCpu(const NodeAttrs& attrs, const TBlob& x, OpReq req, const TBlob& y);
// dx = gradient of Pooling from dy and x, stored with `req`.
void Pool3dBackwardCpu(const NodeAttrs& attrs, const TBlob& dy, const TBlob& x, OpReq req,
                       const TBlob& dx);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_POOL3D_H_
