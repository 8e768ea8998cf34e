// quant::SetCalibTable, QuantizeParams and QuantizeModel: MXNet 1.9.1's
// SetCalibTableToQuantizedGraph pass, _quantize_params and quantize_model
// (python/mxnet/contrib/quantization.py), calibration reading the float32
// layer outputs through an executor bound on the graph's internals.
#include <algorithm>
#include <cstdio>
#include <set>

#include "weft/executor.h"
#include "weft/graph.h"
#include "weft/graph_algorithm.h"
#include "weft/imperative.h"
#include "weft/quantize_model.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace quant {

namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The float32 layer an entry of the quantized graph stands for: its name
// without the "quantized_" prefix of a quantized twin.
std::string LayerName(const NodeEntry& e) {
  std::string name = OutputEntryName(*e.node, e.index);
  const std::string prefix = "quantized_";
  if (e.node->attrs.name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  return name;
}

// Shortest text that reads back as the same float (MXNet writes
// std::to_string's six decimals, which loses small ranges).
std::string FloatText(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
  return buf;
}

NDArray Scalar(Runtime* rt, float v) {
  NDArray a(Shape{1}, Context::CPU(), DType::kFloat32, rt);
  a.CopyFromHost(&v, sizeof(v));
  return a;
}

std::vector<float> HostFloats(const NDArray& a) {
  const NDArray f = a.dtype() == DType::kFloat32 ? a : a.AsType(a.shape(), DType::kFloat32);
  std::vector<float> v(static_cast<size_t>(f.Size()));
  f.CopyToHost(v.data(), v.size() * sizeof(float));
  return v;
}

// Runs the float32 model over `it` and gathers each calibration layer's
// outputs into `stats`; returns the examples read.
int64_t Collect(Runtime* rt, const Symbol& sym, const std::map<std::string, NDArray>& args,
                const std::map<std::string, NDArray>& aux, DataIter* it,
                const std::vector<std::string>& layers, const CalibOptions& o, LayerStats* stats) {
  const std::set<std::string> wanted(layers.begin(), layers.end());
  const Symbol internals = sym.GetInternals();
  const std::vector<std::string> names = internals.ListOutputs();
  std::vector<Symbol> picked;
  std::vector<std::string> picked_names;
  const std::set<std::string> arg_names = [&] {
    const auto a = sym.ListArguments();
    return std::set<std::string>(a.begin(), a.end());
  }();
  for (size_t i = 0; i < names.size(); ++i) {
    if (!wanted.count(names[i]) || arg_names.count(names[i])) continue;
    picked.push_back(internals.GetOutput(i));
    picked_names.push_back(names[i]);
  }
  const std::vector<DataDesc> descs = it->provide_data();
  std::map<std::string, NDArray> bound = args;
  for (const DataDesc& d : descs) bound[d.name] = NDArray(d.shape, Context::CPU(), d.dtype, rt);
  std::unique_ptr<Executor> ex;
  const Symbol group = Symbol::Group(picked);
  if (!picked.empty()) {
    std::map<std::string, NDArray> used;
    for (const std::string& a : group.ListArguments()) {
      auto found = bound.find(a);
      if (found == bound.end())
        Fail(StatusCode::kInvalidArgument, "quantize: calibration needs argument '", a,
             "', which neither the parameters nor the calibration data provide");
      used[a] = found->second;
    }
    ex = Executor::BindByName(rt, group, Context::CPU(), used, {}, {}, aux);
  }
  int64_t examples = 0;
  it->Reset();
  while ((o.num_calib_examples < 0 || examples < o.num_calib_examples) && it->Next()) {
    const DataBatch& b = it->Value();
    for (size_t i = 0; i < descs.size() && i < b.data.size(); ++i) {
      NDArray dst = bound.at(descs[i].name);
      b.data[i].CopyTo(&dst);
      if (wanted.count(descs[i].name)) stats->Collect(descs[i].name, HostFloats(b.data[i]));
    }
    if (ex) {
      ex->Forward(false);
      for (size_t i = 0; i < picked_names.size(); ++i)
        stats->Collect(picked_names[i], HostFloats(ex->outputs()[i]));
    }
    examples += it->batch_size();
  }
  return examples;
}

}  // namespace

Symbol SetCalibTable(const Symbol& qsym, const CalibTable& table) {
  Symbol out;
  out.outputs = CopyGraph(qsym.outputs);
  DFSVisit(out.outputs, [&](const NodePtr& n) {
    if (n->is_variable()) return;
    const std::string& op = n->op()->name;
    NodeEntry e;
    if (op == "_contrib_quantize_v2" || op == "_contrib_requantize")
      e = n->inputs[0];
    else if (op == "_contrib_quantized_batch_norm")
      e = NodeEntry{n, 0, 0};
    else
      return;
    auto it = table.find(LayerName(e));
    if (it == table.end()) return;
    n->attrs.dict["min_calib_range"] = FloatText(it->second.first);
    n->attrs.dict["max_calib_range"] = FloatText(it->second.second);
    n->attrs.params = ParseParams(op, &n->op()->params, n->attrs.dict);
  });
  return out;
}

Symbol FuseRequantize(const Symbol& qsym) {
  Symbol out;
  out.outputs = CopyGraph(qsym.outputs);
  std::map<const Node*, std::vector<const Node*>> readers;
  std::set<const Node*> heads;
  for (const NodePtr& n : TopoOrder(out.outputs))
    for (const NodeEntry& e : n->inputs) readers[e.node.get()].push_back(n.get());
  for (const NodeEntry& e : out.outputs) heads.insert(e.node.get());
  // Entries of a folded requantize (or dequantize) -> the layer's.
  std::map<const Node*, NodePtr> folded;
  auto redirect = [&](NodeEntry* e) {
    auto f = folded.find(e->node.get());
    if (f != folded.end()) e->node = f->second;
  };
  auto assign = [](const NodePtr& n, const std::string& key, const std::string& value) {
    n->attrs.dict[key] = value;
    n->attrs.params = ParseParams(n->op()->name, &n->op()->params, n->attrs.dict);
  };
  DFSVisit(out.outputs, [&](const NodePtr& n) {
    for (NodeEntry& e : n->inputs) redirect(&e);
    if (n->is_variable() || n->op()->name != "_contrib_requantize" ||
        !n->attrs.dict.count("min_calib_range"))
      return;
    const NodePtr& layer = n->inputs[0].node;
    if (layer->is_variable()) return;
    const std::string& op = layer->op()->name;
    if (op != "_sg_mkldnn_conv" && op != "_sg_mkldnn_fully_connected") return;
    const std::vector<const Node*>& next = readers[n.get()];
    const bool to_float =
        op == "_sg_mkldnn_fully_connected" && !heads.count(n.get()) && !next.empty() &&
        std::all_of(next.begin(), next.end(), [&](const Node* r) {
          return r == next[0] && !r->is_variable() && r->op()->name == "_contrib_dequantize";
        });
    if (to_float) {
      // The dequantize's readers read the layer's float32 output 0.
      assign(layer, "enable_float_output", "True");
      folded[next[0]] = layer;
    } else {
      layer->attrs.dict["min_calib_range"] = n->attrs.dict.at("min_calib_range");
      assign(layer, "max_calib_range", n->attrs.dict.at("max_calib_range"));
    }
    folded[n.get()] = layer;
  });
  for (NodeEntry& e : out.outputs) redirect(&e);
  return out;
}

std::map<std::string, NDArray> QuantizeParams(Runtime* rt, const Symbol& qsym,
                                              const std::map<std::string, NDArray>& params) {
  std::map<std::string, NDArray> out;
  for (const std::string& name : qsym.ListArguments()) {
    if (EndsWith(name, "weight_quantize") || EndsWith(name, "bias_quantize")) {
      const std::string orig = name.substr(0, name.size() - std::string("_quantize").size());
      auto it = params.find(orig);
      if (it == params.end())
        Fail(StatusCode::kInvalidArgument, "quantize: parameter '", orig, "' (for '", name,
             "') is missing");
      const std::vector<float> v = HostFloats(it->second);
      float lo = v.empty() ? 0.f : v[0], hi = lo;
      for (float x : v) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
      const std::vector<NDArray> q =
          Invoke(rt, "_contrib_quantize", {it->second, Scalar(rt, lo), Scalar(rt, hi)},
                 {{"out_type", "int8"}});
      out[name] = q[0];
      out[name + "_min"] = q[1];
      out[name + "_max"] = q[2];
    } else if (params.count(name)) {
      out[name] = params.at(name);
    }
  }
  return out;
}

QuantizedModel QuantizeModel(Runtime* rt, const Symbol& sym,
                             const std::map<std::string, NDArray>& args,
                             const std::map<std::string, NDArray>& aux, DataIter* calib_data,
                             const QuantizeOptions& qopts, const CalibOptions& copts) {
  const std::string& mode = copts.calib_mode;
  if (mode != "none" && mode != "naive" && mode != "entropy")
    Fail(StatusCode::kInvalidArgument,
         "quantize: calib_mode must be none, naive or entropy, given '", mode, "'");
  if (mode != "none" && !calib_data)
    Fail(StatusCode::kInvalidArgument, "quantize: calib_mode ", mode, " needs calibration data");
  const bool channel_wise = qopts.fuse && qopts.quantize_granularity == "channel-wise";
  if (channel_wise && mode == "none")
    Fail(StatusCode::kInvalidArgument,
         "quantize: channel-wise fully connected layers need calibration (their per-channel "
         "scales need a calibrated or float32 output), calib_mode is none");
  std::set<std::string> offline;
  for (const auto& [name, arr] : args) offline.insert(name);
  Partitioned parts{sym, {}};
  if (qopts.fuse) parts = PartitionConv(rt->ops(), sym);
  if (channel_wise) {
    // Fully connected chains are plain nodes after PartitionConv: their
    // aliases name the graph as given.
    Partitioned fc = PartitionFullyConnected(rt->ops(), parts.symbol);
    fc.alias.insert(parts.alias.begin(), parts.alias.end());
    parts = std::move(fc);
  }
  const QuantizedSymbol qs = QuantizeSymbol(rt->ops(), parts.symbol, offline, qopts);
  QuantizedModel m;
  m.symbol = qs.symbol;
  m.calib_layers = qs.calib_layers;
  if (mode != "none") {
    // Calibration reads the float32 graph as given: a fused node's output
    // under the name of its chain's last layer.
    auto alias = [&](const std::string& name) {
      auto it = parts.alias.find(name);
      return it == parts.alias.end() ? name : it->second;
    };
    std::vector<std::string> layers;
    for (const std::string& l : qs.calib_layers) layers.push_back(alias(l));
    LayerStats stats;
    m.calib_examples = Collect(rt, sym, args, aux, calib_data, layers, copts, &stats);
    const CalibTable found =
        mode == "naive" ? stats.MinMax() : stats.Entropy(qopts.quantized_dtype);
    for (const std::string& l : qs.calib_layers) {
      auto it = found.find(alias(l));
      if (it != found.end()) m.table[l] = it->second;
    }
    m.symbol = SetCalibTable(qs.symbol, m.table);
    if (qopts.fuse) m.symbol = FuseRequantize(m.symbol);
  }
  // Each parameter where the quantized graph reads it (a BatchNorm's moving
  // statistics stay auxiliary states).
  std::map<std::string, NDArray> all = args;
  all.insert(aux.begin(), aux.end());
  m.args = QuantizeParams(rt, m.symbol, all);
  for (const std::string& name : m.symbol.ListAuxiliaryStates())
    if (aux.count(name)) m.aux[name] = aux.at(name);
  return m;
}

}  // namespace quant
}  // namespace weft
