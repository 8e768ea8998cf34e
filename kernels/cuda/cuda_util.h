// CUDA error checking for kernels/cuda: failures become weft::Error(kDevice)
// with the call, file and line, never an abort.
#ifndef WEFT_KERNELS_CUDA_CUDA_UTIL_H_
#define WEFT_KERNELS_CUDA_CUDA_UTIL_H_

#include <cuda_runtime.h>

#include "weft/status.h"

#define WEFT_CUDA_CHECK(call)                                                               \
  do {                                                                                      \
    cudaError_t weft_cuda_err_ = (call);                                                    \
    if (weft_cuda_err_ != cudaSuccess)                                                      \
      ::weft::Fail(::weft::StatusCode::kDevice, "CUDA call ", #call, " failed at ", __FILE__, \
                   ":", __LINE__, ": ", cudaGetErrorString(weft_cuda_err_));               \
  } while (0)

namespace weft {
namespace cuda {

// Threads per block and a grid size covering n elements (grid-stride loops).
constexpr int kBlock = 256;
inline int GridFor(int64_t n) {
  int64_t g = (n + kBlock - 1) / kBlock;
  return static_cast<int>(g < 65535 ? (g > 0 ? g : 1) : 65535);
}

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_CUDA_UTIL_H_
