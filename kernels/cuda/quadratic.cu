// CUDA kernels of quadratic and _backward_quadratic (float32, float64).
#include "cuda/cuda_util.h"
#include "cuda/quadratic.cuh"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

template <typename T>
__global__ void QuadraticFwd(const T* x, T* y, int64_t n, T a, T b, T c, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    T v = a * x[i] * x[i] + b * x[i] + c;
    y[i] = add ? y[i] + v : v;
  }
}

template <typename T>
__global__ void QuadraticBwd(const T* dy, const T* x, T* dx, int64_t n, T a, T b, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    T v = dy[i] * (2 * a * x[i] + b);
    dx[i] = add ? dx[i] + v : v;
  }
}

static void Forward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  WEFT_CUDA_CHECK(cudaSetDevice(ctx.ctx.dev_id));
  const QuadraticParams& q = attrs.params.Decoded<QuadraticParams>();
  const double a = q.a, b = q.b, c = q.c;
  const int64_t n = out[0].Size();
  cudaStream_t s = static_cast<cudaStream_t>(ctx.stream);
  DispatchFloat(in[0].dtype, "quadratic", [&](auto t) {
    using T = decltype(t);
    QuadraticFwd<T><<<GridFor(n), kBlock, 0, s>>>(in[0].data<T>(), out[0].data<T>(), n, T(a), T(b),
                                                  T(c), req[0] == OpReq::kAdd);
  });
  Finish(ctx, "quadratic");
}

static void Backward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  WEFT_CUDA_CHECK(cudaSetDevice(ctx.ctx.dev_id));
  const QuadraticParams& q = attrs.params.Decoded<QuadraticParams>();
  const double a = q.a, b = q.b;
  const int64_t n = out[0].Size();
  cudaStream_t s = static_cast<cudaStream_t>(ctx.stream);
  DispatchFloat(in[0].dtype, "_backward_quadratic", [&](auto t) {
    using T = decltype(t);
    QuadraticBwd<T><<<GridFor(n), kBlock, 0, s>>>(
        in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), n, T(a), T(b), req[0] == OpReq::kAdd);
  });
  Finish(ctx, "_backward_quadratic");
}

void RegisterQuadraticCuda(KernelRegistry* reg) {
  reg->Add("quadratic", DeviceType::kGPU, {"cuda", 0, Forward, true});
  reg->Add("_backward_quadratic", DeviceType::kGPU, {"cuda", 0, Backward, true});
}

}  // namespace cuda
}  // namespace weft
