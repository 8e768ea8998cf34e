// `_rnn_param_concat` runs Concat's CPU kernel (the ops differ only in shape
// inference; core/src/op/nn_rnn_param_concat.cc). Registered after Concat.
#include "weft/op.h"
#include "weft/status.h"

namespace weft {
namespace cpu {

void RegisterNNRnnParamConcatCpu(KernelRegistry* reg) {
  const Kernel* concat = reg->FindBackend("Concat", DeviceType::kCPU, "cpu");
  if (!concat)
    throw Error(StatusCode::kInternal,
                "_rnn_param_concat: Concat's cpu kernel is not registered yet");
  reg->Add("_rnn_param_concat", DeviceType::kCPU, *concat);
}

}  // namespace cpu
}  // namespace weft
