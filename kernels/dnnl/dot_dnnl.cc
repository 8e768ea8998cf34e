// The "dnnl" kernels of dot, batch_dot and their gradients: the GEMMs of
// kernels/cpu/dot.h on oneDNN's sgemm (float32; float64 keeps OpenBLAS's
// cblas_dgemm, kernels/blas/blas_gemm.h). Besides the AVX-512 kernels,
// this keeps a transformer's attention products on the OpenMP threads
// every other kernel uses: the OpenBLAS build ("blas", below this in
// priority) runs its own thread pool, whose threads and OpenMP's spun
// against each other on 2 cores (BERT batch 1 at 2 threads took longer
// than at 1).
#include <dnnl.h>

#include "blas/blas_gemm.h"
#include "cpu/dot.h"
#include "dnnl/dnnl_util.h"

namespace weft {
namespace onednn {

namespace {

// Above the "blas" backend (10).
constexpr int kDnnlDotPriority = 20;

struct DnnlGemm {
  // C = op(A) * op(B) + beta * C; see kernels/cpu/dot.h for the contract.
  void operator()(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float beta, float* c, int64_t ldc) const {
    const dnnl_status_t st =
        dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
    if (st != dnnl_success)
      Fail(StatusCode::kInternal, "dot: dnnl_sgemm(", m, "x", n, "x", k, ") failed with status ",
           static_cast<int>(st));
  }
  void operator()(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double beta, double* c, int64_t ldc) const {
    blas::BlasGemm{}(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
  }
};

}  // namespace

void RegisterDotDnnl(KernelRegistry* reg) {
  InitDnnl();
  cpu::RegisterGemmKernels(reg, "dnnl", kDnnlDotPriority, DnnlGemm{});
}

}  // namespace onednn
}  // namespace weft
