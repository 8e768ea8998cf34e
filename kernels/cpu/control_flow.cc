// The CPU kernels of _foreach, _while_loop and _cond: core's runners of
// their nested graphs (weft/control_flow.h), with this registry's kernels.
#include "weft/control_flow.h"

namespace weft {
namespace cpu {

void RegisterControlFlowCpu(const OpRegistry& ops, KernelRegistry* reg) {
  // `reg` owns these kernels, so it outlives them.
  for (const char* op : {"_foreach", "_while_loop", "_cond"})
    reg->Add(op, DeviceType::kCPU, {"cpu", 0, ControlFlowKernel(op, ops, *reg), false});
}

}  // namespace cpu
}  // namespace weft
