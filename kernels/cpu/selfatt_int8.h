// The quantized _sg_mkldnn_selfatt_qk / _valatt kernels (selfatt_int8.cc)
// around their int32 sums, which each backend of the contrib attention ops
// supplies: the reference loops here, oneDNN's integer gemms in
// kernels/dnnl/selfatt_int8_dnnl.cc. Both give the exact int32 sums, so
// every backend's int8 output is the same.
#ifndef WEFT_KERNELS_CPU_SELFATT_INT8_H_
#define WEFT_KERNELS_CPU_SELFATT_INT8_H_

#include <cstdint>
#include <string>

#include "interleaved_attention.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

struct SelfAttSums {
  // acc[bh, i, j] = q(i, bh) . k(j, bh).
  void (*qk)(const attention::Dims& n, attention::Side<const int8_t> q,
             attention::Side<const int8_t> k, int32_t* acc);
  // acc(i, bh) = sum_j att[bh, i, j] v(j, bh), in the (Lq, B, heads * D)
  // output layout.
  void (*val)(const attention::Dims& n, const uint8_t* att, attention::Side<const int8_t> v,
              int32_t* acc);
};

// The reference loops.
SelfAttSums ReferenceSelfAttSums();

// The kernel of _sg_mkldnn_<op> (op: "selfatt_qk" or "selfatt_valatt") on
// `dev`: `fp`, the contrib op's kernel of one backend, for the float32 form;
// the int8 form (quantized=true, CPU only) with `sums`.
Kernel FusedSelfAttKernel(const std::string& op, DeviceType dev, Kernel fp, SelfAttSums sums);

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SELFATT_INT8_H_
