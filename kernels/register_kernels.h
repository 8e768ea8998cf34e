// Kernel registration: the kernels layer's one entry point. Whoever
// assembles a runtime (init/runtime_global.cc for Runtime::Global(); tests
// building their own Runtime) calls it; core never does, so core builds and
// links without any kernel.
#ifndef WEFT_KERNELS_REGISTER_KERNELS_H_
#define WEFT_KERNELS_REGISTER_KERNELS_H_

#include "weft/op.h"
#include "weft/runtime.h"

namespace weft {

// Fills `reg` with every compiled kernel (CPU reference kernels, then the
// backends that override some of them: OpenBLAS, oneDNN, CUDA).
void RegisterAllKernels(KernelRegistry* reg);
// Installs the CUDA DeviceAPI into `rt` when built with CUDA (no-op otherwise).
void RegisterDeviceAPIs(Runtime* rt);
// Both, plus the kernels that run other ops' kernels (_fused_elemwise and
// the control-flow ops, which need rt's op registry), for a runtime nothing
// has used yet.
void InstallBuiltinKernels(Runtime* rt);

}  // namespace weft

#endif  // WEFT_KERNELS_REGISTER_KERNELS_H_
