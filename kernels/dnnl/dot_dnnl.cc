// The "dnnl" kernels of dot, batch_dot, _npi_einsum (cpu/einsum.h) and
// their gradients: the GEMMs of
// kernels/cpu/dot.h on oneDNN's sgemm (float32; float64 keeps OpenBLAS's
// cblas_dgemm, kernels/blas/blas_gemm.h). Besides the AVX-512 kernels,
// this keeps a transformer's attention products on the OpenMP threads
// every other kernel uses: the OpenBLAS build ("blas", below this in
// priority) runs its own thread pool, whose threads and OpenMP's spun
// against each other on 2 cores (BERT batch 1 at 2 threads took longer
// than at 1).
#include <dnnl.h>
#include <omp.h>

#include <exception>
#include <type_traits>

#include "blas/blas_gemm.h"
#include "cpu/dot.h"
#include "cpu/einsum.h"
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
  // A float32 batch's products split over the OpenMP team, each on one thread
  // (oneDNN's sgemm runs sequentially inside a parallel region), where the
  // batch divides evenly over the team or is several times its size: a
  // transformer's per-head products (BERT: 12 of 128x64x128) are too small
  // for the team to share one, and each call into a threaded sgemm is a
  // parallel region of its own (BERT batch 1 at 2 threads: 0.19 ms per
  // batch_dot against 0.15 at 1 thread).
  template <typename T, typename F>
  void ForBatches(int64_t batch, const F& one) const {
    const int team = omp_get_max_threads();
    if (!std::is_same_v<T, float> || team < 2 || batch < team ||
        (batch % team != 0 && batch < 4 * team)) {
      for (int64_t i = 0; i < batch; ++i) one(i);
      return;
    }
    std::exception_ptr error;  // an exception must not leave the region
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < batch; ++i) {
      try {
        one(i);
      } catch (...) {
#pragma omp critical(weft_dnnl_batches)
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace

void RegisterDotDnnl(KernelRegistry* reg) {
  InitDnnl();
  cpu::RegisterGemmKernels(reg, "dnnl", kDnnlDotPriority, DnnlGemm{});
  cpu::RegisterEinsumKernels(reg, "dnnl", kDnnlDotPriority, DnnlGemm{});
}

}  // namespace onednn
}  // namespace weft
