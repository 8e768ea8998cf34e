// Custom (MXNet's operator whose behaviour a registered host type supplies)
// and _backward_Custom; the registry and kernels are in custom_op_run.cc.
//
// Custom(args..., aux...; op_type, any other attributes): inputs are the
// prop's arguments then its auxiliary states (which it may write), outputs
// its outputs. The gradient node _backward_Custom takes the out_grads the
// prop declared it reads, every input, the out_data it declared, then the
// aux states (MXNet passes in_data only when declared; Weft always does, for
// the backward's own shape inference), and returns the arguments'
// gradients; the aux states get zero gradients.
#include <algorithm>

#include "op/custom_op_internal.h"
#include "op/op_common.h"

namespace weft {
namespace op {

std::string CustomWhere(const NodeAttrs& attrs) {
  const ParamValues& p = attrs.params;
  std::string type = p.Has("op_type") ? p.GetString("op_type") : std::string("?");
  return StrCat("Custom (op_type '", type, "', node '", attrs.name, "')");
}

size_t CustomParams::NumBackwardInputs() const {
  size_t n = args.size() + auxs.size();
  for (size_t i = 0; i < outs.size(); ++i) n += bwd_out_grad[i] + bwd_out_data[i];
  return n;
}

CustomParams CustomParams::Decode(const ParamValues& p) {
  CustomParams c;
  c.op_type = p.GetString("op_type");
  if (c.op_type.empty())
    Fail(StatusCode::kInvalidArgument, "operator Custom: the attribute op_type is empty");
  auto holder = std::make_shared<CustomPropHolder>();
  holder->type = FindCustomOpType(c.op_type);
  const std::string where = StrCat("Custom op_type '", c.op_type, "'");
  MutexLock lock(&holder->mu);
  try {
    holder->prop = holder->type->creator(c.op_type, p.Get("attrs").rest);
    if (!holder->prop) Fail(StatusCode::kInternal, "the creator returned no prop");
    c.args = holder->prop->ListArguments();
    c.outs = holder->prop->ListOutputs();
    c.auxs = holder->prop->ListAuxiliaryStates();
    std::vector<int> og, id, od;
    int next = 0;
    for (size_t i = 0; i < c.outs.size(); ++i) og.push_back(next++);
    for (size_t i = 0; i < c.args.size(); ++i) id.push_back(next++);
    for (size_t i = 0; i < c.outs.size(); ++i) od.push_back(next++);
    c.bwd_out_grad.assign(c.outs.size(), false);
    c.bwd_out_data.assign(c.outs.size(), false);
    for (int d : holder->prop->DeclareBackwardDependency(og, id, od)) {
      if (d < 0 || d >= next)
        Fail(StatusCode::kInvalidArgument, "declare_backward_dependency returned id ", d,
             ", expected ids in [0, ", next, ")");
      const size_t no = c.outs.size(), na = c.args.size(), u = static_cast<size_t>(d);
      if (u < no) c.bwd_out_grad[u] = true;
      if (u >= no + na) c.bwd_out_data[u - no - na] = true;
    }
  } catch (const Error& e) {
    Fail(e.code(), where, ": ", e.what());
  }
  if (c.outs.empty()) Fail(StatusCode::kInvalidArgument, where, ": list_outputs is empty");
  c.holder = std::move(holder);
  return c;
}

namespace {

const CustomParams& Params(const NodeAttrs& a) { return a.params.Decoded<CustomParams>(); }

// Calls `fn` on the node's prop under its lock; errors name the node.
template <typename Fn>
void CallProp(const NodeAttrs& a, const char* what, Fn fn) {
  const CustomParams& c = Params(a);
  MutexLock lock(&c.holder->mu);
  try {
    fn(c.holder->prop.get());
  } catch (const Error& e) {
    Fail(e.code(), CustomWhere(a), ": ", what, " failed: ", e.what());
  }
}

template <typename T>
void CheckCount(const NodeAttrs& a, const char* what, const std::vector<T>& v, size_t n) {
  if (v.size() != n)
    Fail(StatusCode::kInvalidArgument, CustomWhere(a), ": ", what, " returned ", v.size(),
         " entries, expected ", n);
}

bool CustomShape(const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
  const CustomParams& c = Params(a);
  const size_t na = c.args.size();
  for (size_t i = 0; i < na; ++i)
    if (!(*in)[i].is_known()) return false;
  std::vector<Shape> args(in->begin(), in->begin() + na), aux(in->begin() + na, in->end());
  std::vector<Shape> outs = *out;
  CallProp(a, "infer_shape", [&](CustomOpProp* p) { p->InferShape(&args, &outs, &aux); });
  CheckCount(a, "infer_shape (arguments)", args, na);
  CheckCount(a, "infer_shape (outputs)", outs, out->size());
  CheckCount(a, "infer_shape (auxiliary states)", aux, c.auxs.size());
  for (size_t i = 0; i < na; ++i) AssignShape(a, in, i, args[i], "argument '" + c.args[i] + "'");
  for (size_t i = 0; i < aux.size(); ++i)
    AssignShape(a, in, na + i, aux[i], "auxiliary state '" + c.auxs[i] + "'");
  for (size_t i = 0; i < outs.size(); ++i)
    AssignShape(a, out, i, outs[i], "output '" + c.outs[i] + "'");
  return AllKnown(*in) && AllKnown(*out);
}

bool CustomType(const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
  const CustomParams& c = Params(a);
  const size_t na = c.args.size();
  for (size_t i = 0; i < na; ++i)
    if ((*in)[i] == DType::kUnknown) return false;
  std::vector<DType> args(in->begin(), in->begin() + na), aux(in->begin() + na, in->end());
  std::vector<DType> outs = *out;
  CallProp(a, "infer_type", [&](CustomOpProp* p) { p->InferType(&args, &outs, &aux); });
  CheckCount(a, "infer_type (arguments)", args, na);
  CheckCount(a, "infer_type (outputs)", outs, out->size());
  CheckCount(a, "infer_type (auxiliary states)", aux, c.auxs.size());
  for (size_t i = 0; i < na; ++i) AssignType(a, in, i, args[i], "argument '" + c.args[i] + "'");
  for (size_t i = 0; i < aux.size(); ++i)
    AssignType(a, in, na + i, aux[i], "auxiliary state '" + c.auxs[i] + "'");
  for (size_t i = 0; i < outs.size(); ++i)
    AssignType(a, out, i, outs[i], "output '" + c.outs[i] + "'");
  return AllKnown(*in) && AllKnown(*out);
}

// The backward node's inputs: declared out_grads, every argument, declared
// out_data, the aux states; outputs: the arguments' gradients.
std::vector<NodeEntry> CustomGradient(const OpRegistry& r, const NodePtr& n,
                                      const std::vector<NodeEntry>& og) {
  const CustomParams& c = Params(n->attrs);
  const size_t na = c.args.size();
  std::vector<NodeEntry> inputs;
  for (size_t i = 0; i < c.outs.size(); ++i)
    if (c.bwd_out_grad[i]) inputs.push_back(og[i]);
  for (size_t i = 0; i < na; ++i) inputs.push_back(n->inputs[i]);
  for (size_t i = 0; i < c.outs.size(); ++i)
    if (c.bwd_out_data[i]) inputs.push_back(OutEntry(n, static_cast<uint32_t>(i)));
  for (size_t i = 0; i < c.auxs.size(); ++i) inputs.push_back(n->inputs[na + i]);
  auto b = std::make_shared<Node>();
  b->attrs.op = &r.Get("_backward_Custom");
  b->attrs.name = GradName(n, "backward");
  b->attrs.dict = n->attrs.dict;
  b->attrs.params = n->attrs.params;  // the same prop (the decoded values are shared)
  b->inputs = std::move(inputs);
  std::vector<NodeEntry> g;
  for (size_t i = 0; i < na; ++i) g.push_back(OutEntry(b, static_cast<uint32_t>(i)));
  for (size_t i = 0; i < c.auxs.size(); ++i)
    g.push_back(MakeOpEntry(r, "zeros_like", GradName(n, "aux" + std::to_string(i) + "_grad"),
                            {n->inputs[na + i]}));
  return g;
}

// Where argument i sits among the backward node's inputs.
size_t BackwardArgIndex(const CustomParams& c, size_t i) {
  return static_cast<size_t>(std::count(c.bwd_out_grad.begin(), c.bwd_out_grad.end(), true)) + i;
}

bool BackwardShape(const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
  const CustomParams& c = Params(a);
  for (size_t i = 0; i < c.args.size(); ++i) {
    const size_t k = BackwardArgIndex(c, i);
    AssignShape(a, out, i, (*in)[k], "gradient of '" + c.args[i] + "'");
    AssignShape(a, in, k, (*out)[i], "argument '" + c.args[i] + "'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool BackwardType(const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
  const CustomParams& c = Params(a);
  for (size_t i = 0; i < c.args.size(); ++i) {
    const size_t k = BackwardArgIndex(c, i);
    AssignType(a, out, i, (*in)[k], "gradient of '" + c.args[i] + "'");
    AssignType(a, in, k, (*out)[i], "argument '" + c.args[i] + "'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> CustomDecls() {
  ParamDecl rest = StringParam("attrs", "",
                               "every other attribute, passed as strings to the creator "
                               "registered for op_type");
  rest.rest = true;
  return {RequiredParam("op_type", ParamType::kString,
                        "the registered custom operator type (weft_custom_op_register)"),
          rest};
}

}  // namespace
}  // namespace op

void RegisterCustomOpDefs(OpRegistry* reg) {
  OpDef f;
  f.name = "Custom";
  f.doc =
      "An operator implemented by the host program: the type registered as op_type "
      "(weft_custom_op_register) lists its arguments, outputs and auxiliary states, infers "
      "shapes and types, and computes forward and backward on views of the arrays.";
  f.params = op::CustomDecls();
  f.num_inputs_fn = [](const ParamValues& p) {
    const op::CustomParams& c = p.Decoded<op::CustomParams>();
    return static_cast<int>(c.args.size() + c.auxs.size());
  };
  f.num_outputs_fn = [](const ParamValues& p) {
    return static_cast<int>(p.Decoded<op::CustomParams>().outs.size());
  };
  f.input_names = [](const ParamValues& p) {
    const op::CustomParams& c = p.Decoded<op::CustomParams>();
    std::vector<std::string> names = c.args;
    names.insert(names.end(), c.auxs.begin(), c.auxs.end());
    return names;
  };
  f.output_names = [](const ParamValues& p) { return p.Decoded<op::CustomParams>().outs; };
  f.mutate_inputs = [](const ParamValues& p) {
    const op::CustomParams& c = p.Decoded<op::CustomParams>();
    std::vector<int> aux;
    for (size_t i = 0; i < c.auxs.size(); ++i) aux.push_back(static_cast<int>(c.args.size() + i));
    return aux;
  };
  f.infer_shape = op::CustomShape;
  f.infer_type = op::CustomType;
  f.gradient = op::CustomGradient;
  // A Custom output that is a graph head gets ones as its head gradient
  // (MXNet's default head gradient; its custom losses ignore out_grad).
  f.is_loss = true;
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_Custom";
  b.doc = "Gradient of Custom: calls the operator's backward.";
  b.params = op::CustomDecls();
  b.num_inputs_fn = [](const ParamValues& p) {
    return static_cast<int>(p.Decoded<op::CustomParams>().NumBackwardInputs());
  };
  b.num_outputs_fn = [](const ParamValues& p) {
    return static_cast<int>(p.Decoded<op::CustomParams>().args.size());
  };
  b.infer_shape = op::BackwardShape;
  b.infer_type = op::BackwardType;
  reg->Add(std::move(b));
}

}  // namespace weft
