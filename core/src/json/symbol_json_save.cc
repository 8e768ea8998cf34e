// SaveJSON: the MXNet 1.x symbol JSON of a Symbol, nodes in IndexedGraph order.
#include <fstream>

#include <nlohmann/json.hpp>

#include "weft/graph.h"
#include "weft/status.h"
#include "weft/symbol_json.h"

namespace weft {

namespace {

using Json = nlohmann::ordered_json;  // keeps MXNet's key order

// The graph object of `outputs` as nnvm writes it (nodes, arg_nodes,
// node_row_ptr, heads); a node's subgraphs nested under "subgraphs".
Json GraphJson(const std::vector<NodeEntry>& outputs) {
  IndexedGraph g(outputs);
  auto entry = [](const IndexedGraph::EntryRef& e) {
    return Json::array({e.node_id, e.index, e.version});
  };
  Json nodes = Json::array();
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    Json jn = Json::object();
    jn["op"] = n.is_variable() ? std::string("null") : n.op()->name;
    jn["name"] = n.attrs.name;
    if (!n.attrs.dict.empty()) {
      Json attrs = Json::object();
      for (const auto& kv : n.attrs.dict) attrs[kv.first] = kv.second;
      jn["attrs"] = std::move(attrs);
    }
    Json inputs = Json::array();
    for (const auto& e : g[nid].inputs) inputs.push_back(entry(e));
    jn["inputs"] = std::move(inputs);
    if (!g[nid].control_deps.empty()) jn["control_deps"] = g[nid].control_deps;
    if (!n.attrs.subgraphs.empty()) {
      Json subs = Json::array();
      for (const auto& sub : n.attrs.subgraphs) subs.push_back(GraphJson(sub->outputs));
      jn["subgraphs"] = std::move(subs);
    }
    nodes.push_back(std::move(jn));
  }
  Json heads = Json::array();
  for (const auto& e : g.outputs()) heads.push_back(entry(e));
  Json root = Json::object();
  root["nodes"] = std::move(nodes);
  root["arg_nodes"] = g.input_nodes();
  root["node_row_ptr"] = g.row_ptr();
  root["heads"] = std::move(heads);
  return root;
}

// Where `outputs` holds a string JSON cannot carry (not UTF-8): the node and
// the field, for the error message; empty when there is none.
std::string NonUtf8Field(const std::vector<NodeEntry>& outputs) {
  IndexedGraph g(outputs);
  auto bad = [](const std::string& s) {
    try {
      (void)Json(s).dump();
      return false;
    } catch (const Json::type_error&) {
      return true;
    }
  };
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    const std::string at = "node " + std::to_string(nid);
    if (bad(n.attrs.name)) return at + "'s name";
    for (const auto& [key, value] : n.attrs.dict) {
      if (bad(key)) return at + " (" + Json(n.attrs.name).dump() + ")'s attribute name";
      if (bad(value)) return at + " (" + Json(n.attrs.name).dump() + ")'s attribute '" + key + "'";
    }
    for (const auto& sub : n.attrs.subgraphs) {
      const std::string inner = NonUtf8Field(sub->outputs);
      if (!inner.empty()) return inner + " in a subgraph of " + at;
    }
  }
  return "";
}

}  // namespace

std::string SaveJSON(const Symbol& sym, int mxnet_version) {
  Json root = GraphJson(sym.outputs);
  root["attrs"] = Json::object({{"mxnet_version", Json::array({"int", mxnet_version})}});
  try {
    return root.dump(2);
  } catch (const Json::type_error&) {
    Fail(StatusCode::kInvalidArgument, "SaveJSON: ", NonUtf8Field(sym.outputs),
         " is not valid UTF-8 (MXNet's symbol JSON is UTF-8 text)");
  }
}

void SaveJSONFile(const Symbol& sym, const std::string& path, int mxnet_version) {
  std::string text = SaveJSON(sym, mxnet_version);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) Fail(StatusCode::kIO, "cannot open '", path, "' for writing");
  out << text << "\n";
  out.close();
  if (!out) Fail(StatusCode::kIO, "cannot write symbol file '", path, "'");
}

}  // namespace weft
