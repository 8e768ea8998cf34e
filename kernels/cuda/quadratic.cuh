// Launchers for the quadratic kernels (y = a*x^2 + b*x + c and its gradient).
#ifndef WEFT_KERNELS_CUDA_QUADRATIC_CUH_
#define WEFT_KERNELS_CUDA_QUADRATIC_CUH_
#include "weft/op.h"
namespace weft {
namespace cuda {
void RegisterQuadraticCuda(KernelRegistry* reg);
}  // namespace cuda
}  // namespace weft
#endif  // WEFT_KERNELS_CUDA_QUADRATIC_CUH_
