// The tape nodes of calls autograd records as one node: _CachedOp (a
// recorded CachedOp call, as MXNet's tape shows a hybridized block) and its
// gradient node _backward_CachedOp.
//
// _CachedOp takes num_inputs inputs and gives num_outputs outputs; its
// gradient rule returns the outputs of one _backward_CachedOp node (inputs:
// the output gradients; outputs: one gradient per forward input) whose
// control_deps[0] is the forward node. Neither has a kernel: autograd's
// Backward runs the backward node through the function the forward call
// recorded (autograd::RecordFunction), and invoking either directly is an
// error naming the op.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> CountParams() {
  return {Ranged(RequiredParam("num_inputs", ParamType::kInt, "Number of inputs."), 0, 1 << 20),
          Ranged(RequiredParam("num_outputs", ParamType::kInt, "Number of outputs."), 1, 1 << 20)};
}

int NumInputs(const ParamValues& p) { return static_cast<int>(p.GetInt("num_inputs")); }
int NumOutputs(const ParamValues& p) { return static_cast<int>(p.GetInt("num_outputs")); }

std::vector<NodeEntry> FunctionGrad(const OpRegistry& reg, const NodePtr& n,
                                    const std::vector<NodeEntry>& og) {
  const std::string back_op = FunctionBackwardOpName(n->op()->name);
  NodePtr back = MakeOpNode(reg, back_op, GradName(n, "backward"), og,
                            {{"num_inputs", std::to_string(og.size())},
                             {"num_outputs", std::to_string(n->inputs.size())}});
  back->control_deps.push_back(n);
  std::vector<NodeEntry> grads;
  for (uint32_t i = 0; i < n->inputs.size(); ++i) grads.push_back(OutEntry(back, i));
  return grads;
}

}  // namespace

void RegisterAutogradFunction(OpRegistry* reg) {
  OpDef fwd;
  fwd.name = "_CachedOp";
  fwd.doc = "A CachedOp call recorded by autograd as one node (no kernel: not invoked directly).";
  fwd.params = CountParams();
  fwd.num_inputs_fn = NumInputs;
  fwd.num_outputs_fn = NumOutputs;
  fwd.gradient = FunctionGrad;
  fwd.tape_only = true;
  reg->Add(std::move(fwd));

  OpDef back;
  back.name = "_backward_CachedOp";
  back.doc = "The gradient of a recorded _CachedOp node (run by autograd's backward only).";
  back.params = CountParams();
  back.num_inputs_fn = NumInputs;
  back.num_outputs_fn = NumOutputs;
  back.tape_only = true;
  reg->Add(std::move(back));
}

}  // namespace op
}  // namespace weft
