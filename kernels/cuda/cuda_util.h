// CUDA error checking for kernels/cuda: failures become weft::Error(kDevice)
// with the call, file and line, never an abort; device selection, stream
// synchronisation and stream-ordered scratch memory for the kernels.
#ifndef WEFT_KERNELS_CUDA_CUDA_UTIL_H_
#define WEFT_KERNELS_CUDA_CUDA_UTIL_H_

#include <cuda_runtime.h>

#include "weft/op.h"
#include "weft/status.h"

#define WEFT_CUDA_CHECK(call)                                                                      \
  do {                                                                                             \
    cudaError_t weft_cuda_err_ = (call);                                                           \
    if (weft_cuda_err_ != cudaSuccess)                                                             \
      ::weft::Fail(::weft::StatusCode::kDevice, "CUDA call ", #call, " failed at ", __FILE__, ":", \
                   __LINE__, ": ", cudaGetErrorString(weft_cuda_err_));                            \
  } while (0)

namespace weft {
namespace cuda {

// Threads per block and a grid size covering n elements (grid-stride loops).
constexpr int kBlock = 256;
inline int GridFor(int64_t n) {
  int64_t g = (n + kBlock - 1) / kBlock;
  return static_cast<int>(g < 65535 ? (g > 0 ? g : 1) : 65535);
}

// The helpers below are defined in cuda_handles.cc; they live here so that
// kernels needing neither cuBLAS nor cuDNN skip those large headers.

// Selects ctx.ctx's device for this thread; throws Error(kDevice) naming
// `op` and the device when it does not exist (e.g. no driver).
void UseDevice(const OpContext& ctx, const char* op);
inline cudaStream_t StreamOf(const OpContext& ctx) { return static_cast<cudaStream_t>(ctx.stream); }
// Reports a launch error (or an asynchronous one already known) as
// Error(kDevice) naming `op`. It does not wait: the work stays queued on
// ctx's stream and the engine orders what reads it (device_order.cc);
// CUDA_LAUNCH_BLOCKING=1 makes every launch wait, to find a faulting one.
void Finish(const OpContext& ctx, const char* op);

// Device memory allocated and freed in order on a stream (cudaMallocAsync),
// so concurrent kernels on other streams never share it. Zero bytes gives
// a null pointer.
class DeviceBuffer {
 public:
  DeviceBuffer(const OpContext& ctx, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_CUDA_UTIL_H_
