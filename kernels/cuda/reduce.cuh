// The sum of an array to the shape of a broadcast operand, shared by the
// CUDA reductions (kernels/cuda/reduce.cu: _broadcast_backward_reduce) and
// the broadcasting gradients (kernels/cuda/elemwise.cu).
#ifndef WEFT_KERNELS_CUDA_REDUCE_CUH_
#define WEFT_KERNELS_CUDA_REDUCE_CUH_

#include "weft/op.h"

namespace weft {
namespace cuda {

// dst (shape `small`) = the sum of src (shape `big`, which `small`
// broadcasts to under numpy's rules: aligned on the right, extent-1 and
// missing axes repeated) over the repeated axes, with request `req` (kNull
// skips, kAdd accumulates), accumulated in double; float32/float64, else
// Error(kDType) naming `op`. Does not wait for the kernel.
void LaunchSumTo(const OpContext& ctx, DType t, const void* src, const Shape& big, void* dst,
                 const Shape& small, OpReq req, const char* op);

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_REDUCE_CUH_
