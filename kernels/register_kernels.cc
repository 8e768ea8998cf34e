// The one visible list of every kernel registration, in a fixed order:
// CPU reference kernels first, then the backends that override some of them.
#include "weft/op.h"
#include "weft/runtime.h"

namespace weft {
namespace cpu {
void RegisterQuadraticCpu(KernelRegistry* reg);
// [elemwise kernel declarations]
void RegisterElemwiseUnaryCpu(KernelRegistry* reg);
void RegisterElemwiseBinaryCpu(KernelRegistry* reg);
void RegisterBroadcastCpu(KernelRegistry* reg);
void RegisterElemwiseScalarCpu(KernelRegistry* reg);
// [tensor kernel declarations]
void RegisterReduceCpu(KernelRegistry* reg);
void RegisterDotCpu(KernelRegistry* reg);
void RegisterInitCpu(KernelRegistry* reg);
void RegisterRandomCpu(KernelRegistry* reg);
void RegisterElemwiseSumCpu(KernelRegistry* reg);
}  // namespace cpu
namespace blas {
void RegisterDotBlas(KernelRegistry* reg);
}  // namespace blas
#if WEFT_USE_CUDA
namespace cuda {
void RegisterQuadraticCuda(KernelRegistry* reg);
void RegisterCudaDeviceAPI(Runtime* rt);
}  // namespace cuda
#endif

void RegisterAllKernels(KernelRegistry* reg) {
  cpu::RegisterQuadraticCpu(reg);
  // [elemwise kernel registrations]
  cpu::RegisterElemwiseUnaryCpu(reg);
  cpu::RegisterElemwiseBinaryCpu(reg);
  cpu::RegisterBroadcastCpu(reg);
  cpu::RegisterElemwiseScalarCpu(reg);
  // [tensor kernel registrations]
  cpu::RegisterReduceCpu(reg);
  cpu::RegisterDotCpu(reg);
  cpu::RegisterInitCpu(reg);
  cpu::RegisterRandomCpu(reg);
  cpu::RegisterElemwiseSumCpu(reg);
#if WEFT_USE_OPENBLAS
  blas::RegisterDotBlas(reg);
#endif
#if WEFT_USE_CUDA
  cuda::RegisterQuadraticCuda(reg);
#endif
}

void RegisterDeviceAPIs(Runtime* rt) {
#if WEFT_USE_CUDA
  cuda::RegisterCudaDeviceAPI(rt);
#else
  (void)rt;
#endif
}

}  // namespace weft
