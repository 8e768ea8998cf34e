// Converters of ONNX's If, Loop and Scan onto MXNet's _cond, _while_loop
// and _foreach (core/src/op/control_flow_ops.cc).
//
// A nested ONNX graph is converted in an ImportContext of its own: its
// formal inputs become variables, and every name it reads from an
// enclosing scope (its nested graphs' included) becomes a variable of that
// name too, holding the outer constant when it is one (so that shape
// computations on it still fold). The converted graph is the node's
// subgraph; each of its variables is a formal (a loop state, a data slice)
// or else an extra input of the node: the outer value of that name, or a
// constant the nested graph made, moved to the model's parameters. A head
// that is a variable is copied through `identity`, as MXNet's contrib
// functions do.
//
// What is static and what is refused (kNotImplemented, naming the node):
//   If    both branches must give the same shapes (where known at import).
//   Scan  opset 9+; every scan axis 0 and direction forward; scan inputs of
//         rank >= 2 (a 1-D input's slices would be MXNet's (1,)).
//   Loop  a constant trip count M (max_iterations; the loop may stop
//         earlier when its condition fails, as _while_loop does); with
//         scan outputs, the condition must stay true (no cond input or a
//         constant true one, and the body's cond output its input or a
//         constant true), so the outputs are M long, as ONNX's would be.
// The loop counter and condition are float32 (1,) loop variables.
#include <map>
#include <set>

#include "import_context.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

void Free(const onnx::GraphProto& g, std::set<std::string>* out) {
  std::set<std::string> defined;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  auto use = [&](const std::string& n) {
    if (!n.empty() && !defined.count(n)) out->insert(n);
  };
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) use(in);
    for (const auto& a : n.attribute()) {
      std::set<std::string> inner;
      if (a.has_g()) Free(a.g(), &inner);
      for (const auto& sub : a.graphs()) Free(sub, &inner);
      for (const auto& name : inner) use(name);
    }
    for (const auto& o : n.output()) defined.insert(o);
  }
  for (const auto& o : g.output()) use(o.name());
}

const onnx::GraphProto& GraphAttr(ImportContext& c, const char* key) {
  const auto* a = FindAttr(*c.node, key);
  if (!a || !a->has_g()) c.Invalid(StrCat("has no graph attribute '", key, "'"));
  return a->g();
}

// One nested graph converted in its own context.
struct Body {
  std::unique_ptr<ImportContext> ctx;
  std::vector<Symbol> outputs;  // one per ONNX graph output
};

// Converts `g` nested in `c`; `formals` holds the hints of g's inputs.
Body Convert(ImportContext& c, const onnx::GraphProto& g, const std::vector<VariableHints>& formals,
             const std::string& role) {
  Body b;
  b.ctx = std::make_unique<ImportContext>(c.rt, c.opset,
                                          StrCat(c.what, ": node '", c.node_name, "' ", role));
  ImportContext& in = *b.ctx;
  in.node_names = c.node_names;
  if (static_cast<size_t>(g.input_size()) != formals.size())
    c.Invalid(StrCat("its ", role, " has ", g.input_size(), " inputs, expected ", formals.size()));
  for (const auto& v : g.value_info()) in.SetShape(v.name(), ShapeOfType(v.type()));
  for (const auto& v : g.output()) in.SetShape(v.name(), ShapeOfType(v.type()));
  std::set<std::string> formal_names;
  for (int i = 0; i < g.input_size(); ++i) {
    const std::string& name = g.input(i).name();
    formal_names.insert(name);
    in.SetShape(name, formals[i].shape);
    in.SetSym(name, Symbol::CreateVariable(name, formals[i]));
  }
  for (const auto& t : g.initializer())
    in.SetConst(t.name(), ReadTensor(t, "", in.what + ": initializer '" + t.name() + "'"));
  std::set<std::string> free;
  Free(g, &free);
  for (const std::string& name : free) {
    if (formal_names.count(name)) continue;
    if (c.IsConst(name)) {
      in.SetConst(name, c.Const(name, "outer value"));
    } else if (c.Has(name)) {
      VariableHints hints;
      hints.shape = c.ShapeOf(name);
      in.SetShape(name, hints.shape);
      in.SetSym(name, Symbol::CreateVariable(name, hints));
    } else {
      c.Invalid(StrCat("its ", role, " reads '", name, "', which no enclosing graph defines"));
    }
  }
  ConvertNodes(in, g);
  for (const auto& o : g.output()) b.outputs.push_back(in.Sym(o.name()));
  return b;
}

// A nested graph ready to be a subgraph: its heads, its variables (in
// IndexedGraph order) and, per variable, the formal it is (-1: none).
struct Nested {
  std::shared_ptr<const Graph> graph;
  std::vector<std::string> vars;
  std::vector<int> formal;
};

Nested MakeNested(ImportContext& c, const std::vector<Symbol>& heads,
                  const std::vector<std::string>& formal_names, const std::string& role) {
  std::vector<NodeEntry> outs;
  for (size_t k = 0; k < heads.size(); ++k) {
    Symbol h = heads[k];
    if (h.outputs[0].node->is_variable())
      h = c.Op("identity", {h}, {}, StrCat("_", role, "_identity", k));
    outs.push_back(h.outputs[0]);
  }
  Nested n;
  n.graph = std::make_shared<const Graph>(Graph{outs});
  const IndexedGraph g(*n.graph);
  for (uint32_t nid : g.input_nodes()) {
    const std::string& name = g.node(nid).attrs.name;
    n.vars.push_back(name);
    int f = -1;
    for (size_t i = 0; i < formal_names.size(); ++i)
      if (formal_names[i] == name) f = static_cast<int>(i);
    n.formal.push_back(f);
  }
  return n;
}

// The node's inputs, shared by its nested graphs (one per outer value).
struct Inputs {
  std::vector<NodeEntry> entries;
  int Add(const Symbol& s) {
    const NodeEntry& e = s.outputs[0];
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].node == e.node && entries[i].index == e.index) return static_cast<int>(i);
    entries.push_back(e);
    return static_cast<int>(entries.size()) - 1;
  }
};

// The outer value feeding non-formal variable `name` of body `b`.
Symbol Outer(ImportContext& c, Body& b, const std::string& name) {
  if (b.ctx->params.count(name) && !c.Has(name))
    return c.NewParam("_" + name, b.ctx->Const(name, "constant"));
  return c.Sym(name);
}

std::string Locs(const std::vector<int>& v) {
  std::vector<int64_t> w(v.begin(), v.end());
  return w.empty() ? "()" : Tuple(w);
}

// Applies control-flow `op` to `inputs` with `subgraphs`; returns its outputs.
Symbol ControlFlowNode(ImportContext& c, const std::string& op, const Inputs& inputs,
                       StringMap params, std::vector<std::shared_ptr<const Graph>> subgraphs) {
  NodePtr n = MakeOpNode(c.reg, op, c.node_name, inputs.entries, params);
  n->attrs.subgraphs = std::move(subgraphs);
  n->op()->check_subgraphs(*n);
  Symbol s;
  for (uint32_t i = 0; i < n->num_outputs(); ++i) s.outputs.push_back(NodeEntry{n, i, 0});
  return s;
}

void ConvertIf(ImportContext& c) {
  const auto& n = *c.node;
  Body then_b = Convert(c, GraphAttr(c, "then_branch"), {}, "then_branch");
  Body else_b = Convert(c, GraphAttr(c, "else_branch"), {}, "else_branch");
  const size_t k = static_cast<size_t>(n.output_size());
  if (then_b.outputs.size() != k || else_b.outputs.size() != k)
    c.Invalid(StrCat("has ", k, " outputs, its branches ", then_b.outputs.size(), " and ",
                     else_b.outputs.size()));
  const auto& tg = GraphAttr(c, "then_branch");
  const auto& eg = GraphAttr(c, "else_branch");
  for (size_t i = 0; i < k; ++i) {
    const Shape t = then_b.ctx->ShapeOf(tg.output(static_cast<int>(i)).name());
    const Shape e = else_b.ctx->ShapeOf(eg.output(static_cast<int>(i)).name());
    if (t.is_known() && e.is_known() && t != e)
      c.Unsupported(StrCat("output ", i, " is ", t.ToString(), " in then_branch but ", e.ToString(),
                           " in else_branch; Weft's _cond needs both branches "
                           "to give the same shapes"));
  }
  // cond: the condition input itself, copied.
  const std::string cond_name = n.input(0);
  VariableHints ch;
  ch.shape = c.ShapeOf(cond_name);
  const Symbol cond_var = Symbol::CreateVariable(cond_name, ch);
  Nested cond = MakeNested(c, {cond_var}, {}, "cond");
  Nested then_n = MakeNested(c, then_b.outputs, {}, "then");
  Nested else_n = MakeNested(c, else_b.outputs, {}, "else");
  Inputs inputs;
  std::vector<int> cond_locs{inputs.Add(c.Sym(cond_name))}, then_locs, else_locs;
  for (const auto& v : then_n.vars) then_locs.push_back(inputs.Add(Outer(c, then_b, v)));
  for (const auto& v : else_n.vars) else_locs.push_back(inputs.Add(Outer(c, else_b, v)));
  const Symbol out = ControlFlowNode(c, "_cond", inputs,
                                     {{"num_args", std::to_string(inputs.entries.size() + 3)},
                                      {"num_outputs", std::to_string(k)},
                                      {"cond_input_locs", Locs(cond_locs)},
                                      {"then_input_locs", Locs(then_locs)},
                                      {"else_input_locs", Locs(else_locs)}},
                                     {cond.graph, then_n.graph, else_n.graph});
  for (size_t i = 0; i < k; ++i) c.SetOut(static_cast<int>(i), out[i]);
}

void ConvertScan(ImportContext& c) {
  const auto& n = *c.node;
  if (c.opset < 9) c.Unsupported("Scan of opset 8 (with sequence_lens and a batch axis)");
  const int m = static_cast<int>(AttrInt(n, "num_scan_inputs", 0));
  const int ns = n.input_size() - m;
  if (m < 1 || ns < 0) c.Invalid(StrCat("num_scan_inputs ", m, " for ", n.input_size(), " inputs"));
  for (const char* key :
       {"scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions"})
    for (int64_t v : AttrInts(n, key))
      if (v != 0)
        c.Unsupported(StrCat(key, " holds ", v, ": Weft's _foreach scans axis 0 forward only"));
  const auto& g = GraphAttr(c, "body");
  std::vector<VariableHints> formals(static_cast<size_t>(ns + m));
  std::vector<std::string> formal_names;
  for (int i = 0; i < ns + m; ++i) {
    const Shape s = c.ShapeOf(n.input(i));
    if (i >= ns) {
      if (s.ndim_known() && s.ndim() < 2)
        c.Unsupported(StrCat("scan input '", n.input(i), "' has rank ", s.ndim(),
                             "; Weft scans inputs of rank 2 or more"));
      if (s.ndim_known())
        formals[i].shape = Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end()));
    } else {
      formals[i].shape = s;
    }
    formal_names.push_back(i < g.input_size() ? g.input(i).name() : "");
  }
  Body b = Convert(c, g, formals, "body");
  const int k = static_cast<int>(b.outputs.size()) - ns;
  if (k < 0 || n.output_size() != ns + k)
    c.Invalid(StrCat("its body has ", b.outputs.size(), " outputs for ", ns, " states"));
  // _foreach's body gives the data outputs first, then the states.
  std::vector<Symbol> heads(b.outputs.begin() + ns, b.outputs.end());
  heads.insert(heads.end(), b.outputs.begin(), b.outputs.begin() + ns);
  Nested body = MakeNested(c, heads, formal_names, "body");
  std::vector<int> data_locs(m, -1), state_locs(ns, -1), remain_locs;
  std::vector<Symbol> remain;
  for (size_t v = 0; v < body.vars.size(); ++v) {
    const int f = body.formal[v];
    if (f >= ns) data_locs[f - ns] = static_cast<int>(v);
    if (f >= 0 && f < ns) state_locs[f] = static_cast<int>(v);
    if (f < 0) {
      remain_locs.push_back(static_cast<int>(v));
      remain.push_back(Outer(c, b, body.vars[v]));
    }
  }
  for (int i = 0; i < ns + m; ++i)
    if ((i < ns ? state_locs[i] : data_locs[i - ns]) < 0)
      c.Unsupported(StrCat("its body does not read its input '", formal_names[i],
                           "' (MXNet's _foreach needs every state and slice read)"));
  Inputs inputs;
  for (int j = 0; j < m; ++j) inputs.entries.push_back(c.Sym(n.input(ns + j)).outputs[0]);
  for (int j = 0; j < ns; ++j) inputs.entries.push_back(c.Sym(n.input(j)).outputs[0]);
  for (const Symbol& r : remain) inputs.entries.push_back(r.outputs[0]);
  const Symbol out = ControlFlowNode(c, "_foreach", inputs,
                                     {{"num_args", std::to_string(inputs.entries.size() + 1)},
                                      {"num_outputs", std::to_string(k + ns)},
                                      {"num_out_data", std::to_string(k)},
                                      {"in_data_locs", Locs(data_locs)},
                                      {"in_state_locs", Locs(state_locs)},
                                      {"remain_locs", Locs(remain_locs)}},
                                     {body.graph});
  for (int i = 0; i < ns; ++i) c.SetOut(i, out[static_cast<size_t>(k + i)]);
  for (int j = 0; j < k; ++j) c.SetOut(ns + j, out[static_cast<size_t>(j)]);
}

// Whether output `out` of `g` is its input `in` (directly or by Identity).
bool PassesOn(const onnx::GraphProto& g, const std::string& out, const std::string& in) {
  if (out == in) return true;
  for (const auto& n : g.node())
    if (n.op_type() == "Identity" && n.output_size() == 1 && n.output(0) == out &&
        n.input_size() == 1 && n.input(0) == in)
      return true;
  return false;
}

ConstTensor OneValue(double v) {
  ConstTensor t;
  t.dims = {1};
  t.reals = {v};
  return t;
}

void ConvertLoop(ImportContext& c) {
  const auto& n = *c.node;
  const auto& g = GraphAttr(c, "body");
  const int nv = n.input_size() - 2;
  if (nv < 0 || g.input_size() != nv + 2)
    c.Invalid(StrCat("has ", n.input_size(), " inputs and its body ", g.input_size(),
                     " (expected 2 more: the iteration number and the condition)"));
  if (!HasInput(n, 0))
    c.Unsupported(
        "has no trip count M: how often it runs, and so its outputs' shapes, depend on the data; "
        "Weft's _while_loop needs a constant M (its max_iterations)");
  const ConstTensor& mt = c.Const(n.input(0), "trip count M");
  const int64_t trips = mt.size() == 1 ? mt.integer(0) : -1;
  if (trips < 1 || trips > (1 << 20))
    c.Unsupported(StrCat("trip count ", trips, ": Weft's _while_loop runs 1 to 2^20 iterations"));
  std::vector<VariableHints> formals(static_cast<size_t>(nv + 2));
  for (int i = 0; i < 2; ++i) {
    formals[i].shape = Shape{1};
    formals[i].dtype = DType::kFloat32;
  }
  for (int i = 0; i < nv; ++i) formals[2 + i].shape = c.ShapeOf(n.input(2 + i));
  Body b = Convert(c, g, formals, "body");
  const int k = static_cast<int>(b.outputs.size()) - 1 - nv;
  if (k < 0 || n.output_size() != nv + k)
    c.Invalid(StrCat("its body has ", b.outputs.size(), " outputs for ", nv, " loop values"));
  const std::string& iter_name = g.input(0).name();
  const std::string& cond_name = g.input(1).name();
  // A condition that stays true leaves the trip count alone in charge.
  bool dyn_cond = HasInput(n, 1);
  if (dyn_cond && c.IsConst(n.input(1)) && c.Const(n.input(1), "cond").real(0) != 0) {
    const std::string& out = g.output(0).name();
    dyn_cond = !(PassesOn(g, out, cond_name) ||
                 (b.ctx->IsConst(out) && b.ctx->Const(out, "cond").real(0) != 0));
  }
  if (dyn_cond && k > 0)
    c.Unsupported(StrCat(
        "its condition may end the loop before M = ", trips,
        " iterations, which makes its scan outputs' length data-dependent; Weft imports a Loop "
        "with scan outputs only when it runs M times (no condition, or a constant true one its "
        "body passes on)"));
  std::vector<NodeEntry> all;
  for (const Symbol& o : b.outputs) all.push_back(o.outputs[0]);
  bool reads_iter = false;
  {
    const IndexedGraph ig(Graph{all});
    for (uint32_t nid : ig.input_nodes()) reads_iter |= ig.node(nid).attrs.name == iter_name;
  }
  // Loop variables: the carried values, [the condition], [the counter].
  std::vector<std::string> var_names;
  std::vector<Symbol> var_outer;
  std::vector<Symbol> heads(b.outputs.begin() + 1 + nv, b.outputs.end());
  for (int i = 0; i < nv; ++i) {
    var_names.push_back(g.input(2 + i).name());
    var_outer.push_back(c.Sym(n.input(2 + i)));
    heads.push_back(b.outputs[1 + i]);
  }
  const std::string& name = c.node_name;
  if (dyn_cond) {
    var_names.push_back(cond_name);
    const Symbol init = c.Op("Cast", {c.Sym(n.input(1))}, {{"dtype", "float32"}}, "_cond_cast");
    var_outer.push_back(c.Op("Reshape", {init}, {{"shape", "(1,)"}}, "_cond_init"));
    // The condition holds whenever a step runs, so cond * cond_out is
    // cond_out; reading cond keeps it among the body's inputs (MXNet needs
    // every loop variable there).
    const Symbol out = Symbol::Apply(c.reg, "Cast", {b.outputs[0]}, {{"dtype", "float32"}},
                                     name + "_next_cond_cast");
    const Symbol flat =
        Symbol::Apply(c.reg, "Reshape", {out}, {{"shape", "(1,)"}}, name + "_next_cond_flat");
    heads.push_back(Symbol::Apply(c.reg, "elemwise_mul", {b.ctx->Sym(cond_name), flat}, {},
                                  name + "_next_cond"));
  }
  if (reads_iter) {
    var_names.push_back(iter_name);
    var_outer.push_back(c.NewParam("_iter0", OneValue(0)));
    heads.push_back(Symbol::Apply(c.reg, "_plus_scalar", {b.ctx->Sym(iter_name)}, {{"scalar", "1"}},
                                  name + "_next_iter"));
  }
  const Symbol cond_head =
      dyn_cond ? Symbol::CreateVariable(cond_name, formals[1])
               : Symbol::Apply(c.reg, "_ones", {}, {{"shape", "(1,)"}}, name + "_true");
  Nested cond = MakeNested(c, {cond_head}, var_names, "cond");
  Nested func = MakeNested(c, heads, var_names, "body");
  Inputs inputs;
  auto outer = [&](const Nested& nested, size_t v) {
    const int f = nested.formal[v];
    if (f >= 0) return var_outer[static_cast<size_t>(f)];
    // The body's iteration number or condition the loop does not track.
    if (nested.vars[v] == cond_name) return c.NewParam("_cond_true", OneValue(1));
    if (nested.vars[v] == iter_name) c.Unsupported("its body reads the iteration number oddly");
    return Outer(c, b, nested.vars[v]);
  };
  std::vector<int> cond_locs, func_locs, var_locs(var_names.size(), -1);
  for (size_t v = 0; v < cond.vars.size(); ++v) cond_locs.push_back(inputs.Add(outer(cond, v)));
  for (size_t v = 0; v < func.vars.size(); ++v) {
    func_locs.push_back(inputs.Add(outer(func, v)));
    if (func.formal[v] >= 0) var_locs[static_cast<size_t>(func.formal[v])] = static_cast<int>(v);
  }
  for (size_t j = 0; j < var_names.size(); ++j)
    if (var_locs[j] < 0)
      c.Unsupported(StrCat("its body does not read its loop-carried input '", var_names[j],
                           "' (MXNet's _while_loop needs every loop variable read)"));
  const Symbol out =
      ControlFlowNode(c, "_while_loop", inputs,
                      {{"num_args", std::to_string(inputs.entries.size() + 2)},
                       {"num_outputs", std::to_string(static_cast<size_t>(k) + var_names.size())},
                       {"num_out_data", std::to_string(k)},
                       {"max_iterations", std::to_string(trips)},
                       {"cond_input_locs", Locs(cond_locs)},
                       {"func_input_locs", Locs(func_locs)},
                       {"func_var_locs", Locs(var_locs)}},
                      {cond.graph, func.graph});
  for (int i = 0; i < nv; ++i) c.SetOut(i, out[static_cast<size_t>(k + i)]);
  for (int j = 0; j < k; ++j) c.SetOut(nv + j, out[static_cast<size_t>(j)]);
}

}  // namespace

void AddControlFlowConverters(ConverterMap* m) {
  (*m)["If"] = ConvertIf;
  (*m)["Loop"] = ConvertLoop;
  (*m)["Scan"] = ConvertScan;
}

}  // namespace onnx_import
}  // namespace weft
