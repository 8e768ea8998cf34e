// The oneDNN subgraph operators' nested graphs checked against their
// parameters, and the input names the parameters give (subgraph_ops.h).
#include <algorithm>

#include "op/subgraph_ops.h"
#include "weft/status.h"

namespace weft {
namespace op {

namespace {

// One link of a fused chain: the ops it may be, and whether the flags ask
// for it.
struct Link {
  std::vector<std::string> ops;
  bool present;
};

const std::vector<std::string> kConvActs = {"Activation", "LeakyReLU", "clip"};
const std::vector<std::string> kFCEltwise = {"Activation", "LeakyReLU", "square", "sqrt",
                                             "exp",        "abs",       "clip"};

const char* B(bool b) { return b ? "true" : "false"; }

struct ConvFlags {
  bool bn, act, sum, postsum_act;
  int64_t n;
};

ConvFlags ConvFlagsOf(const ParamValues& p) {
  return {p.GetBool("with_bn"), p.GetBool("with_act") || p.GetBool("with_relu"),
          p.GetBool("with_sum"), p.GetBool("with_postsum_act") || p.GetBool("with_postsum_relu"),
          p.GetInt("num_args")};
}

std::string Describe(const std::vector<Link>& links) {
  std::string s;
  for (const Link& l : links) {
    if (!l.present) continue;
    std::string alts;
    for (const auto& op : l.ops) alts += (alts.empty() ? "" : "|") + op;
    s += (s.empty() ? "" : " -> ") + alts;
  }
  return s;
}

// Checks that `g` is the chain `links` describes: its op nodes, in order,
// each reading the previous one's output 0 as input 0 and only variables
// otherwise. Returns the op node ids.
std::vector<uint32_t> CheckChain(const Node& node, const IndexedGraph& g,
                                 const std::vector<Link>& links, const std::string& flags) {
  std::vector<uint32_t> ops;
  std::string found;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g.node(nid).is_variable()) continue;
    ops.push_back(nid);
    found += (found.empty() ? "" : " -> ") + g.node(nid).op()->name;
  }
  std::vector<const Link*> want;
  for (const Link& l : links)
    if (l.present) want.push_back(&l);
  bool same = ops.size() == want.size();
  for (size_t k = 0; same && k < ops.size(); ++k) {
    const auto& alts = want[k]->ops;
    same = std::find(alts.begin(), alts.end(), g.node(ops[k]).op()->name) != alts.end();
  }
  if (!same)
    Fail(StatusCode::kInvalidArgument, SubgraphLabel(node.attrs), ": its subgraph computes (",
         found, ") but its parameters (", flags, ") describe (", Describe(links), ")");
  for (size_t k = 0; k < ops.size(); ++k) {
    const auto& inputs = g[ops[k]].inputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool chained = k > 0 && i == 0;
      const bool ok = chained ? inputs[i].node_id == ops[k - 1] && inputs[i].index == 0
                              : g.node(inputs[i].node_id).is_variable();
      if (!ok)
        Fail(StatusCode::kInvalidArgument, SubgraphLabel(node.attrs), ": in its subgraph, input ",
             i, " of node '", g.node(ops[k]).attrs.name, "' must be ",
             chained ? "the output of the node before it" : "a variable (an outer input)");
    }
  }
  if (g.outputs().size() != 1 || g.outputs()[0].node_id != ops.back())
    Fail(StatusCode::kInvalidArgument, SubgraphLabel(node.attrs),
         ": its subgraph must have one head, the last node of the chain; it has ",
         g.outputs().size(), " heads");
  return ops;
}

// int8 fully connected layers fuse no sum (MXNet 1.9.1's do not).
void CheckNoQuantizedSum(const Node& node) {
  const ParamValues& p = node.attrs.params;
  if (p.GetBool("quantized") && p.GetBool("with_sum"))
    Fail(StatusCode::kNotImplemented, SubgraphLabel(node.attrs),
         ": quantized=true with with_sum=true: an int8 fully connected layer fuses no sum");
}

// The subgraph's variables must be the node's `want` inputs (num_args).
void CheckCount(const Node& node, const IndexedGraph& g, int64_t want, const std::string& list) {
  const int64_t vars = static_cast<int64_t>(g.input_nodes().size());
  const int64_t n = node.attrs.params.GetInt("num_args");
  if (vars != want || n != want)
    Fail(StatusCode::kInvalidArgument, SubgraphLabel(node.attrs), ": takes ", want, " inputs (",
         list, "), but its subgraph reads ", vars, " variables and num_args = ", n);
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// `names` when it has `n` entries, else input0..input<n-1>.
std::vector<std::string> NamesOrGeneric(std::vector<std::string> names, int64_t n) {
  if (static_cast<int64_t>(names.size()) == n) return names;
  names.clear();
  for (int64_t i = 0; i < n; ++i) names.push_back(StrCat("input", i));
  return names;
}

}  // namespace

std::vector<std::string> SgConvInputNames(const ParamValues& p) {
  const ConvFlags f = ConvFlagsOf(p);
  std::vector<std::string> names = {"data", "weight"};
  if (f.n - 2 - (f.bn ? 4 : 0) - (f.sum ? 1 : 0) == 1) names.push_back("bias");
  if (f.bn) names.insert(names.end(), {"gamma", "beta", "mean", "var"});
  if (f.sum) names.push_back("sum");
  names = NamesOrGeneric(names, f.n);
  if (p.GetBool("quantized")) names.insert(names.end(), {"data_min", "data_max"});
  if (p.GetBool("quantized") && f.sum) names.insert(names.end(), {"sum_min", "sum_max"});
  return names;
}

std::vector<int> ConvMutateInputs(const ParamValues& p) {
  const ConvFlags f = ConvFlagsOf(p);
  const int end = static_cast<int>(f.n) - (f.sum ? 1 : 0);
  if (!f.bn || end < 6) return {};
  return {end - 2, end - 1};
}

std::vector<std::string> FCInputNames(const ParamValues& p) {
  const int64_t n = p.GetInt("num_args");
  const bool sum = p.GetBool("with_sum");
  std::vector<std::string> names = {"data", "weight"};
  if (n - 2 - (sum ? 1 : 0) == 1) names.push_back("bias");
  if (sum) names.push_back("sum");
  names = NamesOrGeneric(names, n);
  if (!p.GetBool("quantized")) return names;
  const bool channel_wise =
      !p.IsNone("channel_wise_quantize") && p.GetBool("channel_wise_quantize");
  names.insert(names.end(), {"min_data", "max_data"});
  if (!channel_wise) names.insert(names.end(), {"min_weight", "max_weight"});
  if (!channel_wise && n == 3) names.insert(names.end(), {"min_bias", "max_bias"});
  return names;
}

void CheckConvSubgraph(const Node& node) {
  const ConvFlags f = ConvFlagsOf(node.attrs.params);
  const IndexedGraph g(*SingleSubgraph(node.attrs));
  const std::string flags =
      StrCat("with_bn=", B(f.bn), ", with_act=", B(f.act), ", with_sum=", B(f.sum),
             ", with_postsum_act=", B(f.postsum_act));
  const std::vector<uint32_t> ops = CheckChain(node, g,
                                               {{{"Convolution"}, true},
                                                {{"BatchNorm"}, f.bn},
                                                {kConvActs, f.act},
                                                {{"elemwise_add"}, f.sum},
                                                {kConvActs, f.postsum_act}},
                                               flags);
  const Node& conv = g.node(ops[0]);
  const bool bias = !conv.attrs.params.GetBool("no_bias");
  const int64_t want = 2 + (bias ? 1 : 0) + (f.bn ? 4 : 0) + (f.sum ? 1 : 0);
  std::vector<std::string> names = {"data", "weight"};
  if (bias) names.push_back("bias");
  if (f.bn) names.insert(names.end(), {"gamma", "beta", "mean", "var"});
  if (f.sum) names.push_back("sum");
  CheckCount(node, g, want, Join(names));
}

void CheckFCSubgraph(const Node& node) {
  CheckNoQuantizedSum(node);
  const ParamValues& p = node.attrs.params;
  const bool eltwise = p.GetBool("with_eltwise"), sum = p.GetBool("with_sum");
  const IndexedGraph g(*SingleSubgraph(node.attrs));
  const std::vector<uint32_t> ops = CheckChain(
      node, g, {{{"FullyConnected"}, true}, {kFCEltwise, eltwise}, {{"elemwise_add"}, sum}},
      StrCat("with_eltwise=", B(eltwise), ", with_sum=", B(sum)));
  const bool bias = !g.node(ops[0]).attrs.params.GetBool("no_bias");
  std::vector<std::string> names = {"data", "weight"};
  if (bias) names.push_back("bias");
  if (sum) names.push_back("sum");
  CheckCount(node, g, static_cast<int64_t>(names.size()), Join(names));
}

}  // namespace op
}  // namespace weft
