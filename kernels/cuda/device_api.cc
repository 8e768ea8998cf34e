// The CUDA DeviceAPI: device memory and host<->device copies via the CUDA
// runtime. Without a driver or device, DeviceCount() is 0 and every
// allocation on gpu(i) fails with Error(kDevice) instead of crashing.
#include "cuda/cuda_util.h"
#include "weft/runtime.h"

namespace weft {
namespace cuda {

class CudaAPI final : public DeviceAPI {
 public:
  int DeviceCount() override {
    int n = 0;
    // Without a driver this returns an error and may leave n unset.
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error
      return 0;
    }
    return n > 0 ? n : 0;
  }
  void* Alloc(Context ctx, size_t bytes) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes == 0 ? 64 : bytes);
    if (e == cudaErrorMemoryAllocation)
      Fail(StatusCode::kOutOfMemory, "out of memory on ", ctx.ToString(), " allocating ", bytes, " bytes");
    WEFT_CUDA_CHECK(e);
    return p;
  }
  void Free(Context ctx, void* ptr) override {
    // Errors are ignored: freeing happens in destructors and at exit.
    if (cudaSetDevice(ctx.dev_id) == cudaSuccess) cudaFree(ptr);
  }
  void CopyToHost(Context ctx, void* dst, const void* src, size_t bytes) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  }
  void CopyFromHost(Context ctx, void* dst, const void* src, size_t bytes) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  void CopyDevice(Context dst_ctx, void* dst, Context src_ctx, const void* src, size_t bytes) override {
    if (dst_ctx.dev_id == src_ctx.dev_id) {
      WEFT_CUDA_CHECK(cudaSetDevice(dst_ctx.dev_id));
      WEFT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    } else {
      WEFT_CUDA_CHECK(cudaMemcpyPeer(dst, dst_ctx.dev_id, src, src_ctx.dev_id, bytes));
    }
  }
  void Synchronize(Context ctx) override {
    WEFT_CUDA_CHECK(cudaSetDevice(ctx.dev_id));
    WEFT_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

void RegisterCudaDeviceAPI(Runtime* rt) {
  static CudaAPI* api = new CudaAPI();  // never destroyed: usable during exit
  rt->SetDeviceAPI(DeviceType::kGPU, api);
}

}  // namespace cuda
}  // namespace weft
