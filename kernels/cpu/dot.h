// dot / batch_dot as row-major GEMM calls, shared by the "cpu" reference
// backend (kernels/cpu/dot.cc), the "blas" backend (kernels/blas/dot.cc)
// and the CUDA kernels (kernels/cuda/dot.cc, cuBLAS).
//
// A backend supplies a GEMM functor with overloads for float and double:
//   gemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc)
// computing C = op(A) * op(B) + beta * C on row-major matrices, where op(A)
// is m x k (A stored k x m when ta) and op(B) is k x n (B stored n x k when
// tb). beta is 0 (C is then overwritten, never read) or 1. Operands are
// used in place: MXNet's N-D views of dot are plain reinterpretations of
// contiguous memory, so no data is copied. Stateless; thread-safe.
//
// A backend whose GEMM calls may run concurrently may also supply
//   gemm.ForBatches<T>(batch, one)
// calling one(i) for each i in [0, batch) of element type T in any order, on
// any threads (the oneDNN backend splits float32 batch_dot products over its
// OpenMP team); without it the batch's products run one after another.
#ifndef WEFT_KERNELS_CPU_DOT_H_
#define WEFT_KERNELS_CPU_DOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "weft/dtype.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

// One (possibly batched) product: `batch` GEMMs of op(A) m x k by op(B) k x n.
struct GemmDims {
  bool ta = false, tb = false;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  int64_t lda() const { return ta ? m : k; }
  int64_t ldb() const { return tb ? k : n; }
};

// dot's and batch_dot's transpose_a / transpose_b, decoded once per node
// (ParamValues::Decoded).
struct DotTransposes {
  bool ta = false, tb = false;
  static DotTransposes Decode(const ParamValues& p) {
    return {p.GetBool("transpose_a"), p.GetBool("transpose_b")};
  }
};

// The GEMM view of dot on shapes validated by the op's inference.
inline GemmDims DotDims(const ParamValues& p, const Shape& lhs, const Shape& rhs) {
  GemmDims d;
  if (lhs.ndim() == 1 && rhs.ndim() == 1) {  // inner product: (1,K) . (K,1)
    d.k = lhs[0];
    return d;
  }
  const DotTransposes& t = p.Decoded<DotTransposes>();
  d.ta = t.ta;
  d.tb = t.tb;
  d.k = d.ta ? lhs[0] : lhs[lhs.ndim() - 1];
  d.m = lhs.Size() / d.k;
  d.n = rhs.Size() / d.k;
  return d;
}

// The GEMM view of batch_dot: (..., M, K) . (..., K, N) per batch element.
inline GemmDims BatchDotDims(const ParamValues& p, const Shape& lhs, const Shape& rhs) {
  GemmDims d;
  const int nd = lhs.ndim();
  const DotTransposes& t = p.Decoded<DotTransposes>();
  d.ta = t.ta;
  d.tb = t.tb;
  d.batch = lhs.ProdRange(0, nd - 2);
  d.m = d.ta ? lhs[nd - 1] : lhs[nd - 2];
  d.k = d.ta ? lhs[nd - 2] : lhs[nd - 1];
  d.n = d.tb ? rhs[nd - 2] : rhs[nd - 1];
  return d;
}

// one(i) for each batch element: through gemm.ForBatches when the backend
// has it (the first overload), else in order.
template <typename T, typename Gemm, typename F>
auto ForEachBatch(const Gemm& gemm, int64_t batch, const F& one, int)
    -> decltype(gemm.template ForBatches<T>(batch, one), void()) {
  gemm.template ForBatches<T>(batch, one);
}
template <typename T, typename Gemm, typename F>
void ForEachBatch(const Gemm&, int64_t batch, const F& one, long) {
  for (int64_t i = 0; i < batch; ++i) one(i);
}

// out = op(lhs) . op(rhs) per batch element, honouring req (kAdd: beta = 1).
template <typename T, typename Gemm>
void GemmForward(const Gemm& gemm, const GemmDims& d, const T* a, const T* b, OpReq req, T* c) {
  if (req == OpReq::kNull) return;
  const T beta = req == OpReq::kAdd ? T(1) : T(0);
  ForEachBatch<T>(
      gemm, d.batch,
      [&](int64_t i) {
        gemm(d.ta, d.tb, d.m, d.n, d.k, a + i * d.m * d.k, d.lda(), b + i * d.k * d.n, d.ldb(),
             beta, c + i * d.m * d.n, d.n);
      },
      0);
}

// Gradients of out = op(A) . op(B) given g = d(out):
//   d op(A) = g . op(B)^T   (stored transposed when ta: op(B) . g^T)
//   d op(B) = op(A)^T . g   (stored transposed when tb: g^T . op(A))
template <typename T, typename Gemm>
void GemmBackward(const Gemm& gemm, const GemmDims& d, const T* g, const T* a, const T* b,
                  OpReq req_a, OpReq req_b, T* da, T* db) {
  const T beta_a = req_a == OpReq::kAdd ? T(1) : T(0);
  const T beta_b = req_b == OpReq::kAdd ? T(1) : T(0);
  const int64_t m = d.m, n = d.n, k = d.k;
  ForEachBatch<T>(
      gemm, d.batch,
      [&](int64_t i) {
        const T* gi = g + i * m * n;
        const T* ai = a + i * m * k;
        const T* bi = b + i * k * n;
        if (req_a != OpReq::kNull) {
          T* dai = da + i * m * k;
          if (!d.ta)
            gemm(false, !d.tb, m, k, n, gi, n, bi, d.ldb(), beta_a, dai, k);
          else
            gemm(d.tb, true, k, m, n, bi, d.ldb(), gi, n, beta_a, dai, m);
        }
        if (req_b != OpReq::kNull) {
          T* dbi = db + i * k * n;
          if (!d.tb)
            gemm(!d.ta, false, k, n, m, ai, d.lda(), gi, n, beta_b, dbi, n);
          else
            gemm(true, d.ta, n, k, m, gi, n, ai, d.lda(), beta_b, dbi, k);
        }
      },
      0);
}

// Registers dot, batch_dot and their `_backward_*` kernels of `backend`
// (priority `priority`) on CPU, all computed with `gemm`.
template <typename Gemm>
void RegisterGemmKernels(KernelRegistry* reg, const std::string& backend, int priority, Gemm gemm) {
  auto forward = [gemm](const char* op, bool batched) {
    return
        [gemm, op, batched](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
          const GemmDims d = batched ? BatchDotDims(attrs.params, in[0].shape, in[1].shape)
                                     : DotDims(attrs.params, in[0].shape, in[1].shape);
          DispatchFloat(in[0].dtype, op, [&](auto t) {
            using T = decltype(t);
            GemmForward(gemm, d, in[0].data<T>(), in[1].data<T>(), req[0], out[0].data<T>());
          });
        };
  };
  auto backward = [gemm](const char* op, bool batched) {
    return
        [gemm, op, batched](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
          const GemmDims d = batched ? BatchDotDims(attrs.params, in[1].shape, in[2].shape)
                                     : DotDims(attrs.params, in[1].shape, in[2].shape);
          DispatchFloat(in[0].dtype, op, [&](auto t) {
            using T = decltype(t);
            GemmBackward(gemm, d, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), req[0], req[1],
                         out[0].data<T>(), out[1].data<T>());
          });
        };
  };
  reg->Add("dot", DeviceType::kCPU, {backend, priority, forward("dot", false), true});
  reg->Add("batch_dot", DeviceType::kCPU, {backend, priority, forward("batch_dot", true), true});
  reg->Add("_backward_dot", DeviceType::kCPU,
           {backend, priority, backward("_backward_dot", false), true});
  reg->Add("_backward_batch_dot", DeviceType::kCPU,
           {backend, priority, backward("_backward_batch_dot", true), true});
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_DOT_H_
