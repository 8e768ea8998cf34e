// cuBLAS / cuDNN plumbing shared by the CUDA kernels: per-device library
// handles bound to the call's stream and RAII cuDNN descriptors (device
// selection and scratch memory are in cuda_util.h).
//
// Handles are created lazily, one per (calling thread, device), and are
// never destroyed (the engine's worker threads live as long as the process,
// like the CUDA DeviceAPI object). Each getter first selects the device and
// then binds the handle to `ctx.stream` (null = the default stream), so a
// handle is never shared between threads and needs no lock. Every failure
// (no driver, no device, a library error) throws weft::Error(kDevice) naming
// the failing call; nothing aborts.
#ifndef WEFT_KERNELS_CUDA_CUDA_HANDLES_H_
#define WEFT_KERNELS_CUDA_CUDA_HANDLES_H_

#include <cublas_v2.h>
#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "cuda/cuda_util.h"
#include "weft/op.h"

// Like WEFT_CUDA_CHECK for cuBLAS and cuDNN status codes.
#define WEFT_CUBLAS_CHECK(call)                                                                 \
  do {                                                                                          \
    cublasStatus_t weft_cublas_st_ = (call);                                                    \
    if (weft_cublas_st_ != CUBLAS_STATUS_SUCCESS)                                               \
      ::weft::Fail(::weft::StatusCode::kDevice, "cuBLAS call ", #call, " failed at ", __FILE__, \
                   ":", __LINE__, ": ", cublasGetStatusString(weft_cublas_st_));                \
  } while (0)

#define WEFT_CUDNN_CHECK(call)                                                                 \
  do {                                                                                         \
    cudnnStatus_t weft_cudnn_st_ = (call);                                                     \
    if (weft_cudnn_st_ != CUDNN_STATUS_SUCCESS)                                                \
      ::weft::Fail(::weft::StatusCode::kDevice, "cuDNN call ", #call, " failed at ", __FILE__, \
                   ":", __LINE__, ": ", cudnnGetErrorString(weft_cudnn_st_));                  \
  } while (0)

namespace weft {
namespace cuda {

// This thread's handle for ctx's device (selected first), bound to ctx's
// stream.
cublasHandle_t CublasHandle(const OpContext& ctx);
cudnnHandle_t CudnnHandle(const OpContext& ctx);

// CUDNN_DATA_FLOAT / _DOUBLE / _HALF / _BFLOAT16; other dtypes fail with
// kDType naming `op` (a kernel not marked as computing the reduced floats
// never sees them: they reach it in float32 between Casts).
cudnnDataType_t CudnnType(DType t, const char* op);
// A checked int for descriptor extents (cuDNN takes int).
int CudnnDim(int64_t v, const char* op);

// alpha/beta scalars in the type cuDNN expects for `t` (double for float64
// data, float otherwise: float16 and bfloat16 data scale in float).
class Scalar {
 public:
  Scalar(DType t, double v) : f_(static_cast<float>(v)), d_(v), dbl_(t == DType::kFloat64) {}
  const void* ptr() const { return dbl_ ? static_cast<const void*>(&d_) : &f_; }

 private:
  float f_;
  double d_;
  bool dbl_;
};
// beta for a request: 1 for kAdd, else 0.
inline double BetaOf(OpReq r) { return r == OpReq::kAdd ? 1.0 : 0.0; }

// RAII cuDNN descriptors.
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc();
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  // A packed NCHW tensor.
  void Set(DType t, int64_t n, int64_t c, int64_t h, int64_t w, const char* op);
};
struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc();
  ~FilterDesc();
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc();
  ~ConvDesc();
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};
struct PoolDesc {
  cudnnPoolingDescriptor_t d = nullptr;
  PoolDesc();
  ~PoolDesc();
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
};
struct ActDesc {
  cudnnActivationDescriptor_t d = nullptr;
  ActDesc();
  ~ActDesc();
  ActDesc(const ActDesc&) = delete;
  ActDesc& operator=(const ActDesc&) = delete;
};

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_CUDA_HANDLES_H_
