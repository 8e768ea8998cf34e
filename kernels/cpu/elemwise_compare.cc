// CPU kernels of the same-shape and scalar comparison/logical ops
// (core/src/op/elemwise_compare.cc): 0/1 in the input's dtype, float32,
// float64, int32, int64, int8 and uint8, honouring kNull/kWrite/kInplace/kAdd. The broadcast forms
// are registered with the other broadcast kernels (kernels/cpu/broadcast.cc).
#include "cpu/elemwise_kernels.h"
#include "cpu/elemwise_math.h"

namespace weft {
namespace cpu {

void RegisterElemwiseCompareCpu(KernelRegistry* reg) {
  ForEachCompare([reg](const CompareNames& n, auto f) {
    reg->Add(n.elemwise, DeviceType::kCPU, BinaryKernel<true>(n.elemwise, f));
    reg->Add(n.scalar, DeviceType::kCPU, ScalarKernel<true>(n.scalar, f));
  });
}

}  // namespace cpu
}  // namespace weft
