// The one visible list of every operator definition, in a fixed order.
#include "weft/op.h"

namespace weft {
namespace op {
void RegisterQuadratic(OpRegistry* reg);
// [elemwise op declarations]
// [tensor op declarations]
}  // namespace op

void RegisterAllOps(OpRegistry* reg) {
  op::RegisterQuadratic(reg);
  // [elemwise op registrations]
  // [tensor op registrations]
}

}  // namespace weft
