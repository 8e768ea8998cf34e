// CUDA kernels of FullyConnected and _backward_FullyConnected (semantics
// as kernels/cpu/nn_dense.cc): the products are cuBLAS gemms on the
// row-major blobs (computed as the transposed column-major products, no
// copies; float16/bfloat16 on tensor cores accumulating in float); the bias
// broadcast and the bias gradient are small kernels (in float for the
// reduced floats).
#include "cuda/cublas_gemm.h"
#include "weft/dtype.h"
#include "nn_geometry.h"

namespace weft {
namespace cuda {

namespace {

// y (m x n) = bias broadcast over rows (or += under add).
template <typename T>
__global__ void BiasRows(const T* bias, T* y, int64_t m, int64_t n, bool add) {
  using A = Acc<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const A b = static_cast<A>(bias[i % n]);
    y[i] = StoreAs<T>(add ? static_cast<A>(y[i]) + b : b);
  }
}

// db[j] (req-aware) = sum over the m rows of dy[:, j]; one thread per column.
template <typename T>
__global__ void SumRows(const T* dy, T* db, int64_t m, int64_t n, bool add) {
  using A = Acc<T>;
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    A s = A(0);
    for (int64_t i = 0; i < m; ++i) s += static_cast<A>(dy[i * n + j]);
    db[j] = StoreAs<T>(add ? static_cast<A>(db[j]) + s : s);
  }
}

void FCForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, "FullyConnected");
  if (req[0] == OpReq::kNull) return;
  int64_t m, k;
  const FCParams& fc = attrs.params.Decoded<FCParams>();
  fc.Dims(in[0].shape, &m, &k);
  const int64_t n = fc.num_hidden;
  const bool has_bias = fc.bias;
  const bool add = req[0] == OpReq::kAdd;
  DispatchDeviceFloat(in[0].dtype, "FullyConnected", [&](auto t) {
    using T = decltype(t);
    using A = Acc<T>;
    cublasHandle_t h = CublasHandle(ctx);
    T* y = out[0].data<T>();
    if (m * n == 0) return;
    if (has_bias) {
      BiasRows<T><<<GridFor(m * n), kBlock, 0, StreamOf(ctx)>>>(in[2].data<T>(), y, m, n, add);
      RowGemm(h, "FullyConnected", false, true, m, n, k, A(1), in[0].data<T>(), in[1].data<T>(),
              A(1), y);
    } else {
      RowGemm(h, "FullyConnected", false, true, m, n, k, A(1), in[0].data<T>(), in[1].data<T>(),
              add ? A(1) : A(0), y);
    }
  });
  Finish(ctx, "FullyConnected");
}

// in: ograd (M x N), data (M x K), weight (N x K); out: dX, dW[, db].
void FCBackward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, "_backward_FullyConnected");
  int64_t m, k;
  const FCParams& fc = attrs.params.Decoded<FCParams>();
  fc.Dims(in[1].shape, &m, &k);
  const int64_t n = fc.num_hidden;
  DispatchDeviceFloat(in[0].dtype, "_backward_FullyConnected", [&](auto t) {
    using T = decltype(t);
    using A = Acc<T>;
    cublasHandle_t h = CublasHandle(ctx);
    const T* dy = in[0].data<T>();
    const T* x = in[1].data<T>();
    const T* w = in[2].data<T>();
    if (req[0] != OpReq::kNull && m * k > 0)
      RowGemm(h, "FullyConnected", false, false, m, k, n, A(1), dy, w,
              req[0] == OpReq::kAdd ? A(1) : A(0), out[0].data<T>());
    if (req[1] != OpReq::kNull && n * k > 0)
      RowGemm(h, "FullyConnected", true, false, n, k, m, A(1), dy, x,
              req[1] == OpReq::kAdd ? A(1) : A(0), out[1].data<T>());
    if (out.size() > 2 && req[2] != OpReq::kNull && n > 0)
      SumRows<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(dy, out[2].data<T>(), m, n,
                                                           req[2] == OpReq::kAdd);
  });
  Finish(ctx, "_backward_FullyConnected");
}

}  // namespace

void RegisterNNDenseCuda(KernelRegistry* reg) {
  reg->Add("FullyConnected", DeviceType::kGPU, WithReducedFloats({"cublas", 0, FCForward, true}));
  reg->Add("_backward_FullyConnected", DeviceType::kGPU,
           WithReducedFloats({"cublas", 0, FCBackward, true}));
}

}  // namespace cuda
}  // namespace weft
