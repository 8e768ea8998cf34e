// BlasGemm: the row-major GEMM functor of kernels/cpu/dot.h on OpenBLAS
// (cblas_sgemm / cblas_dgemm on the blobs' memory, no copies), used by the
// "blas" dot kernels and for float64 by the "dnnl" ones. Extents beyond
// BLAS's integer type are refused with kNotImplemented.
#ifndef WEFT_KERNELS_BLAS_BLAS_GEMM_H_
#define WEFT_KERNELS_BLAS_BLAS_GEMM_H_

#include <cblas.h>

#include <cstdint>
#include <limits>

#include "weft/status.h"

namespace weft {
namespace blas {

// Narrows a GEMM extent to BLAS's integer type; throws when it does not fit.
inline blasint Dim(int64_t v) {
  if (v > static_cast<int64_t>(std::numeric_limits<blasint>::max()))
    Fail(StatusCode::kNotImplemented, "dot: matrix extent ", v,
         " exceeds the BLAS integer range of this OpenBLAS build");
  return static_cast<blasint>(v);
}

inline CBLAS_TRANSPOSE Trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

struct BlasGemm {
  // C = op(A) * op(B) + beta * C; see kernels/cpu/dot.h for the contract.
  void operator()(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float beta, float* c, int64_t ldc) const {
    cblas_sgemm(CblasRowMajor, Trans(ta), Trans(tb), Dim(m), Dim(n), Dim(k), 1.0f, a, Dim(lda), b,
                Dim(ldb), beta, c, Dim(ldc));
  }
  void operator()(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double beta, double* c, int64_t ldc) const {
    cblas_dgemm(CblasRowMajor, Trans(ta), Trans(tb), Dim(m), Dim(n), Dim(k), 1.0, a, Dim(lda), b,
                Dim(ldb), beta, c, Dim(ldc));
  }
};

}  // namespace blas
}  // namespace weft

#endif  // WEFT_KERNELS_BLAS_BLAS_GEMM_H_
