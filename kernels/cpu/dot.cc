// The "cpu" reference kernels of dot, batch_dot, _npi_einsum and their
// gradients (cpu/einsum.h): a plain-loop row-major GEMM (rows of C split over OpenMP threads, the
// inner loops contiguous so the compiler can vectorise them).
#include "cpu/dot.h"

#include "cpu/cpu_util.h"
#include "cpu/einsum.h"

namespace weft {
namespace cpu {

namespace {

// Products with fewer multiply-adds than this run on one thread.
constexpr int64_t kGemmParallelWork = int64_t{1} << 18;

struct ReferenceGemm {
  // C = op(A) * op(B) + beta * C; see kernels/cpu/dot.h for the contract.
  template <typename T>
  void operator()(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc) const {
#pragma omp parallel for schedule(static) if (m * n * k >= kGemmParallelWork && m > 1)
    for (int64_t i = 0; i < m; ++i) {
      T* ci = c + i * ldc;
      if (beta == T(0)) {
        for (int64_t j = 0; j < n; ++j) ci[j] = T(0);
      }
      if (!tb) {
        // C[i, :] += op(A)[i, p] * B[p, :]
        for (int64_t p = 0; p < k; ++p) {
          const T aip = ta ? a[p * lda + i] : a[i * lda + p];
          const T* bp = b + p * ldb;
          for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
        }
      } else {
        // C[i, j] += op(A)[i, :] . B[j, :]
        for (int64_t j = 0; j < n; ++j) {
          const T* bj = b + j * ldb;
          T s = T(0);
          if (!ta) {
            const T* ai = a + i * lda;
            for (int64_t p = 0; p < k; ++p) s += ai[p] * bj[p];
          } else {
            for (int64_t p = 0; p < k; ++p) s += a[p * lda + i] * bj[p];
          }
          ci[j] += s;
        }
      }
    }
  }
};

}  // namespace

void RegisterDotCpu(KernelRegistry* reg) {
  RegisterGemmKernels(reg, "cpu", 0, ReferenceGemm{});
  RegisterEinsumKernels(reg, "cpu", 0, ReferenceGemm{});
}

}  // namespace cpu
}  // namespace weft
