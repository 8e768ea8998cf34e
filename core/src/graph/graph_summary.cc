// Summarize / FormatSummary (weft/graph_report.h): MXNet's print_summary
// with FLOPs and activation bytes.
#include <cmath>
#include <cstdio>
#include <set>

#include "graph/graph_report_internal.h"
#include "weft/graph_report.h"

namespace weft {

namespace {

// 2 x multiply-adds of the GEMM-like operators, from their shapes.
int64_t GemmFlops(const std::string& op, const std::vector<Shape>& in, const Shape& out) {
  if (in.size() < 2 || !in[0].is_known() || !in[1].is_known() || !out.is_known()) return 0;
  const Shape& w = in[1];
  int64_t per_out = 1;  // multiply-adds per output element
  if (op == "Convolution" || op == "FullyConnected") {
    for (int i = 1; i < w.ndim(); ++i) per_out *= w[i];
    if (op == "FullyConnected") per_out = w[1];
    return 2 * out.Size() * per_out + (in.size() > 2 ? out.Size() : 0);
  }
  if (op == "Deconvolution") {  // every input element scatters into C_out/g x kernel outputs
    for (int i = 1; i < w.ndim(); ++i) per_out *= w[i];
    return 2 * in[0].Size() * per_out + (in.size() > 2 ? out.Size() : 0);
  }
  // dot / batch_dot: lhs * rhs = batch^2 * M * N * K^2 and out = batch * M * N.
  int64_t batch = 1;
  for (int i = 0; i + 2 < out.ndim(); ++i) batch *= out[i];
  const double k2 = static_cast<double>(in[0].Size()) * static_cast<double>(in[1].Size()) /
                    (static_cast<double>(out.Size()) * static_cast<double>(batch));
  return 2 * out.Size() * static_cast<int64_t>(std::llround(std::sqrt(k2)));
}

// An input rather than a learned argument: given a shape, or named as
// MXNet names data and labels.
bool IsInput(const std::string& name, const pass::ShapeMap& shapes) {
  auto ends = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return shapes.count(name) || ends("data") || ends("label");
}

bool IsGemm(const std::string& op) {
  return op == "Convolution" || op == "Deconvolution" || op == "FullyConnected" || op == "dot" ||
         op == "batch_dot";
}

}  // namespace

SymbolSummary Summarize(const Symbol& sym, const pass::ShapeMap& shapes,
                        const pass::DTypeMap& dtypes) {
  const report::Inferred inf = report::Infer(sym, shapes, dtypes);
  const IndexedGraph& g = *inf.g;
  SymbolSummary s;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    const uint32_t e0 = g.entry_id(nid, 0);
    if (node.is_variable()) {
      const Shape& shp = inf.shapes.shapes[e0];
      if (inf.aux.count(node.attrs.name)) s.aux_elements += shp.is_known() ? shp.Size() : 0;
      if (shapes.count(node.attrs.name))  // an input: a layer of its own, as MXNet prints it
        s.layers.push_back({node.attrs.name, "null", shp, 0, {}, 0, 0});
      continue;
    }
    LayerSummary l;
    l.name = node.attrs.name;
    l.op = node.op()->name;
    l.out_shape = inf.shapes.shapes[e0];
    std::vector<Shape> in_shapes;
    for (const auto& in : g[nid].inputs) {
      const Node& src = g.node(in.node_id);
      const Shape& shp = inf.shapes.shapes[g.entry_id(in)];
      in_shapes.push_back(shp);
      if (!src.is_variable() || shapes.count(src.attrs.name))
        l.previous.push_back(src.attrs.name);
      else if (IsInput(src.attrs.name, shapes))
        continue;
      else if (!inf.aux.count(src.attrs.name))
        l.params += shp.is_known() ? shp.Size() : 0;
    }
    for (uint32_t o = 0; o < node.num_outputs(); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      const DType t = inf.types.dtypes[e];
      if (inf.shapes.shapes[e].is_known() && t != DType::kUnknown)
        l.activation_bytes += inf.shapes.shapes[e].Size() * static_cast<int64_t>(DTypeSize(t));
    }
    l.flops = IsGemm(l.op) ? GemmFlops(l.op, in_shapes, l.out_shape)
                           : (l.out_shape.is_known() ? l.out_shape.Size() : 0);
    s.total_params += l.params;
    s.total_flops += l.flops;
    s.activation_bytes += l.activation_bytes;
    s.layers.push_back(std::move(l));
  }
  return s;
}

std::string FormatSummary(const SymbolSummary& s) {
  const std::string rule(132, '_'), dbl(132, '=');
  std::string out = rule + "\n";
  char line[512];
  std::snprintf(line, sizeof(line), "%-44s %-20s %12s  %-30s %10s %12s\n", "Layer (type)",
                "Output Shape", "Param #", "Previous Layer", "FLOPs", "Act. bytes");
  out += line + dbl + "\n";
  for (size_t i = 0; i < s.layers.size(); ++i) {
    const LayerSummary& l = s.layers[i];
    const std::string first = l.previous.empty() ? "" : l.previous[0];
    std::snprintf(line, sizeof(line), "%-44s %-20s %12lld  %-30s %10s %12lld\n",
                  (l.name + "(" + (l.op == "null" ? "null" : l.op) + ")").c_str(),
                  report::ShapeText(l.out_shape).c_str(), static_cast<long long>(l.params),
                  first.c_str(), report::Compact(l.flops).c_str(),
                  static_cast<long long>(l.activation_bytes));
    out += line;
    for (size_t k = 1; k < l.previous.size(); ++k) {
      std::snprintf(line, sizeof(line), "%-44s %-20s %12s  %-30s\n", "", "", "",
                    l.previous[k].c_str());
      out += line;
    }
    out += (i + 1 == s.layers.size() ? dbl : rule) + "\n";
  }
  out += "Total params: " + std::to_string(s.total_params) + "\n";
  out += "Auxiliary state elements: " + std::to_string(s.aux_elements) + "\n";
  out += "Total FLOPs: " + std::to_string(s.total_flops) + " (" + report::Compact(s.total_flops) +
         ")\n";
  out += "Activation bytes: " + std::to_string(s.activation_bytes) + "\n";
  return out + rule + "\n";
}

}  // namespace weft
