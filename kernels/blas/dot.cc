// The "blas" kernels of dot, batch_dot, _npi_einsum and their gradients:
// each GEMM of kernels/cpu/dot.h is one cblas_sgemm / cblas_dgemm call on
// the blobs' memory (row-major, no copies; kernels/blas/blas_gemm.h), and
// einsum's products (kernels/cpu/einsum.h) too. Registered above the "cpu"
// reference.
#include "blas/blas_gemm.h"
#include "cpu/dot.h"
#include "cpu/einsum.h"

namespace weft {
namespace blas {

namespace {

// Priority over the "cpu" reference backend (0).
constexpr int kBlasPriority = 10;

}  // namespace

void RegisterDotBlas(KernelRegistry* reg) {
  cpu::RegisterGemmKernels(reg, "blas", kBlasPriority, BlasGemm{});
  cpu::RegisterEinsumKernels(reg, "blas", kBlasPriority, BlasGemm{});
}

}  // namespace blas
}  // namespace weft
