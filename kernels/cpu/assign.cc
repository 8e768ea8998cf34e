// CPU kernel of assign(lhs, rhs): copies rhs into lhs and into the output
// (which the executor's memory plan places in lhs's memory, making the
// second copy a no-op).
#include <cstring>

#include "weft/op.h"

namespace weft {
namespace cpu {

namespace {

void CopyBlob(const TBlob& src, const TBlob& dst) {
  if (src.dptr != dst.dptr) std::memmove(dst.dptr, src.dptr, src.Bytes());
}

void Assign(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  CopyBlob(in[1], in[0]);
  if (req[0] != OpReq::kNull) CopyBlob(in[0], out[0]);
}

}  // namespace

void RegisterAssignCpu(KernelRegistry* reg) {
  reg->Add("assign", DeviceType::kCPU, {"cpu", 0, Assign, false});
}

}  // namespace cpu
}  // namespace weft
