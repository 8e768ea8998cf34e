// Variadic sum and copies with MXNet names: ElementWiseSum (aliases add_n,
// _ElementWiseSum), identity (alias _copy) and _CrossDeviceCopy.
//
// ElementWiseSum takes `num_args` (>= 1) inputs "arg0".."argN-1" of equal
// shape and dtype (bidirectional inference) and may write in place of arg0;
// its gradient hands the output gradient unchanged to every input (the same
// entry, as MXNet's CloneGradient). identity copies its input, may run in
// place, and its gradient is the output gradient itself. _CrossDeviceCopy
// is the copy PlaceDevice inserts between devices: identity in shape and
// type, never in place (its output lives on another device); its gradient is
// a _CrossDeviceCopy back, a backward node of the copy's source (control
// dep), so that placement puts it on the source's device.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<NodeEntry> CloneGrad(const OpRegistry&, const NodePtr& n,
                                 const std::vector<NodeEntry>& og) {
  return std::vector<NodeEntry>(n->inputs.size(), og[0]);
}

}  // namespace

void RegisterElemwiseSum(OpRegistry* reg) {
  OpDef sum;
  sum.name = "ElementWiseSum";
  sum.aliases = {"add_n", "_ElementWiseSum"};
  sum.doc = "Elementwise sum of num_args arrays of equal shape.";
  sum.params = {
      Ranged(RequiredParam("num_args", ParamType::kInt, "Number of inputs to add."), 1, 1 << 20)};
  sum.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  sum.key_var_num_args = "num_args";
  sum.input_names = [](const ParamValues& p) {
    std::vector<std::string> names;
    for (int64_t i = 0; i < p.GetInt("num_args"); ++i) names.push_back(StrCat("arg", i));
    return names;
  };
  sum.infer_shape = ElemwiseShape;
  sum.infer_type = ElemwiseType;
  sum.inplace = InplaceFirst;
  sum.gradient = CloneGrad;
  reg->Add(std::move(sum));

  OpDef id;
  id.name = "identity";
  id.aliases = {"_copy"};
  id.doc = "Copies the input.";
  id.infer_shape = ElemwiseShape;
  id.infer_type = ElemwiseType;
  id.inplace = InplaceFirst;
  id.gradient = CloneGrad;
  reg->Add(std::move(id));

  OpDef cross;
  cross.name = "_CrossDeviceCopy";
  cross.doc = "Copies the input to the device this node is placed on (inserted by PlaceDevice).";
  cross.infer_shape = ElemwiseShape;
  cross.infer_type = ElemwiseType;
  cross.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    NodePtr back = MakeOpNode(r, "_CrossDeviceCopy", GradName(n, "backward"), {og[0]});
    back->control_deps.push_back(n->inputs[0].node);
    return std::vector<NodeEntry>{OutEntry(back)};
  };
  reg->Add(std::move(cross));
}

}  // namespace op
}  // namespace weft
