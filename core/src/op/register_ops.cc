// The one visible list of every operator definition, in a fixed order.
#include "weft/op.h"

namespace weft {
namespace op {
void RegisterQuadratic(OpRegistry* reg);
// [elemwise op declarations]
void RegisterElemwiseUnary(OpRegistry* reg);
void RegisterElemwiseBinary(OpRegistry* reg);
void RegisterBroadcast(OpRegistry* reg);
void RegisterElemwiseScalar(OpRegistry* reg);
// [tensor op declarations]
void RegisterReduce(OpRegistry* reg);
void RegisterDot(OpRegistry* reg);
void RegisterInit(OpRegistry* reg);
void RegisterRandom(OpRegistry* reg);
void RegisterElemwiseSum(OpRegistry* reg);
}  // namespace op

void RegisterAllOps(OpRegistry* reg) {
  op::RegisterQuadratic(reg);
  // [elemwise op registrations]
  op::RegisterElemwiseUnary(reg);
  op::RegisterElemwiseBinary(reg);
  op::RegisterBroadcast(reg);
  op::RegisterElemwiseScalar(reg);
  // [tensor op registrations]
  op::RegisterReduce(reg);
  op::RegisterDot(reg);
  op::RegisterInit(reg);
  op::RegisterRandom(reg);
  op::RegisterElemwiseSum(reg);
}

}  // namespace weft
