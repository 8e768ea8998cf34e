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

}  // namespace

std::string SaveJSON(const Symbol& sym, int mxnet_version) {
  Json root = GraphJson(sym.outputs);
  root["attrs"] = Json::object({{"mxnet_version", Json::array({"int", mxnet_version})}});
  return root.dump(2);
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
