// The "blas" kernels of dot, batch_dot and their gradients: each GEMM of
// kernels/cpu/dot.h is one cblas_sgemm / cblas_dgemm call on the blobs'
// memory (row-major, no copies). Registered above the "cpu" reference.
#include "cpu/dot.h"

#include <cblas.h>

#include <limits>

namespace weft {
namespace blas {

namespace {

// Priority over the "cpu" reference backend (0).
constexpr int kBlasPriority = 10;

// Narrows a GEMM extent to BLAS's integer type; throws when it does not fit.
blasint Dim(int64_t v) {
  if (v > static_cast<int64_t>(std::numeric_limits<blasint>::max()))
    Fail(StatusCode::kNotImplemented, "dot: matrix extent ", v,
         " exceeds the BLAS integer range of this OpenBLAS build");
  return static_cast<blasint>(v);
}

CBLAS_TRANSPOSE Trans(bool t) { return t ? CblasTrans : CblasNoTrans; }

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

}  // namespace

void RegisterDotBlas(KernelRegistry* reg) {
  cpu::RegisterGemmKernels(reg, "blas", kBlasPriority, BlasGemm{});
}

}  // namespace blas
}  // namespace weft
