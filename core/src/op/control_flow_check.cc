// The control-flow operators' parameters decoded, their nodes checked
// against their nested graphs, and inference through a nested graph
// (control_flow.h).
#include <algorithm>
#include <set>

#include "op/control_flow.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {
namespace op {

namespace {

std::vector<int64_t> Locs(const ParamValues& p, const char* name) {
  return p.Has(name) ? p.GetShape(name).dims() : std::vector<int64_t>{};
}

[[noreturn]] void Bad(const NodeAttrs& n, const std::string& what) {
  Fail(StatusCode::kInvalidArgument, ControlFlowLabel(n), ": ", what);
}

std::string List(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Every entry of `locs` (attribute `name`) in [0, bound); with `distinct`,
// no entry twice.
void CheckLocs(const NodeAttrs& n, const char* name, const std::vector<int64_t>& locs, size_t bound,
               const char* of, bool distinct) {
  std::set<int64_t> seen;
  for (int64_t l : locs) {
    if (l < 0 || static_cast<size_t>(l) >= bound)
      Bad(n,
          StrCat(name, " ", List(locs), " holds ", l, ", out of range for the ", bound, " ", of));
    if (distinct && !seen.insert(l).second)
      Bad(n, StrCat(name, " ", List(locs), " holds ", l, " twice"));
  }
}

// Nested graph `k` must exist; returns its variable and head counts after
// checking that its variables' names are unique (they are bound by name).
std::pair<size_t, size_t> Nested(const NodeAttrs& n, size_t k, const char* role) {
  if (k >= n.subgraphs.size() || !n.subgraphs[k])
    Bad(n, StrCat("has no ", role, " subgraph (subgraph ", k, ")"));
  const IndexedGraph g(*n.subgraphs[k]);
  std::set<std::string> names;
  for (uint32_t nid : g.input_nodes())
    if (!names.insert(g.node(nid).attrs.name).second)
      Bad(n,
          StrCat("its ", role, " subgraph has two variables named '", g.node(nid).attrs.name, "'"));
  return {g.input_nodes().size(), g.outputs().size()};
}

void CheckCount(const NodeAttrs& n, size_t want, const char* role) {
  if (n.subgraphs.size() != want)
    Bad(n, StrCat("must carry ", want, " subgraphs (", role, "), has ", n.subgraphs.size()));
}

}  // namespace

ControlFlowParams ControlFlowParams::Decode(const ParamValues& p) {
  ControlFlowParams c;
  c.num_args = static_cast<int>(p.GetInt("num_args"));
  c.num_outputs = static_cast<int>(p.GetInt("num_outputs"));
  c.num_out_data = p.Has("num_out_data") ? static_cast<int>(p.GetInt("num_out_data")) : 0;
  c.max_iterations = p.Has("max_iterations") ? static_cast<int>(p.GetInt("max_iterations")) : 0;
  // num_args counts the nested graphs: 1 for _foreach, 2 for _while_loop,
  // 3 for _cond.
  const int graphs = p.Has("max_iterations") ? 2 : p.Has("then_input_locs") ? 3 : 1;
  c.num_inputs = static_cast<size_t>(std::max(0, c.num_args - graphs));
  c.in_data_locs = Locs(p, "in_data_locs");
  c.in_state_locs = Locs(p, "in_state_locs");
  c.remain_locs = Locs(p, "remain_locs");
  c.cond_input_locs = Locs(p, "cond_input_locs");
  c.func_input_locs = Locs(p, "func_input_locs");
  c.func_var_locs = Locs(p, "func_var_locs");
  c.then_input_locs = Locs(p, "then_input_locs");
  c.else_input_locs = Locs(p, "else_input_locs");
  return c;
}

std::string ControlFlowLabel(const NodeAttrs& attrs) {
  return StrCat("node '", attrs.name, "' (", attrs.op ? attrs.op->name : std::string("?"), ")");
}

void CheckForeach(const NodeAttrs& n) {
  const auto& p = n.params.Decoded<ControlFlowParams>();
  CheckCount(n, 1, "the loop body");
  const auto [vars, heads] = Nested(n, 0, "body");
  const size_t nd = p.in_data_locs.size(), ns = p.in_state_locs.size();
  if (nd == 0) Bad(n, "in_data_locs is empty: _foreach needs at least one data input");
  if (nd + ns + p.remain_locs.size() != p.num_inputs)
    Bad(n,
        StrCat("in_data_locs, in_state_locs and remain_locs list ", nd + ns + p.remain_locs.size(),
               " inputs, but num_args ", p.num_args, " gives ", p.num_inputs));
  if (vars != p.num_inputs)
    Bad(n, StrCat("its body reads ", vars, " variables, but the node has ", p.num_inputs,
                  " inputs (num_args ", p.num_args, ")"));
  if (heads != static_cast<size_t>(p.num_outputs))
    Bad(n, StrCat("num_outputs is ", p.num_outputs, ", but its body has ", heads, " outputs"));
  if (p.num_out_data < 0 || p.num_out_data > p.num_outputs ||
      static_cast<size_t>(p.num_outputs - p.num_out_data) != ns)
    Bad(n, StrCat("num_out_data ", p.num_out_data, " and num_outputs ", p.num_outputs,
                  " do not leave one output per loop state (", ns, " in in_state_locs)"));
  std::vector<int64_t> all = p.in_data_locs;
  all.insert(all.end(), p.in_state_locs.begin(), p.in_state_locs.end());
  all.insert(all.end(), p.remain_locs.begin(), p.remain_locs.end());
  CheckLocs(n, "in_data_locs, in_state_locs and remain_locs together", all, vars, "body variables",
            true);
}

void CheckWhileLoop(const NodeAttrs& n) {
  const auto& p = n.params.Decoded<ControlFlowParams>();
  CheckCount(n, 2, "cond, func");
  const auto [cvars, cheads] = Nested(n, 0, "cond");
  const auto [fvars, fheads] = Nested(n, 1, "func");
  if (cheads != 1) Bad(n, StrCat("its cond subgraph must have one output, has ", cheads));
  if (p.cond_input_locs.size() != cvars)
    Bad(n, StrCat("cond_input_locs ", List(p.cond_input_locs), " lists ", p.cond_input_locs.size(),
                  " inputs, but the cond subgraph reads ", cvars, " variables"));
  if (p.func_input_locs.size() != fvars)
    Bad(n, StrCat("func_input_locs ", List(p.func_input_locs), " lists ", p.func_input_locs.size(),
                  " inputs, but the func subgraph reads ", fvars, " variables"));
  CheckLocs(n, "cond_input_locs", p.cond_input_locs, p.num_inputs, "node inputs", true);
  CheckLocs(n, "func_input_locs", p.func_input_locs, p.num_inputs, "node inputs", true);
  if (fheads != static_cast<size_t>(p.num_outputs))
    Bad(n, StrCat("num_outputs is ", p.num_outputs, ", but its func subgraph has ", fheads,
                  " outputs"));
  if (p.num_out_data < 0 || p.num_out_data > p.num_outputs ||
      static_cast<size_t>(p.num_outputs - p.num_out_data) != p.func_var_locs.size())
    Bad(n, StrCat("num_out_data ", p.num_out_data, " and num_outputs ", p.num_outputs,
                  " do not leave one output per loop variable (", p.func_var_locs.size(),
                  " in func_var_locs)"));
  CheckLocs(n, "func_var_locs", p.func_var_locs, fvars, "func inputs", true);
}

void CheckCond(const NodeAttrs& n) {
  const auto& p = n.params.Decoded<ControlFlowParams>();
  CheckCount(n, 3, "cond, then, else");
  const auto [cvars, cheads] = Nested(n, 0, "cond");
  const auto [tvars, theads] = Nested(n, 1, "then");
  const auto [evars, eheads] = Nested(n, 2, "else");
  if (cheads != 1) Bad(n, StrCat("its cond subgraph must have one output, has ", cheads));
  const struct {
    const char* name;
    const std::vector<int64_t>& locs;
    size_t vars;
  } graphs[] = {{"cond_input_locs", p.cond_input_locs, cvars},
                {"then_input_locs", p.then_input_locs, tvars},
                {"else_input_locs", p.else_input_locs, evars}};
  for (const auto& g : graphs) {
    if (g.locs.size() != g.vars)
      Bad(n, StrCat(g.name, " ", List(g.locs), " lists ", g.locs.size(),
                    " inputs, but its subgraph reads ", g.vars, " variables"));
    CheckLocs(n, g.name, g.locs, p.num_inputs, "node inputs", true);
  }
  for (size_t heads : {theads, eheads})
    if (heads != static_cast<size_t>(p.num_outputs))
      Bad(n, StrCat("num_outputs is ", p.num_outputs, ", but its then and else subgraphs have ",
                    theads, " and ", eheads, " outputs"));
}

void InferNestedShapes(const NodeAttrs& attrs, size_t k, std::vector<Shape>* in,
                       std::vector<Shape>* out) {
  const IndexedGraph g(*attrs.subgraphs.at(k));
  const auto& vars = g.input_nodes();
  WEFT_CHECK(vars.size() == in->size()) << ControlFlowLabel(attrs) << " subgraph " << k;
  pass::ShapeMap given;
  for (size_t i = 0; i < vars.size(); ++i)
    if ((*in)[i].ndim_known()) given[g.node(vars[i]).attrs.name] = (*in)[i];
  pass::ShapeResult r;
  try {
    r = pass::InferShape(g, given);
  } catch (const Error& e) {
    Fail(e.code(), ControlFlowLabel(attrs), ": in its subgraph ", k, ": ", e.what());
  }
  for (size_t i = 0; i < vars.size(); ++i) (*in)[i] = r.shapes[g.entry_id(vars[i], 0)];
  out->clear();
  for (const auto& e : g.outputs()) out->push_back(r.shapes[g.entry_id(e)]);
}

void InferNestedTypes(const NodeAttrs& attrs, size_t k, std::vector<DType>* in,
                      std::vector<DType>* out) {
  const IndexedGraph g(*attrs.subgraphs.at(k));
  const auto& vars = g.input_nodes();
  WEFT_CHECK(vars.size() == in->size()) << ControlFlowLabel(attrs) << " subgraph " << k;
  pass::DTypeMap given;
  for (size_t i = 0; i < vars.size(); ++i)
    if ((*in)[i] != DType::kUnknown) given[g.node(vars[i]).attrs.name] = (*in)[i];
  pass::TypeResult r;
  try {
    r = pass::InferType(g, given);
  } catch (const Error& e) {
    Fail(e.code(), ControlFlowLabel(attrs), ": in its subgraph ", k, ": ", e.what());
  }
  for (size_t i = 0; i < vars.size(); ++i) (*in)[i] = r.dtypes[g.entry_id(vars[i], 0)];
  out->clear();
  for (const auto& e : g.outputs()) out->push_back(r.dtypes[g.entry_id(e)]);
}

}  // namespace op
}  // namespace weft
