// Row-major GEMMs on cuBLAS (column-major) for the CUDA kernels
// (FullyConnected, dot, batch_dot): C (m x n) = alpha op(A) . op(B) + beta C
// is computed as the column-major product C^T = op(B)^T . op(A)^T, so no
// operand is copied. Leading dimensions are those of packed matrices
// (A: ta ? m : k, B: tb ? k : n, C: n); a batch of `batch` such products
// takes consecutive packed matrices (strides m*k, k*n, m*n); RowGemmStrided
// takes operands with any leading dimensions and batch strides. Extents
// beyond cuBLAS's int range fail with kNotImplemented naming `op`.
// float16 and bfloat16 operands (__half, __nv_bfloat16) multiply on tensor
// cores accumulating in float (cublasGemm*Ex, CUBLAS_COMPUTE_32F, as
// MXNet's default), with float alpha and beta.
#ifndef WEFT_KERNELS_CUDA_CUBLAS_GEMM_H_
#define WEFT_KERNELS_CUDA_CUBLAS_GEMM_H_

#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/cuda_handles.h"
#include "cuda/reduced_float.cuh"

namespace weft {
namespace cuda {

inline int BlasDim(int64_t v, const char* op) {
  if (v > static_cast<int64_t>(std::numeric_limits<int>::max()))
    Fail(StatusCode::kNotImplemented, "operator ", op, " (cuBLAS): matrix extent ", v,
         " exceeds cuBLAS's int range");
  return static_cast<int>(v);
}

inline cublasOperation_t BlasOp(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

// A row-major operand inside a larger array: element (r, c) of batch entry
// e is at p + e * stride + r * ld + c.
template <typename P>
struct Strided {
  Strided(P* p_, int64_t ld_, int64_t stride_) : p(p_), ld(ld_), stride(stride_) {}
  // A writable operand read as an input.
  template <typename Q, typename = std::enable_if_t<std::is_convertible<Q*, P*>::value>>
  Strided(const Strided<Q>& o) : p(o.p), ld(o.ld), stride(o.stride) {}
  P* p;
  int64_t ld, stride;
};

// `batch` row-major products C = alpha op(A) . op(B) + beta C (C: m x n)
// on strided operands (the interleaved attention matmuls read their
// projections in place this way).
template <typename T>
void RowGemmStrided(cublasHandle_t h, const char* op, bool ta, bool tb, int64_t m, int64_t n,
                    int64_t k, Acc<T> alpha, Strided<const T> a, Strided<const T> b, Acc<T> beta,
                    Strided<T> c, int64_t batch) {
  const int M = BlasDim(m, op), N = BlasDim(n, op), K = BlasDim(k, op);
  const int lda = BlasDim(a.ld, op), ldb = BlasDim(b.ld, op), ldc = BlasDim(c.ld, op);
  const int count = BlasDim(batch, op);
  if constexpr (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value) {
    const cudaDataType type = std::is_same<T, __half>::value ? CUDA_R_16F : CUDA_R_16BF;
    WEFT_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b.p, type, ldb, b.stride, a.p, type, lda,
        a.stride, &beta, c.p, type, ldc, c.stride, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  } else if constexpr (std::is_same<T, float>::value) {
    if (batch == 1)
      WEFT_CUBLAS_CHECK(cublasSgemm(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b.p, ldb, a.p, lda,
                                    &beta, c.p, ldc));
    else
      WEFT_CUBLAS_CHECK(cublasSgemmStridedBatched(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b.p,
                                                  ldb, b.stride, a.p, lda, a.stride, &beta, c.p,
                                                  ldc, c.stride, count));
  } else {
    static_assert(std::is_same<T, double>::value, "float, double, __half or __nv_bfloat16");
    if (batch == 1)
      WEFT_CUBLAS_CHECK(cublasDgemm(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b.p, ldb, a.p, lda,
                                    &beta, c.p, ldc));
    else
      WEFT_CUBLAS_CHECK(cublasDgemmStridedBatched(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b.p,
                                                  ldb, b.stride, a.p, lda, a.stride, &beta, c.p,
                                                  ldc, c.stride, count));
  }
}

// One row-major product, or `batch` of them over consecutive packed
// matrices.
template <typename T>
void RowGemm(cublasHandle_t h, const char* op, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
             Acc<T> alpha, const T* a, const T* b, Acc<T> beta, T* c, int64_t batch = 1) {
  RowGemmStrided<T>(h, op, ta, tb, m, n, k, alpha, {a, ta ? m : k, m * k}, {b, tb ? k : n, k * n},
                    beta, {c, n, m * n}, batch);
}

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_CUBLAS_GEMM_H_
