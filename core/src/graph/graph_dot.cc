// ToDot (weft/graph_report.h): MXNet's plot_network as Graphviz DOT, with
// shapes and dtypes on the edges and, optionally, the memory plan's blocks
// as node colours; and the inference both reports share.
#include <cstdio>

#include "graph/graph_report_internal.h"
#include "weft/graph_report.h"
#include "weft/status.h"

namespace weft {

namespace report {

Inferred Infer(const Symbol& sym, const pass::ShapeMap& shapes, const pass::DTypeMap& dtypes) {
  Inferred r;
  r.g = std::make_unique<IndexedGraph>(sym.outputs);
  r.shapes = pass::InferShape(*r.g, shapes);
  pass::DTypeMap types = dtypes;
  for (const auto& kv : shapes) types.emplace(kv.first, DType::kFloat32);
  r.types = pass::InferType(*r.g, types);
  for (const std::string& a : sym.ListAuxiliaryStates()) r.aux.insert(a);
  return r;
}

std::string ShapeText(const Shape& s) {
  if (!s.is_known()) return "?";
  std::string t;
  for (int i = s.ndim() > 1 ? 1 : 0; i < s.ndim(); ++i)
    t += (t.empty() ? "" : "x") + std::to_string(s[i]);
  return t.empty() ? "scalar" : t;
}

std::string Compact(int64_t n) {
  char buf[32];
  const double v = static_cast<double>(n);
  if (n >= 1000000000)
    std::snprintf(buf, sizeof(buf), "%.2fG", v / 1e9);
  else if (n >= 1000000)
    std::snprintf(buf, sizeof(buf), "%.2fM", v / 1e6);
  else if (n >= 1000)
    std::snprintf(buf, sizeof(buf), "%.2fK", v / 1e3);
  else
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(n));
  return buf;
}

}  // namespace report

namespace {

// MXNet plot_network's fill colours by operator.
const char* FillOf(const std::string& op) {
  if (op == "null") return "#8dd3c7";
  if (op == "Convolution" || op == "FullyConnected" || op == "Deconvolution") return "#fb8072";
  if (op == "BatchNorm") return "#bebada";
  if (op == "Activation" || op == "LeakyReLU") return "#ffffb3";
  if (op == "Pooling") return "#80b1d3";
  if (op == "Concat" || op == "Flatten" || op == "Reshape") return "#fdb462";
  if (op == "SoftmaxOutput" || op == "softmax") return "#b3de69";
  return "#fccde5";
}

// A palette for memory blocks (cycled).
constexpr const char* kBlocks[] = {"#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99",
                                   "#ffff99", "#1f78b4", "#33a02c", "#e31a1c", "#ff7f00"};

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool IsWeight(const std::string& name, const std::set<std::string>& aux,
              const pass::ShapeMap& inputs) {
  return !inputs.count(name) || aux.count(name);
}

}  // namespace

std::string ToDot(const Symbol& sym, const pass::ShapeMap& shapes, const DotOptions& o,
                  const pass::DTypeMap& dtypes) {
  const report::Inferred inf = report::Infer(sym, shapes, dtypes);
  const IndexedGraph& g = *inf.g;
  pass::MemoryPlan plan;
  if (o.memory)
    plan = pass::PlanMemory(g, inf.shapes, inf.types);  // throws naming an unknown entry
  std::string out =
      "digraph " + Quoted(o.title) + " {\n  node [shape=box, style=\"rounded,filled\"";
  for (const auto& [k, v] : o.node_attrs) out += ", " + k + "=" + Quoted(v);
  out += "];\n";
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    const std::string op = node.is_variable() ? "null" : node.op()->name;
    if (op == "null" && o.hide_weights && IsWeight(node.attrs.name, inf.aux, shapes)) continue;
    std::string label = op == "null" ? node.attrs.name : op + "\n" + node.attrs.name;
    std::string fill = FillOf(op);
    if (o.memory && op != "null") {
      const int sid = plan.storage_id[g.entry_id(nid, 0)];
      label += sid >= 0 ? "\nblock " + std::to_string(sid) : "\n(external)";
      if (sid >= 0) fill = kBlocks[static_cast<size_t>(sid) % (sizeof(kBlocks) / sizeof(*kBlocks))];
    }
    out += "  n" + std::to_string(nid) + " [label=" + Quoted(label) +
           ", fillcolor=" + Quoted(fill) + (op == "null" ? ", shape=oval" : "") + "];\n";
  }
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    for (const auto& in : g[nid].inputs) {
      const Node& src = g.node(in.node_id);
      if (src.is_variable() && o.hide_weights && IsWeight(src.attrs.name, inf.aux, shapes))
        continue;
      std::string attrs = "dir=back";  // MXNet draws arrows from the output to the input
      const uint32_t e = g.entry_id(in);
      if (o.shapes) {
        std::string text = report::ShapeText(inf.shapes.shapes[e]);
        const DType t = inf.types.dtypes[e];
        if (t != DType::kFloat32 && t != DType::kUnknown) text += " " + std::string(DTypeName(t));
        attrs += ", label=" + Quoted(text);
      }
      out += "  n" + std::to_string(nid) + " -> n" + std::to_string(in.node_id) + " [" + attrs +
             "];\n";
    }
  }
  return out + "}\n";
}

}  // namespace weft
