// MXNet's control-flow operators (src/operator/control_flow.cc): _foreach,
// _while_loop and _cond, with MXNet's names, attributes and input/output
// order. Each node carries its nested graphs (NodeAttrs::subgraphs), whose
// variables (IndexedGraph order) the *_locs attributes map to the node's
// inputs; `num_args` counts the nested graphs too, as MXNet's does (1, 2 or
// 3 more than the node's inputs).
//
//   _foreach     inputs: data..., states..., remaining...; outputs: the
//                body's data outputs stacked along a new axis 0, then the
//                final states. Slices axis 0 of every data input.
//   _while_loop  inputs: the union of cond's and func's; outputs: func's
//                step outputs stacked along axis 0 and padded to
//                max_iterations, then the final loop variables.
//   _cond        inputs: the union of the three graphs'; outputs: the
//                chosen branch's.
//
// Shapes are static: MXNet infers _foreach's, and leaves _while_loop's and
// _cond's to run time; Weft infers them as MXNet's run time gives them
// (step outputs max_iterations long; both branches must agree). The
// kernels (control_flow_run.cc) run the nested graphs on the CPU; there is
// no gradient (pass::Gradient refuses the nodes, naming them).
#include "op/control_flow.h"
#include "weft/control_flow.h"
#include "op/op_common.h"
#include "weft/status.h"

namespace weft {
namespace op {

namespace {

const ControlFlowParams& Of(const ParamValues& p) { return p.Decoded<ControlFlowParams>(); }
const ControlFlowParams& P(const NodeAttrs& a) { return Of(a.params); }

// A data input's slice: axis 0 dropped ((1,) for a 1-D input, as MXNet).
Shape SliceFirst(const Shape& s) {
  if (!s.ndim_known() || s.ndim() == 0) return Shape();
  if (s.ndim() == 1) return Shape{1};
  return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
}

// `len` slices of shape `s` stacked along a new axis 0.
Shape Stack(int64_t len, const Shape& s) {
  if (!s.ndim_known()) return Shape();
  std::vector<int64_t> d{len};
  d.insert(d.end(), s.dims().begin(), s.dims().end());
  return Shape(d);
}

size_t VarCount(const NodeAttrs& a, size_t k) {
  return IndexedGraph(*a.subgraphs[k]).input_nodes().size();
}

// The entries of `all` at `locs`, and back (known values merged).
template <typename T>
std::vector<T> Pick(const std::vector<T>& all, const std::vector<int64_t>& locs) {
  std::vector<T> v;
  for (int64_t l : locs) v.push_back(all[static_cast<size_t>(l)]);
  return v;
}

bool ForeachShape(const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckForeach(a);
  const auto& p = P(a);
  const size_t nd = p.in_data_locs.size(), ns = p.in_state_locs.size();
  const size_t nod = static_cast<size_t>(p.num_out_data);
  std::vector<Shape> sub(VarCount(a, 0)), sub_out;
  for (size_t i = 0; i < nd; ++i) sub[p.in_data_locs[i]] = SliceFirst((*in)[i]);
  for (size_t j = 0; j < ns; ++j) sub[p.in_state_locs[j]] = (*in)[nd + j];
  for (size_t j = 0; j < p.remain_locs.size(); ++j) sub[p.remain_locs[j]] = (*in)[nd + ns + j];
  InferNestedShapes(a, 0, &sub, &sub_out);
  const Shape& first = (*in)[0];
  const int64_t len = first.ndim_known() && first.ndim() > 0 ? first[0] : 0;
  for (size_t i = 0; i < nd; ++i) {
    const std::string what = StrCat("data input ", i, " (its axis 0 is the loop's length)");
    if ((*in)[i].ndim_known() && (*in)[i].ndim() == 1)
      AssignShape(a, in, i, Shape{len}, what);
    else
      AssignShape(a, in, i, Stack(len, sub[p.in_data_locs[i]]), what);
  }
  for (size_t j = 0; j < ns; ++j) {
    const std::string what = StrCat("loop state ", j);
    AssignShape(a, in, nd + j, sub[p.in_state_locs[j]], what);
    AssignShape(a, in, nd + j, sub_out[nod + j], what + " (the body's new state)");
    AssignShape(a, out, nod + j, (*in)[nd + j], StrCat("output ", nod + j));
  }
  for (size_t j = 0; j < p.remain_locs.size(); ++j)
    AssignShape(a, in, nd + ns + j, sub[p.remain_locs[j]], StrCat("remaining input ", j));
  if (len > 0)
    for (size_t i = 0; i < nod; ++i)
      AssignShape(a, out, i, Stack(len, sub_out[i]), StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

bool ForeachType(const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
  CheckForeach(a);
  const auto& p = P(a);
  const size_t nd = p.in_data_locs.size(), ns = p.in_state_locs.size();
  const size_t nod = static_cast<size_t>(p.num_out_data);
  std::vector<DType> sub(VarCount(a, 0), DType::kUnknown), sub_out;
  for (size_t i = 0; i < nd; ++i) sub[p.in_data_locs[i]] = (*in)[i];
  for (size_t j = 0; j < ns; ++j) sub[p.in_state_locs[j]] = (*in)[nd + j];
  for (size_t j = 0; j < p.remain_locs.size(); ++j) sub[p.remain_locs[j]] = (*in)[nd + ns + j];
  InferNestedTypes(a, 0, &sub, &sub_out);
  for (size_t i = 0; i < nd; ++i)
    AssignType(a, in, i, sub[p.in_data_locs[i]], StrCat("data input ", i));
  for (size_t j = 0; j < ns; ++j) {
    AssignType(a, in, nd + j, sub[p.in_state_locs[j]], StrCat("loop state ", j));
    AssignType(a, in, nd + j, sub_out[nod + j], StrCat("loop state ", j, " (the body's new)"));
    AssignType(a, out, nod + j, (*in)[nd + j], StrCat("output ", nod + j));
  }
  for (size_t j = 0; j < p.remain_locs.size(); ++j)
    AssignType(a, in, nd + ns + j, sub[p.remain_locs[j]], StrCat("remaining input ", j));
  for (size_t i = 0; i < nod; ++i) AssignType(a, out, i, sub_out[i], StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

// Merges nested-graph values `sub` (read from node inputs `locs`) back into
// the node's inputs.
void MergeShapes(const NodeAttrs& a, const std::vector<int64_t>& locs,
                 const std::vector<Shape>& sub, std::vector<Shape>* in, const char* graph) {
  for (size_t k = 0; k < locs.size(); ++k)
    AssignShape(a, in, static_cast<size_t>(locs[k]), sub[k],
                StrCat("input ", locs[k], " (read by the ", graph, " subgraph)"));
}
void MergeTypes(const NodeAttrs& a, const std::vector<int64_t>& locs, const std::vector<DType>& sub,
                std::vector<DType>* in, const char* graph) {
  for (size_t k = 0; k < locs.size(); ++k)
    AssignType(a, in, static_cast<size_t>(locs[k]), sub[k],
               StrCat("input ", locs[k], " (read by the ", graph, " subgraph)"));
}

// The condition must be one element (MXNet reads it as a scalar).
void CheckCondShape(const NodeAttrs& a, const Shape& s) {
  if (s.is_known() && s.Size() != 1)
    Fail(StatusCode::kShape, ControlFlowLabel(a), ": its cond subgraph gives shape ", s.ToString(),
         ", expected one element (a scalar condition)");
}

bool WhileLoopShape(const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckWhileLoop(a);
  const auto& p = P(a);
  const size_t nod = static_cast<size_t>(p.num_out_data);
  // Loop variable j is node input func_input_locs[func_var_locs[j]] and
  // output nod + j: the same shape.
  for (size_t j = 0; j < p.func_var_locs.size(); ++j) {
    const size_t i = static_cast<size_t>(p.func_input_locs[p.func_var_locs[j]]);
    AssignShape(a, in, i, (*out)[nod + j], StrCat("loop variable ", j));
    AssignShape(a, out, nod + j, (*in)[i], StrCat("output ", nod + j, " (loop variable ", j, ")"));
  }
  std::vector<Shape> cond = Pick(*in, p.cond_input_locs), cond_out;
  InferNestedShapes(a, 0, &cond, &cond_out);
  MergeShapes(a, p.cond_input_locs, cond, in, "cond");
  std::vector<Shape> func = Pick(*in, p.func_input_locs), func_out;
  InferNestedShapes(a, 1, &func, &func_out);
  MergeShapes(a, p.func_input_locs, func, in, "func");
  for (size_t j = 0; j < p.func_var_locs.size(); ++j) {
    const size_t i = static_cast<size_t>(p.func_input_locs[p.func_var_locs[j]]);
    AssignShape(a, in, i, func_out[nod + j],
                StrCat("loop variable ", j, " (func's new value must keep its shape)"));
    AssignShape(a, out, nod + j, (*in)[i], StrCat("output ", nod + j));
  }
  for (size_t i = 0; i < nod; ++i)
    AssignShape(a, out, i, Stack(p.max_iterations, func_out[i]),
                StrCat("output ", i, " (max_iterations steps)"));
  CheckCondShape(a, cond_out[0]);
  return AllKnown(*in) && AllKnown(*out);
}

bool WhileLoopType(const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
  CheckWhileLoop(a);
  const auto& p = P(a);
  const size_t nod = static_cast<size_t>(p.num_out_data);
  for (size_t j = 0; j < p.func_var_locs.size(); ++j) {
    const size_t i = static_cast<size_t>(p.func_input_locs[p.func_var_locs[j]]);
    AssignType(a, in, i, (*out)[nod + j], StrCat("loop variable ", j));
    AssignType(a, out, nod + j, (*in)[i], StrCat("output ", nod + j));
  }
  std::vector<DType> cond = Pick(*in, p.cond_input_locs), cond_out;
  InferNestedTypes(a, 0, &cond, &cond_out);
  MergeTypes(a, p.cond_input_locs, cond, in, "cond");
  std::vector<DType> func = Pick(*in, p.func_input_locs), func_out;
  InferNestedTypes(a, 1, &func, &func_out);
  MergeTypes(a, p.func_input_locs, func, in, "func");
  for (size_t j = 0; j < p.func_var_locs.size(); ++j) {
    const size_t i = static_cast<size_t>(p.func_input_locs[p.func_var_locs[j]]);
    AssignType(a, in, i, func_out[nod + j], StrCat("loop variable ", j, " (func's new value)"));
    AssignType(a, out, nod + j, (*in)[i], StrCat("output ", nod + j));
  }
  for (size_t i = 0; i < nod; ++i) AssignType(a, out, i, func_out[i], StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

bool CondShape(const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckCond(a);
  const auto& p = P(a);
  const std::vector<int64_t>* locs[] = {&p.cond_input_locs, &p.then_input_locs, &p.else_input_locs};
  const char* names[] = {"cond", "then", "else"};
  std::vector<Shape> branch_out[3];
  for (size_t k = 0; k < 3; ++k) {
    std::vector<Shape> sub = Pick(*in, *locs[k]);
    InferNestedShapes(a, k, &sub, &branch_out[k]);
    MergeShapes(a, *locs[k], sub, in, names[k]);
  }
  CheckCondShape(a, branch_out[0][0]);
  for (size_t i = 0; i < out->size(); ++i) {
    const Shape& t = branch_out[1][i];
    const Shape& e = branch_out[2][i];
    if (t.is_known() && e.is_known() && t != e)
      Fail(StatusCode::kShape, ControlFlowLabel(a), ": output ", i, " is ", t.ToString(),
           " in the then branch but ", e.ToString(),
           " in the else branch (both branches must give the same shapes)");
    AssignShape(a, out, i, t, StrCat("output ", i, " (then branch)"));
    AssignShape(a, out, i, e, StrCat("output ", i, " (else branch)"));
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool CondType(const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
  CheckCond(a);
  const auto& p = P(a);
  const std::vector<int64_t>* locs[] = {&p.cond_input_locs, &p.then_input_locs, &p.else_input_locs};
  const char* names[] = {"cond", "then", "else"};
  for (size_t k = 0; k < 3; ++k) {
    std::vector<DType> sub = Pick(*in, *locs[k]), sub_out;
    InferNestedTypes(a, k, &sub, &sub_out);
    MergeTypes(a, *locs[k], sub, in, names[k]);
    for (size_t i = 0; k > 0 && i < out->size(); ++i)
      AssignType(a, out, i, sub_out[i], StrCat("output ", i, " (", names[k], " branch)"));
  }
  return AllKnown(*in) && AllKnown(*out);
}

ParamDecl Count(const char* name, double lo, const char* doc) {
  return Ranged(RequiredParam(name, ParamType::kInt, doc), lo, 1 << 20);
}
ParamDecl LocList(const char* name, const char* doc) {
  return RequiredParam(name, ParamType::kShape, doc);
}

// The shared OpDef: counts from the parameters, inputs named as MXNet's
// ("data<i>"; MXNet lists its graph arguments first, which are no inputs
// here), the nested graphs checked by `check`.
OpDef ControlFlowDef(const char* name, const char* doc, void (*check)(const NodeAttrs&)) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.key_var_num_args = "num_args";
  d.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(Of(p).num_inputs); };
  d.num_outputs_fn = [](const ParamValues& p) { return Of(p).num_outputs; };
  d.input_names = [](const ParamValues& p) {
    std::vector<std::string> names;
    for (size_t i = 0; i < Of(p).num_inputs; ++i) names.push_back(StrCat("data", i));
    return names;
  };
  d.check_subgraphs = [check](const Node& n) { check(n.attrs); };
  return d;
}

}  // namespace

void RegisterControlFlowOps(OpRegistry* reg) {
  OpDef f = ControlFlowDef("_foreach",
                           "Runs its body over axis 0 of the data inputs with loop states "
                           "(MXNet's contrib.foreach).",
                           CheckForeach);
  f.params = {Count("num_args", 1, "Number of inputs, the body graph included."),
              Count("num_outputs", 1, "The number of outputs of the body."),
              Count("num_out_data", 0, "The number of data (stacked) outputs of the body."),
              LocList("in_state_locs", "The loop states' places among the body's inputs."),
              LocList("in_data_locs", "The data slices' places among the body's inputs."),
              LocList("remain_locs", "The other inputs' places among the body's inputs.")};
  f.infer_shape = ForeachShape;
  f.infer_type = ForeachType;
  reg->Add(std::move(f));

  OpDef w = ControlFlowDef("_while_loop",
                           "Runs func while cond holds, at most max_iterations times "
                           "(MXNet's contrib.while_loop).",
                           CheckWhileLoop);
  w.params = {Count("num_args", 2, "Number of inputs, the cond and func graphs included."),
              Count("num_outputs", 1, "The number of outputs of func."),
              Count("num_out_data", 0, "The number of step (stacked) outputs of func."),
              Count("max_iterations", 1, "Maximum number of iterations."),
              LocList("cond_input_locs", "The node inputs cond reads."),
              LocList("func_input_locs", "The node inputs func reads."),
              LocList("func_var_locs", "The loop variables' places among func's inputs.")};
  w.infer_shape = WhileLoopShape;
  w.infer_type = WhileLoopType;
  reg->Add(std::move(w));

  OpDef c = ControlFlowDef("_cond",
                           "Runs then_branch or else_branch as cond says (MXNet's "
                           "contrib.cond).",
                           CheckCond);
  c.params = {Count("num_args", 3, "Number of inputs, the three graphs included."),
              Count("num_outputs", 1, "The number of outputs of each branch."),
              LocList("cond_input_locs", "The node inputs cond reads."),
              LocList("then_input_locs", "The node inputs then_branch reads."),
              LocList("else_input_locs", "The node inputs else_branch reads.")};
  c.infer_shape = CondShape;
  c.infer_type = CondType;
  reg->Add(std::move(c));
}

}  // namespace op

bool IsControlFlowOp(const OpDef* op) {
  return op && (op->name == "_foreach" || op->name == "_while_loop" || op->name == "_cond");
}

}  // namespace weft
