// assign(lhs, rhs): stores rhs into the variable lhs and returns it.
//
// The only op that overwrites a variable's value (lhs is a mutated input, so
// an executor lists it as an auxiliary state). The memory planner stores the
// output in lhs's own memory, and when rhs is a temporary read only by the
// assign it computes rhs directly into lhs and skips the assign (the seed's
// third case). Not differentiable: assignments are state updates such as
// optimizer steps.
#include "op_common.h"
#include "weft/op.h"

namespace weft {
namespace op {

void RegisterAssign(OpRegistry* reg) {
  OpDef a;
  a.name = "assign";
  a.doc =
      "Writes rhs into the variable lhs; the output is lhs's new value (stored in lhs's memory).";
  a.num_inputs = 2;
  a.input_names = FixedNames({"lhs", "rhs"});
  a.infer_shape = ElemwiseShape;
  a.infer_type = ElemwiseType;
  a.mutate_inputs = [](const ParamValues&) { return std::vector<int>{0}; };
  reg->Add(std::move(a));
}

}  // namespace op
}  // namespace weft
