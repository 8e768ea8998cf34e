// The CPU kernels of Custom and _backward_Custom: core's calls into the
// host's operator (weft/custom_op.h), on the engine worker running the node.
#include "weft/custom_op.h"

namespace weft {
namespace cpu {

void RegisterCustomOpCpu(KernelRegistry* reg) {
  reg->Add("Custom", DeviceType::kCPU, {"cpu", 0, CustomForwardKernel, false});
  reg->Add("_backward_Custom", DeviceType::kCPU, {"cpu", 0, CustomBackwardKernel, false});
}

}  // namespace cpu
}  // namespace weft
