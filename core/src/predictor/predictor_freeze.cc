// FreezeModel and SelectOutputs (predictor_freeze.h).
#include "predictor/predictor_freeze.h"

#include <algorithm>

#include "executor/executor_impl.h"
#include "pass/rewrite.h"
#include "weft/dynamic_shape.h"
#include "weft/executor.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {

namespace {

std::string FirstNames(const std::vector<std::string>& names, size_t n = 8) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < n; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > n) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}

// The copies of the weights `symbol` needs, on `ctx`.
void CopyWeights(const Symbol& symbol, const ParamMaps& params, const std::set<std::string>& inputs,
                 Context ctx, bool copy, FrozenModel* m) {
  auto take = [&](const NDArray& a) { return copy || a.ctx() != ctx ? a.Copy(ctx) : a; };
  for (const std::string& name : symbol.ListArguments()) {
    if (inputs.count(name) || m->args.count(name)) continue;
    auto it = params.args.find(name);
    if (it == params.args.end() || it->second.is_none())
      Fail(StatusCode::kInvalidArgument, "predictor: weight '", name,
           "' is missing from the parameters (no 'arg:", name,
           "'); give it, or name it as an input");
    m->args[name] = take(it->second);
  }
  for (const std::string& name : symbol.ListAuxiliaryStates()) {
    auto it = params.aux.find(name);
    if (it == params.aux.end() || it->second.is_none())
      Fail(StatusCode::kInvalidArgument, "predictor: auxiliary state '", name,
           "' is missing from the parameters (no 'aux:", name, "')");
    m->aux[name] = take(it->second);
  }
}

// `constant` without the operators of data-dependent output shape and what
// reads them: those run with the inputs, node by node (dynamic_model.h); no
// executor could compute them once.
std::vector<bool> KeepDynamicLive(const IndexedGraph& idx, std::vector<bool> constant) {
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    if (idx.node(nid).is_variable()) continue;
    if (FindDynamicShapeOp(idx.node(nid).op()->name)) constant[nid] = false;
    for (const auto& in : idx[nid].inputs) constant[nid] = constant[nid] && constant[in.node_id];
  }
  return constant;
}

}  // namespace

Symbol SelectOutputs(const Symbol& symbol, const std::vector<std::string>& names) {
  if (names.empty()) return symbol;
  const Symbol internals = symbol.GetInternals();
  const std::vector<std::string> all = internals.ListOutputs();
  std::vector<Symbol> picked;
  for (const std::string& name : names) {
    auto it = std::find(all.begin(), all.end(), name);
    if (it == all.end()) it = std::find(all.begin(), all.end(), name + "_output");
    if (it == all.end()) {
      const std::vector<std::string> inputs = symbol.ListInputs();
      std::vector<std::string> ops;  // the op nodes' outputs
      for (const std::string& n : all)
        if (std::find(inputs.begin(), inputs.end(), n) == inputs.end()) ops.push_back(n);
      Fail(StatusCode::kInvalidArgument, "predictor: output '", name,
           "' is not an output of any node (outputs: ", FirstNames(symbol.ListOutputs()),
           "; internal outputs: ", FirstNames(ops, 24), ")");
    }
    picked.push_back(internals.GetOutput(static_cast<size_t>(it - all.begin())));
  }
  return picked.size() == 1 ? picked[0] : Symbol::Group(picked);
}

FrozenModel FreezeModel(const Symbol& symbol, const ParamMaps& params,
                        const std::set<std::string>& inputs, Context ctx, bool copy, Runtime* rt) {
  Runtime& runtime = *rt;
  const std::vector<std::string> arg_names = symbol.ListArguments();
  for (const std::string& in : inputs)
    if (std::find(arg_names.begin(), arg_names.end(), in) == arg_names.end())
      Fail(StatusCode::kInvalidArgument, "predictor: input '", in,
           "' is no argument of the symbol (arguments: ", FirstNames(arg_names, 16), ")");
  FrozenModel m;
  CopyWeights(symbol, params, inputs, ctx, copy, &m);

  const Graph g = OptimizeInference(runtime.ops(), runtime.kernels(), ctx.dev_type,
                                    Graph{symbol.outputs}, &m.passes);
  const IndexedGraph idx(g);
  std::vector<bool> constant(idx.num_nodes(), false);
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid)
    if (idx.node(nid).is_variable()) constant[nid] = inputs.count(idx.node(nid).attrs.name) == 0;
  constant = KeepDynamicLive(idx, PropagateConstants(idx, std::move(constant)));

  // Entries of constant op nodes that the rest of the graph reads.
  std::set<uint32_t> boundary;
  auto constant_op = [&](uint32_t nid) { return constant[nid] && !idx.node(nid).is_variable(); };
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid) {
    if (constant_op(nid)) ++m.frozen_nodes;
    if (constant[nid]) continue;
    for (const auto& in : idx[nid].inputs)
      if (constant_op(in.node_id)) boundary.insert(idx.entry_id(in));
  }
  for (const auto& out : idx.outputs())
    if (constant_op(out.node_id)) boundary.insert(idx.entry_id(out));
  if (boundary.empty()) {
    m.symbol.outputs = g.outputs;
    return m;
  }

  // Compute them once.
  Symbol part;
  for (uint32_t eid : boundary) {
    const auto e = idx.entry(eid);
    part.outputs.push_back(NodeEntry{idx[e.node_id].node, e.index, 0});
  }
  // (A rewrite may read a former aux state as an argument: _bn_fold reads
  // the moving statistics.)
  auto weight = [&](const std::string& name) {
    auto it = m.args.find(name);
    return it != m.args.end() ? it->second : m.aux.at(name);
  };
  std::map<std::string, NDArray> part_args, part_aux;
  for (const std::string& name : part.ListArguments()) part_args[name] = weight(name);
  for (const std::string& name : part.ListAuxiliaryStates()) part_aux[name] = weight(name);
  ExecutorOptions once;
  once.optimize_inference = false;
  auto ex = Executor::BindByName(&runtime, part, ctx, part_args, {}, {}, part_aux, once);
  ex->Forward(false);

  std::set<std::string> taken(arg_names.begin(), arg_names.end());
  std::map<uint32_t, NodeEntry> replacement;
  size_t k = 0;
  for (uint32_t eid : boundary) {
    const auto e = idx.entry(eid);
    std::string name = StrCat(idx.node(e.node_id).attrs.name, "_frozen", e.index);
    while (taken.count(name)) name += "_";
    taken.insert(name);
    m.args[name] =
        ex->outputs()[k++];  // its own block (outputs are never reused); kept after `ex` goes
    replacement[eid] = Symbol::CreateVariable(name).outputs[0];
  }
  for (auto& [name, array] : m.args) array.WaitToRead();
  for (auto& [name, array] : m.aux) array.WaitToRead();

  pass::RewriteResult r =
      pass::RewriteGraph(g, [&](const NodePtr& node, const std::vector<NodeEntry>&) {
        std::vector<NodeEntry> out;
        const uint32_t nid = idx.node_id(node.get());
        if (!constant[nid]) return out;
        for (uint32_t o = 0; o < node->num_outputs(); ++o) {
          auto it = replacement.find(idx.entry_id(nid, o));
          out.push_back(it != replacement.end() ? it->second : NodeEntry{node, o, 0});
        }
        return out;
      });
  m.symbol.outputs = r.graph.outputs;
  // Keep only what the frozen graph binds.
  std::map<std::string, NDArray> args, aux;
  for (const std::string& name : m.symbol.ListArguments())
    if (!inputs.count(name)) args[name] = weight(name);
  for (const std::string& name : m.symbol.ListAuxiliaryStates()) aux[name] = weight(name);
  m.args = std::move(args);
  m.aux = std::move(aux);
  return m;
}

}  // namespace weft
