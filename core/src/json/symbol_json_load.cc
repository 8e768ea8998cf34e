// LoadJSON: RawGraph -> nodes, MXNet's legacy upgrades, semantic checks.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "io/byte_io.h"
#include "json_raw.h"
#include "weft/control_flow.h"
#include "weft/graph_algorithm.h"
#include "weft/status.h"
#include "weft/symbol_json.h"

namespace weft {

using json_internal::RawGraph;
using json_internal::RawNode;

namespace {

template <typename... Args>
[[noreturn]] void Bad(const Args&... args) {
  Fail(StatusCode::kInvalidArgument, "symbol JSON: ", args...);
}

// Breaks every edge on destruction unless released, so that a rejected graph
// (possibly cyclic) is freed.
class EdgeGuard {
 public:
  explicit EdgeGuard(std::vector<NodePtr>* nodes) : nodes_(nodes) {}
  ~EdgeGuard() {
    if (!nodes_) return;
    for (NodePtr& n : *nodes_) {
      n->inputs.clear();
      n->control_deps.clear();
    }
  }
  void Release() { nodes_ = nullptr; }

 private:
  std::vector<NodePtr>* nodes_;
};

struct Loader {
  const RawGraph& raw;
  const OpRegistry& reg;
  // "" for the document, "node 3 'sg' subgraph 0: " for a nested graph.
  std::string prefix;
  std::vector<NodePtr> nodes;
  std::unordered_map<const Node*, size_t> index;
  bool upgraded = false;

  std::string Where(const Node& n) const {
    auto it = index.find(&n);
    std::string id = it == index.end() ? std::string("(added)") : std::to_string(it->second);
    if (n.is_variable()) return StrCat(prefix, "node ", id, " '", n.attrs.name, "'");
    return StrCat(prefix, "node ", id, " '", n.attrs.name, "' (", n.op()->name, ")");
  }

  // Two variables with one name would be two arrays that a checkpoint (keyed
  // by name) cannot tell apart, e.g. two layers both named "fc".
  void CheckUniqueVariables(const std::vector<NodePtr>& order) const {
    std::unordered_map<std::string, const Node*> seen;
    for (const NodePtr& n : order) {
      if (!n->is_variable()) continue;
      auto [it, fresh] = seen.emplace(n->attrs.name, n.get());
      if (!fresh)
        Bad("two variables are named '", n->attrs.name, "': ", Where(*it->second), " and ",
            Where(*n), " (argument names must be unique; are two layers named alike?)");
    }
  }

  // Parses the parameters and checks the arity: inputs beyond the op's
  // count are an error, and so are missing ones unless `allow_missing` (the
  // files before 0.9.0 did not store auxiliary states; at most kMaxMissing).
  void Parse(Node* n, bool allow_missing) const {
    if (n->is_variable()) return;
    int nin = 0, nout = 0;
    try {  // the counts too: a Custom node's come from its registered type
      n->attrs.params = ParseParams(n->op()->name, &n->op()->params, ParamDict(*n));
      nin = n->op()->NumInputs(n->attrs.params);
      nout = n->op()->NumOutputs(n->attrs.params);
    } catch (const Error& e) {
      Bad(Where(*n), ": ", e.what());
    }
    if (nin < 0 || nout < 0 || nout > kMaxOutputs)
      Bad(Where(*n), ": parameters ", AttrList(*n), " give ", nin, " inputs and ", nout,
          " outputs (neither may be negative, and at most ", kMaxOutputs, " outputs)");
    size_t have = n->inputs.size(), want = static_cast<size_t>(nin);
    if (have > want || (have < want && (!allow_missing || want - have > kMaxMissing)))
      Bad(Where(*n), " has ", have, " inputs, the operator takes ", want, InputList(*n, want));
  }

  // The node's attributes; a subgraph operator's variadic input count
  // (num_args), when absent, is its subgraph's variable count (MXNet's
  // DefaultSubgraphOpNumInputs; a control-flow operator's must be given).
  static StringMap ParamDict(const Node& n) {
    const std::string& key = n.op()->key_var_num_args;
    if (n.attrs.subgraphs.empty() || key.empty() || n.attrs.dict.count(key) ||
        IsControlFlowOp(n.op()))
      return n.attrs.dict;
    StringMap dict = n.attrs.dict;
    dict[key] = std::to_string(IndexedGraph(*n.attrs.subgraphs[0]).input_nodes().size());
    return dict;
  }

  // A node with subgraphs must be of a subgraph operator, whose check passes.
  void CheckSubgraphs(const Node& n) const {
    if (n.is_variable() || (n.attrs.subgraphs.empty() && !n.op()->check_subgraphs)) return;
    if (!n.op()->check_subgraphs)
      Bad(Where(n), ": operator '", n.op()->name, "' takes no subgraphs, but the node has ",
          n.attrs.subgraphs.size());
    try {
      n.op()->check_subgraphs(n);
    } catch (const Error& e) {
      Fail(e.code(), "symbol JSON: ", prefix, e.what());
    }
  }

  static constexpr size_t kMaxMissing = 16;
  static constexpr int kMaxOutputs = 1 << 16;

  // "(num_outputs=100000, axis=1)": the node's attributes, the first 8, each
  // value cut at 32 characters (a count out of range names what gave it).
  static std::string AttrList(const Node& n) {
    std::string out = "(";
    size_t i = 0;
    for (const auto& [key, value] : n.attrs.dict) {
      if (i == 8) {
        out += ", ...";
        break;
      }
      out += StrCat(i++ ? ", " : "", key, "=",
                    value.size() > 32 ? value.substr(0, 32) + "..." : value);
    }
    return out + ")";
  }

  // " (data, weight, bias)" for ops with few inputs, else "".
  static std::string InputList(const Node& n, size_t want) {
    if (want > 64) return "";
    std::string names;
    for (const auto& s : n.op()->InputNames(n.attrs.params))
      names += (names.empty() ? "" : ", ") + s;
    return " (" + names + ")";
  }

  // MXNet's UpgradeJSON_FixParsing: hidden keys become __key__, and
  // "<input>_<key>" moves onto that input's variable as __key__.
  void FixHiddenKeys(Node* n, bool allow_missing) {
    auto matches = [](const std::string& key, const std::string& hk) {
      size_t pos = key.rfind(hk);
      return pos == 0 || (pos != std::string::npos && pos + hk.size() == key.size());
    };
    std::vector<std::pair<std::string, std::string>> hidden;
    for (auto it = n->attrs.dict.begin(); it != n->attrs.dict.end();) {
      bool is_hidden = false;
      for (const auto& hk : HiddenKeys()) is_hidden = is_hidden || matches(it->first, hk);
      if (!is_hidden) {
        ++it;
        continue;
      }
      hidden.push_back(*it);
      it = n->attrs.dict.erase(it);
    }
    Parse(n, allow_missing);
    for (const auto& kv : hidden) {
      bool moved = false;
      for (const auto& hk : HiddenKeys()) {
        size_t pos = kv.first.rfind(hk);
        if (pos == 0 && hk.size() == kv.first.size()) {
          n->attrs.dict["__" + hk + "__"] = kv.second;
          moved = true;
          break;
        }
        if (pos == std::string::npos || pos <= 1 || pos + hk.size() != kv.first.size()) continue;
        if (n->is_variable()) break;
        std::vector<std::string> names = n->op()->InputNames(n->attrs.params);
        auto at = std::find(names.begin(), names.end(), kv.first.substr(0, pos - 1));
        size_t i = static_cast<size_t>(at - names.begin());
        if (at != names.end() && i < n->inputs.size() && n->inputs[i].node->is_variable()) {
          n->inputs[i].node->attrs.dict["__" + hk + "__"] = kv.second;
          moved = true;
        }
        break;
      }
      if (!moved) n->attrs.dict[kv.first] = kv.second;
      if (moved) upgraded = true;
    }
  }

  // MXNet's UpgradeJSON_000800_000900: inputs missing at the end (auxiliary
  // states were not saved before 0.9.0) become variables "<node>_<input>".
  void AddMissingInputs(Node* n) {
    size_t want = static_cast<size_t>(n->op()->NumInputs(n->attrs.params));
    if (n->inputs.size() >= want) return;
    std::vector<std::string> names = n->op()->InputNames(n->attrs.params);
    for (size_t i = n->inputs.size(); i < want; ++i) {
      std::string arg = i < names.size() ? names[i] : StrCat("input", i);
      NodePtr var = MakeVariable(n->attrs.name.empty() ? arg : n->attrs.name + "_" + arg);
      var->attrs.dict = n->attrs.dict;
      n->inputs.push_back(NodeEntry{var, 0, 0});
    }
    upgraded = true;
  }

  void CheckNode(const Node& n) const {
    if (!n.is_variable()) {
      size_t want = static_cast<size_t>(n.op()->NumInputs(n.attrs.params));
      if (n.inputs.size() != want)
        Bad(Where(n), " has ", n.inputs.size(), " inputs, the operator takes ", want,
            InputList(n, want));
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const NodeEntry& e = n.inputs[i];
      if (e.index >= e.node->num_outputs())
        Bad(Where(n), " input ", i, " reads output ", e.index, " of ", Where(*e.node),
            ", which has ", e.node->num_outputs(), " outputs");
    }
  }
};

JsonGeneration GenerationOf(const RawGraph& raw) {
  bool param = false, attr = false, attrs = false;
  for (const RawNode& n : raw.nodes) {
    param = param || n.has_param;
    attr = attr || n.has_attr;
    attrs = attrs || n.has_attrs;
  }
  if (param) return JsonGeneration::kMXNet08;
  if (attr) return JsonGeneration::kMXNet09;
  if (attrs || raw.mxnet_version >= 10000) return JsonGeneration::kMXNet1;
  return raw.mxnet_version >= 900 ? JsonGeneration::kMXNet09 : JsonGeneration::kMXNet08;
}

// Throws Error(kNotFound) listing every unregistered operator with the
// nodes (id and name) that use it, at most 3 per operator.
[[noreturn]] void FailUnknownOps(const RawGraph& raw, const std::string& prefix,
                                 const std::map<std::string, std::vector<size_t>>& unknown) {
  std::string msg;
  for (const auto& [op, ids] : unknown) {
    msg += StrCat(msg.empty() ? "" : "; ", "operator '", op, "' (used by ");
    for (size_t k = 0; k < ids.size() && k < 3; ++k)
      msg += StrCat(k ? ", " : "", "node ", ids[k], " '", raw.nodes[ids[k]].name, "'");
    if (ids.size() > 3) msg += StrCat(" and ", ids.size() - 3, " more nodes");
    msg += ")";
  }
  Fail(StatusCode::kNotFound, "symbol JSON: ", prefix,
       unknown.size() == 1 ? "an operator is" : "operators are", " not registered: ", msg);
}

}  // namespace

const char* JsonGenerationName(JsonGeneration g) {
  switch (g) {
    case JsonGeneration::kMXNet08:
      return "0.8";
    case JsonGeneration::kMXNet09:
      return "0.9";
    case JsonGeneration::kMXNet1:
      return "1.x";
  }
  return "?";
}

namespace {

std::vector<NodeEntry> LoadGraph(const RawGraph& raw, const OpRegistry& reg,
                                 const std::string& prefix, bool* upgraded);

// The nodes of `raw` without edges; subgraphs loaded (after every operator
// is known to exist).
void MakeNodes(Loader* ld) {
  const RawGraph& raw = ld->raw;
  std::map<std::string, std::vector<size_t>> unknown;  // op -> node ids using it
  for (size_t i = 0; i < raw.nodes.size(); ++i) {
    const RawNode& r = raw.nodes[i];
    auto n = std::make_shared<Node>();
    n->attrs.name = r.name;
    n->attrs.dict = r.dict;
    const std::string where = StrCat(ld->prefix, "node ", i, " '", r.name, "'");
    if (r.op == "null") {
      if (r.name.empty())
        Bad(ld->prefix, "node ", i, " is a variable (op \"null\") with an empty name");
      if (!r.inputs.empty() || !r.control_deps.empty() || !r.subgraphs.empty())
        Bad(where, " is a variable (op \"null\") but has inputs or subgraphs");
    } else {
      n->attrs.op = ld->reg.Find(r.op);
      if (!n->attrs.op && !r.subgraphs.empty())
        Fail(StatusCode::kNotImplemented, "symbol JSON: ", where, " uses operator '", r.op,
             "' with subgraphs, which Weft does not run (it runs the oneDNN subgraphs of "
             "_sg_mkldnn_conv and _sg_mkldnn_fully_connected, and the control flow of "
             "_foreach, _while_loop and _cond)");
      if (!n->attrs.op) unknown[r.op].push_back(i);
    }
    ld->index[n.get()] = i;
    ld->nodes.push_back(std::move(n));
  }
  if (!unknown.empty()) FailUnknownOps(raw, ld->prefix, unknown);
  for (size_t i = 0; i < raw.nodes.size(); ++i)
    for (size_t k = 0; k < raw.nodes[i].subgraphs.size(); ++k) {
      const std::string sub =
          StrCat(ld->prefix, "node ", i, " '", raw.nodes[i].name, "' subgraph ", k, ": ");
      ld->nodes[i]->attrs.subgraphs.push_back(std::make_shared<const Graph>(
          Graph{LoadGraph(raw.nodes[i].subgraphs[k], ld->reg, sub, &ld->upgraded)}));
    }
}

// Edges, arg_nodes and heads of `raw` on the loader's nodes; no cycles.
std::vector<NodeEntry> LinkNodes(Loader* ld) {
  const RawGraph& raw = ld->raw;
  for (size_t i = 0; i < raw.nodes.size(); ++i) {
    for (const auto& e : raw.nodes[i].inputs)
      ld->nodes[i]->inputs.push_back(NodeEntry{ld->nodes[e.node], e.index, e.version});
    for (uint32_t d : raw.nodes[i].control_deps) ld->nodes[i]->control_deps.push_back(ld->nodes[d]);
  }
  for (uint32_t a : raw.arg_nodes)
    if (!ld->nodes[a]->is_variable())
      Bad(ld->prefix, "arg_nodes lists node ", a, " '", ld->nodes[a]->attrs.name,
          "', which is not a variable");
  std::vector<NodeEntry> heads;
  for (const auto& h : raw.heads) heads.push_back(NodeEntry{ld->nodes[h.node], h.index, h.version});
  std::vector<NodeEntry> all;
  for (const NodePtr& n : ld->nodes) all.push_back(NodeEntry{n, 0, 0});
  try {
    DFSVisit(all, [](const NodePtr&) {});
  } catch (const Error& e) {
    Bad(ld->prefix, e.what());
  }
  return heads;
}

// Parameters, legacy upgrades and structure checks of the nodes `heads`
// reach, in topological order.
void CheckNodes(Loader* ld, const std::vector<NodeEntry>& heads,
                const std::vector<NodePtr>& order) {
  const int version = ld->raw.mxnet_version;
  for (const NodePtr& n : order) {
    if (version < kMXNetVersion)
      ld->FixHiddenKeys(n.get(), version < 900);
    else
      ld->Parse(n.get(), false);
  }
  if (version < 900)
    for (const NodePtr& n : order)
      if (!n->is_variable()) ld->AddMissingInputs(n.get());
  for (const NodePtr& n : order) {
    ld->CheckNode(*n);
    ld->CheckSubgraphs(*n);
  }
  ld->CheckUniqueVariables(order);
  for (size_t i = 0; i < heads.size(); ++i)
    if (heads[i].index >= heads[i].node->num_outputs())
      Bad(ld->prefix, "heads[", i, "] reads output ", heads[i].index, " of ",
          ld->Where(*heads[i].node), ", which has ", heads[i].node->num_outputs(), " outputs");
}

// The graph of `raw` (the document or a subgraph, whose messages start
// with `prefix`): its heads.
std::vector<NodeEntry> LoadGraph(const RawGraph& raw, const OpRegistry& reg,
                                 const std::string& prefix, bool* upgraded) {
  Loader ld{raw, reg, prefix, {}, {}, false};
  EdgeGuard guard(&ld.nodes);
  MakeNodes(&ld);
  std::vector<NodeEntry> heads = LinkNodes(&ld);
  std::vector<NodePtr> order = TopoOrder(heads);
  CheckNodes(&ld, heads, order);
  guard.Release();
  // Nodes not reachable from the heads are dropped; break their edges.
  std::unordered_map<const Node*, bool> reachable;
  for (const NodePtr& n : order) reachable[n.get()] = true;
  for (NodePtr& n : ld.nodes) {
    if (reachable.count(n.get())) continue;
    n->inputs.clear();
    n->control_deps.clear();
  }
  *upgraded = *upgraded || ld.upgraded;
  return heads;
}

}  // namespace

LoadedSymbol LoadJSON(const std::string& text, const OpRegistry& reg) {
  RawGraph raw = json_internal::ReadRawGraph(text);
  LoadedSymbol out;
  out.symbol.outputs = LoadGraph(raw, reg, "", &out.upgraded);
  out.mxnet_version = raw.mxnet_version;
  out.has_version = raw.has_version;
  out.generation = GenerationOf(raw);
  return out;
}

LoadedSymbol LoadJSONFile(const std::string& path, const OpRegistry& reg) {
  io::CheckReadableFile(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(StatusCode::kIO, "cannot open symbol file '", path, "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) Fail(StatusCode::kIO, "cannot read symbol file '", path, "'");
  try {
    return LoadJSON(ss.str(), reg);
  } catch (const Error& e) {
    Fail(e.code(), path, ": ", e.what());
  }
}

}  // namespace weft
