// The one visible list of every kernel registration, in a fixed order:
// CPU reference kernels first, then the backends that override some of them.
#include "weft/op.h"
#include "weft/runtime.h"

namespace weft {
namespace cpu {
void RegisterQuadraticCpu(KernelRegistry* reg);
// [elemwise kernel declarations]
// [tensor kernel declarations]
}  // namespace cpu
#if WEFT_USE_CUDA
namespace cuda {
void RegisterQuadraticCuda(KernelRegistry* reg);
void RegisterCudaDeviceAPI(Runtime* rt);
}  // namespace cuda
#endif

void RegisterAllKernels(KernelRegistry* reg) {
  cpu::RegisterQuadraticCpu(reg);
  // [elemwise kernel registrations]
  // [tensor kernel registrations]
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
