// Runtime::Global(): the process runtime with every built-in kernel. This
// unit assembles the layers (core's Runtime, the kernels' registration) and
// is linked into libweft.so and weft_static; core alone does not define it
// and never calls it: core receives a runtime (or its registries) from its
// callers, and the global engine gets the global runtime's device hooks here.
#include "register_kernels.h"
#include "weft/engine.h"
#include "weft/runtime.h"

namespace weft {

Runtime& Runtime::Global() {
  // Deliberately leaked: NDArrays held by static objects or by bindings'
  // finalizers may outlive main(), and must still find their pools.
  static Runtime* rt = [] {
    auto* r = new Runtime();
    InstallBuiltinKernels(r);
    Engine::SetGlobalDeviceAPIs([r](DeviceType t) { return r->device_api(t); });
    return r;
  }();
  return *rt;
}

}  // namespace weft
