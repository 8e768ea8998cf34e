// Inference optimisation at bind: the graph passes and the constant steps.
#include <cstdlib>
#include <string>

#include "executor/executor_impl.h"
#include "weft/status.h"

namespace weft {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Whether WEFT_EXEC_SKIP_PASSES (comma-separated pass names) names `pass`.
bool Skipped(const std::string& pass) {
  const char* env = std::getenv("WEFT_EXEC_SKIP_PASSES");
  if (!env) return false;
  const std::string list = std::string(",") + env + ",";
  return list.find("," + pass + ",") != std::string::npos;
}

}  // namespace

// Names MXNet gives learned parameters (Gluon's and the symbol API's
// suffixes): such a variable stays constant when an op reads it at a
// data-like input, as Gluon's RNN layers Reshape each weight before
// _rnn_param_concat.
bool IsParameterName(const std::string& name) {
  static const char* const kSuffixes[] = {"_weight",     "_bias",        "_gamma",     "_beta",
                                          "_parameters", "_moving_mean", "_moving_var"};
  for (const char* s : kSuffixes)
    if (EndsWith(name, s)) return true;
  return false;
}

namespace {

// The switch `var`: `unset` when unset or empty, else "0" or "1".
bool EnvSwitch(const char* var, bool unset) {
  const char* env = std::getenv(var);
  if (!env || !*env) return unset;
  const std::string v(env);
  if (v == "0") return false;
  if (v == "1") return true;
  Fail(StatusCode::kInvalidArgument, var, " is '", v, "', expected 0 or 1");
}

}  // namespace

bool ResolveOptimizeInference(bool option) {
  return option && EnvSwitch("WEFT_EXEC_OPTIMIZE", true);
}

bool ResolveCudaGraphs() { return EnvSwitch("WEFT_CUDA_GRAPHS", false); }

Graph OptimizeInference(const OpRegistry& reg, const KernelRegistry& kernels, DeviceType dev,
                        const Graph& forward, std::vector<std::string>* applied) {
  // Subgraph operators first (a no-op after BuildGraph; the predictor's
  // FreezeModel comes here straight from the symbol).
  Graph g = pass::ExpandSubgraphs(reg, forward).graph;
  // Keeps a pass's result when it changed the graph, noting "<pass> (<n> nodes<detail>)".
  auto take = [&](const char* name, pass::RewriteResult r, const std::string& detail) {
    if (r.changes == 0) return;
    applied->push_back(
        StrCat(name, " (", r.changes, " node", r.changes == 1 ? "" : "s", detail, ")"));
    g = std::move(r.graph);
  };
  struct Pass {
    const char* name;
    pass::RewriteResult (*fn)(const OpRegistry&, const Graph&);
    const char* needs;  // the op it creates, or null
  };
  for (const Pass& p :
       {Pass{"SimplifyInference", pass::SimplifyInference, nullptr},
        Pass{"FoldBatchNorm", pass::FoldBatchNorm, "_bn_fold"},
        Pass{"FuseConvActivation", pass::FuseConvActivation, "_fused_Convolution"},
        Pass{"FuseDenseActivation", pass::FuseDenseActivation, "_fused_FullyConnected"},
        Pass{"FuseElemwiseChains", pass::FuseElemwiseChains, "_fused_elemwise"}}) {
    if ((p.needs && !kernels.Find(p.needs, dev)) || Skipped(p.name)) continue;
    take(p.name, p.fn(reg, g), "");
  }
  // Channels-last int8 between fused convolutions where oneDNN runs them.
  const Kernel* int8_conv = kernels.Find("_sg_mkldnn_conv", dev);
  const Kernel* int8_pool = kernels.Find("_contrib_quantized_pooling", dev);
  if (int8_conv && int8_conv->backend == "dnnl" && !Skipped("Int8ChannelsLast"))
    take("Int8ChannelsLast",
         pass::Int8ChannelsLast(reg, g, int8_pool && int8_pool->backend == "dnnl"), "");
  // Blocked layouts where the convolution kernel asks for them.
  const Kernel* conv = kernels.Find("_fused_Convolution", dev);
  if (conv && conv->channel_block > 0 && kernels.Find("_layout_block", dev) &&
      !Skipped("BlockConvLayouts"))
    take("BlockConvLayouts", pass::BlockConvLayouts(reg, g, conv->channel_block),
         StrCat(", block ", conv->channel_block));
  return g;
}

std::vector<bool> ConstantNodes(const IndexedGraph& g, const std::vector<bool>& is_aux) {
  // Variables read at a data-like input of some op.
  std::vector<bool> read_as_data(g.num_nodes(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable()) continue;
    const OpDef& op = *node.op();
    std::vector<std::string> names;
    if (op.input_names) names = op.input_names(node.attrs.params);
    for (size_t i = 0; i < g[nid].inputs.size(); ++i) {
      const std::string name = i < names.size() ? names[i] : "data";
      const bool data_like = name.rfind("data", 0) == 0 || name.rfind("arg", 0) == 0 ||
                             name == "lhs" || name == "rhs" || name == "label";
      if (data_like) read_as_data[g[nid].inputs[i].node_id] = true;
    }
  }
  std::vector<bool> constant(g.num_nodes(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (!node.is_variable()) continue;
    const std::string& name = node.attrs.name;
    constant[nid] = is_aux[nid] || IsParameterName(name) ||
                    !(read_as_data[nid] || EndsWith(name, "data") || EndsWith(name, "label"));
  }
  return PropagateConstants(g, std::move(constant));
}

std::vector<bool> PropagateConstants(const IndexedGraph& g, std::vector<bool> constant) {
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable()) continue;
    constant[nid] = false;
    const OpDef& op = *node.op();
    if (op.uses_rng || (op.mutate_inputs && !op.mutate_inputs(node.attrs.params).empty())) continue;
    bool all = !g[nid].inputs.empty();
    for (const auto& in : g[nid].inputs) all = all && constant[in.node_id];
    constant[nid] = all;
  }
  return constant;
}

}  // namespace weft
