// Row-major GEMMs on cuBLAS (column-major) for the CUDA kernels
// (FullyConnected, dot, batch_dot): C (m x n) = alpha op(A) . op(B) + beta C
// is computed as the column-major product C^T = op(B)^T . op(A)^T, so no
// operand is copied. Leading dimensions are those of packed matrices
// (A: ta ? m : k, B: tb ? k : n, C: n); a batch of `batch` such products
// takes consecutive packed matrices (strides m*k, k*n, m*n). Extents beyond
// cuBLAS's int range fail with kNotImplemented naming `op`.
#ifndef WEFT_KERNELS_CUDA_CUBLAS_GEMM_H_
#define WEFT_KERNELS_CUDA_CUBLAS_GEMM_H_

#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuda/cuda_handles.h"

namespace weft {
namespace cuda {

inline int BlasDim(int64_t v, const char* op) {
  if (v > static_cast<int64_t>(std::numeric_limits<int>::max()))
    Fail(StatusCode::kNotImplemented, "operator ", op, " (cuBLAS): matrix extent ", v,
         " exceeds cuBLAS's int range");
  return static_cast<int>(v);
}

inline cublasOperation_t BlasOp(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

// One row-major product, or `batch` of them over consecutive matrices.
template <typename T>
void RowGemm(cublasHandle_t h, const char* op, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
             T alpha, const T* a, const T* b, T beta, T* c, int64_t batch = 1) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "float or double");
  const int M = BlasDim(m, op), N = BlasDim(n, op), K = BlasDim(k, op);
  const int lda = BlasDim(ta ? m : k, op), ldb = BlasDim(tb ? k : n, op);
  if (batch == 1) {
    if constexpr (std::is_same<T, float>::value)
      WEFT_CUBLAS_CHECK(
          cublasSgemm(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b, ldb, a, lda, &beta, c, N));
    else
      WEFT_CUBLAS_CHECK(
          cublasDgemm(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b, ldb, a, lda, &beta, c, N));
    return;
  }
  const int count = BlasDim(batch, op);
  const long long sa = m * k, sb = k * n, sc = m * n;
  if constexpr (std::is_same<T, float>::value)
    WEFT_CUBLAS_CHECK(cublasSgemmStridedBatched(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b, ldb,
                                                sb, a, lda, sa, &beta, c, N, sc, count));
  else
    WEFT_CUBLAS_CHECK(cublasDgemmStridedBatched(h, BlasOp(tb), BlasOp(ta), N, M, K, &alpha, b, ldb,
                                                sb, a, lda, sa, &beta, c, N, sc, count));
}

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_CUBLAS_GEMM_H_
