// Per-thread, per-device cuBLAS/cuDNN handles, stream-ordered scratch
// memory and RAII descriptors (see cuda_handles.h).
#include "cuda/cuda_handles.h"

#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <set>

namespace weft {
namespace cuda {

namespace {

// Selects ctx's device; on failure throws Error(kDevice) naming `who` (the
// message is only built then: this runs on every kernel call).
void SelectDevice(const OpContext& ctx, const char* who, const char* op) {
  if (ctx.ctx.dev_type != DeviceType::kGPU)
    Fail(StatusCode::kDevice, who, op, ": called on ", ctx.ctx.ToString(), ", not a GPU");
  const cudaError_t e = cudaSetDevice(ctx.ctx.dev_id);
  if (e != cudaSuccess) {
    cudaGetLastError();
    Fail(StatusCode::kDevice, who, op, ": cannot use ", ctx.ctx.ToString(),
         ": cudaSetDevice failed: ", cudaGetErrorString(e));
  }
}

}  // namespace

void UseDevice(const OpContext& ctx, const char* op) { SelectDevice(ctx, "operator (CUDA) ", op); }

void Finish(const OpContext& ctx, const char* op) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    Fail(StatusCode::kDevice, "operator ", op, " on ", ctx.ctx.ToString(),
         ": CUDA error: ", cudaGetErrorString(e));
}

namespace {

struct ThreadHandles {
  std::map<int, cublasHandle_t> cublas;
  std::map<int, cudnnHandle_t> cudnn;
};

// Never destroyed: see the header (destroying at thread exit could run
// after the CUDA runtime has been torn down).
ThreadHandles& Handles() {
  thread_local ThreadHandles* h = new ThreadHandles();
  return *h;
}

}  // namespace

cublasHandle_t CublasHandle(const OpContext& ctx) {
  SelectDevice(ctx, "cuBLAS handle", "");
  auto& m = Handles().cublas;
  auto it = m.find(ctx.ctx.dev_id);
  if (it == m.end()) {
    cublasHandle_t h = nullptr;
    const cublasStatus_t st = cublasCreate(&h);
    if (st != CUBLAS_STATUS_SUCCESS)
      Fail(StatusCode::kDevice, "cublasCreate on ", ctx.ctx.ToString(),
           " failed: ", cublasGetStatusString(st));
    it = m.emplace(ctx.ctx.dev_id, h).first;
  }
  WEFT_CUBLAS_CHECK(cublasSetStream(it->second, StreamOf(ctx)));
  return it->second;
}

cudnnHandle_t CudnnHandle(const OpContext& ctx) {
  SelectDevice(ctx, "cuDNN handle", "");
  auto& m = Handles().cudnn;
  auto it = m.find(ctx.ctx.dev_id);
  if (it == m.end()) {
    cudnnHandle_t h = nullptr;
    const cudnnStatus_t st = cudnnCreate(&h);
    if (st != CUDNN_STATUS_SUCCESS)
      Fail(StatusCode::kDevice, "cudnnCreate on ", ctx.ctx.ToString(),
           " failed: ", cudnnGetErrorString(st));
    it = m.emplace(ctx.ctx.dev_id, h).first;
  }
  WEFT_CUDNN_CHECK(cudnnSetStream(it->second, StreamOf(ctx)));
  return it->second;
}

namespace {

// Keeps freed scratch in `dev`'s default memory pool across
// synchronisations, once per device: with the default release threshold
// (0) every stream synchronisation hands it back to the driver and the
// next cudaMallocAsync maps it again, which costs more than most kernels.
void KeepPooledScratch(int dev) {
  static std::mutex mu;
  static std::set<int>* done = new std::set<int>();  // never destroyed
  std::lock_guard<std::mutex> lock(mu);
  if (!done->insert(dev).second) return;
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess) {
    cudaGetLastError();
    return;  // the allocation below reports the device's problem
  }
  uint64_t keep = UINT64_MAX;
  if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
    cudaGetLastError();
}

}  // namespace

DeviceBuffer::DeviceBuffer(const OpContext& ctx, size_t bytes) : stream_(StreamOf(ctx)) {
  if (bytes == 0) return;
  KeepPooledScratch(ctx.ctx.dev_id);
  const cudaError_t e = cudaMallocAsync(&ptr_, bytes, stream_);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    Fail(StatusCode::kOutOfMemory, "out of memory on ", ctx.ctx.ToString(), " allocating ", bytes,
         " bytes of kernel scratch space");
  }
  WEFT_CUDA_CHECK(e);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFreeAsync(ptr_, stream_);  // errors ignored in a destructor
}

cudnnDataType_t CudnnType(DType t, const char* op) {
  switch (t) {
    case DType::kFloat32:
      return CUDNN_DATA_FLOAT;
    case DType::kFloat64:
      return CUDNN_DATA_DOUBLE;
    case DType::kFloat16:
      return CUDNN_DATA_HALF;
    case DType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      Fail(StatusCode::kDType, "operator ", op, " (CUDA): dtype ", DTypeName(t),
           " is not supported (expected float32, float64, float16 or bfloat16)");
  }
}

int CudnnDim(int64_t v, const char* op) {
  if (v < 0 || v > std::numeric_limits<int>::max())
    Fail(StatusCode::kNotImplemented, "operator ", op, " (cuDNN): extent ", v,
         " exceeds cuDNN's int range");
  return static_cast<int>(v);
}

TensorDesc::TensorDesc() { WEFT_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d)); }
TensorDesc::~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
void TensorDesc::Set(DType t, int64_t n, int64_t c, int64_t h, int64_t w, const char* op) {
  if (n * c * h * w > std::numeric_limits<int>::max())
    Fail(StatusCode::kNotImplemented, "operator ", op, " (cuDNN): tensor of ", n * c * h * w,
         " elements exceeds cuDNN's int range");
  WEFT_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CudnnType(t, op),
                                              CudnnDim(n, op), CudnnDim(c, op), CudnnDim(h, op),
                                              CudnnDim(w, op)));
}

FilterDesc::FilterDesc() { WEFT_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d)); }
FilterDesc::~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
ConvDesc::ConvDesc() { WEFT_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d)); }
ConvDesc::~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
PoolDesc::PoolDesc() { WEFT_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&d)); }
PoolDesc::~PoolDesc() { cudnnDestroyPoolingDescriptor(d); }
ActDesc::ActDesc() { WEFT_CUDNN_CHECK(cudnnCreateActivationDescriptor(&d)); }
ActDesc::~ActDesc() { cudnnDestroyActivationDescriptor(d); }

}  // namespace cuda
}  // namespace weft
