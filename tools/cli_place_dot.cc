// `weft place --dot`: the placed graph (weft_symbol_place_device_graph) as a
// Graphviz digraph, one fill colour per device, copies drawn as ellipses.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_place.h"
#include "cli_util.h"

namespace weft_cli {
namespace {

// Light fills that stay readable with black labels; cycled past eight devices.
constexpr const char* kPalette[] = {"#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6",
                                    "#fb9a99", "#ffff99", "#8dd3c7", "#bebada"};

// `text` as a quoted DOT string, newlines as DOT line breaks.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";  // a line break in the label
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

void PrintPlacementDot(const std::string& json_text) {
  const nlohmann::json graph = nlohmann::json::parse(json_text);
  const nlohmann::json& nodes = graph.at("nodes");
  std::map<std::string, const char*> colour;
  std::printf("digraph placement {\n  node [shape=box, style=filled, fontname=\"Helvetica\"];\n");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const nlohmann::json& n = nodes[i];
    const std::string op = n.at("op").get<std::string>();
    std::string dev = "?";
    if (n.contains("attrs") && n["attrs"].contains("__device__"))
      dev = n["attrs"]["__device__"].get<std::string>();
    if (!colour.count(dev))
      colour[dev] = kPalette[colour.size() % (sizeof(kPalette) / sizeof(kPalette[0]))];
    const std::string label =
        n.at("name").get<std::string>() + "\n" + (op == "null" ? "variable" : op) + "\n" + dev;
    std::printf("  n%zu [label=%s, fillcolor=%s%s];\n", i, Quoted(label).c_str(),
                Quoted(colour[dev]).c_str(),
                op == "_CrossDeviceCopy" ? ", shape=ellipse"
                : op == "null"           ? ", shape=note"
                                         : "");
    for (const nlohmann::json& in : n.at("inputs"))
      std::printf("  n%zu -> n%zu;\n", in.at(0).get<size_t>(), i);
  }
  std::printf("  subgraph cluster_legend {\n    label=\"devices\";\n");
  size_t k = 0;
  for (const auto& [dev, fill] : colour)
    std::printf("    legend%zu [label=%s, fillcolor=%s];\n", k++, Quoted(dev).c_str(),
                Quoted(fill).c_str());
  std::printf("  }\n}\n");
}

}  // namespace weft_cli
