// CPU kernels of FullyConnected and _backward_FullyConnected. Every product
// is one cblas_sgemm / cblas_dgemm call on the blobs' memory (row-major, no
// copies); the bias add and bias gradient are vectorisable loops.
#include <cblas.h>

#include <limits>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"
#include "nn_geometry.h"

namespace weft {
namespace cpu {

namespace {

blasint Dim(int64_t v) {
  if (v > static_cast<int64_t>(std::numeric_limits<blasint>::max()))
    Fail(StatusCode::kNotImplemented, "FullyConnected: matrix extent ", v,
         " exceeds the BLAS integer range of this OpenBLAS build");
  return static_cast<blasint>(v);
}

CBLAS_TRANSPOSE Trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

// C (m x n, row-major) = op(A) . op(B) + beta * C.
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
          float beta, float* c) {
  cblas_sgemm(CblasRowMajor, Trans(ta), Trans(tb), Dim(m), Dim(n), Dim(k), 1.0f, a, Dim(ta ? m : k),
              b, Dim(tb ? k : n), beta, c, Dim(n));
}
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b,
          double beta, double* c) {
  cblas_dgemm(CblasRowMajor, Trans(ta), Trans(tb), Dim(m), Dim(n), Dim(k), 1.0, a, Dim(ta ? m : k),
              b, Dim(tb ? k : n), beta, c, Dim(n));
}

void FCForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  int64_t m, k;
  const FCParams& fc = attrs.params.Decoded<FCParams>();
  fc.Dims(in[0].shape, &m, &k);
  const int64_t n = fc.num_hidden;
  const bool has_bias = fc.bias;
  DispatchFloat(in[0].dtype, "FullyConnected", [&](auto t) {
    using T = decltype(t);
    T* y = out[0].data<T>();
    const bool add = req[0] == OpReq::kAdd;
    if (has_bias) {
      const T* b = in[2].data<T>();
      ParallelFor(m, [&](int64_t i) {
        T* yi = y + i * n;
        if (add) {
          for (int64_t j = 0; j < n; ++j) yi[j] += b[j];
        } else {
          for (int64_t j = 0; j < n; ++j) yi[j] = b[j];
        }
      });
      Gemm(false, true, m, n, k, in[0].data<T>(), in[1].data<T>(), T(1), y);
    } else {
      Gemm(false, true, m, n, k, in[0].data<T>(), in[1].data<T>(), add ? T(1) : T(0), y);
    }
  });
}

// in: ograd (M x N), data (M x K), weight (N x K); out: dX, dW[, db].
void FCBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  int64_t m, k;
  const FCParams& fc = attrs.params.Decoded<FCParams>();
  fc.Dims(in[1].shape, &m, &k);
  const int64_t n = fc.num_hidden;
  DispatchFloat(in[0].dtype, "_backward_FullyConnected", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    const T* x = in[1].data<T>();
    const T* w = in[2].data<T>();
    if (req[0] != OpReq::kNull)
      Gemm(false, false, m, k, n, dy, w, req[0] == OpReq::kAdd ? T(1) : T(0), out[0].data<T>());
    if (req[1] != OpReq::kNull)
      Gemm(true, false, n, k, m, dy, x, req[1] == OpReq::kAdd ? T(1) : T(0), out[1].data<T>());
    if (out.size() > 2 && req[2] != OpReq::kNull) {
      T* db = out[2].data<T>();
      std::vector<T> acc(static_cast<size_t>(n), T(0));
      T* a = acc.data();
      for (int64_t i = 0; i < m; ++i) {
        const T* g = dy + i * n;
        for (int64_t j = 0; j < n; ++j) a[j] += g[j];
      }
      for (int64_t j = 0; j < n; ++j) Store(req[2], &db[j], a[j]);
    }
  });
}

}  // namespace

void RegisterNNDenseCpu(KernelRegistry* reg) {
  reg->Add("FullyConnected", DeviceType::kCPU, {"cpu", 0, FCForward, true});
  reg->Add("_backward_FullyConnected", DeviceType::kCPU, {"cpu", 0, FCBackward, true});
}

}  // namespace cpu
}  // namespace weft
