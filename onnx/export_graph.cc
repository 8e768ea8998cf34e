// ONNX export, the graph walk: inference of shapes and types, graph inputs
// and initializers, one converter per node (every failing node collected),
// graph outputs, then the ModelProto (weft/onnx_export.h).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "export_context.h"
#include "export_fold.h"
#include "model_proto_io.h"
#include "weft/graph.h"
#include "weft/onnx_export.h"
#include "weft/pass.h"
#include "weft/status.h"

namespace weft {

namespace {

using onnx_export::ExportNode;

// Loss layers whose input 1 is a label that inference does not read.
bool IsLabelSlot(const Node& n, size_t input) {
  static const std::set<std::string> kLoss = {"SoftmaxOutput", "LinearRegressionOutput",
                                              "LogisticRegressionOutput", "MAERegressionOutput",
                                              "SVMOutput"};
  return input == 1 && !n.is_variable() && kLoss.count(n.op()->name) != 0;
}

// The IR version ONNX pairs with each opset (onnx/helper.py's table).
int64_t IrVersion(int opset) { return opset <= 11 ? 6 : opset <= 14 ? 7 : 8; }

void SetValueInfo(onnx::ValueInfoProto* v, const std::string& name, DType t, const Shape& s,
                  bool dynamic_batch) {
  v->set_name(name);
  onnx::TypeProto_Tensor* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_export::OnnxElemType(t));
  onnx::TensorShapeProto* sp = tt->mutable_shape();
  for (int i = 0; i < s.ndim(); ++i) {
    onnx::TensorShapeProto_Dimension* d = sp->add_dim();
    if (i == 0 && dynamic_batch)
      d->set_dim_param("batch");
    else if (s[i] > 0)
      d->set_dim_value(s[i]);
  }
}

struct Walk {
  const IndexedGraph& g;
  const pass::ShapeResult& shapes;
  const pass::TypeResult& types;
  std::vector<std::string> names;  // ONNX name of every entry
  std::vector<bool> needed;        // nodes inference reads (labels are not)
  std::vector<bool> used;          // entries some node or output reads
};

std::vector<bool> UsedEntries(const IndexedGraph& g) {
  std::vector<bool> used(g.num_node_entries(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid)
    for (const auto& e : g[nid].inputs) used[g.entry_id(e)] = true;
  for (const auto& o : g.outputs()) used[g.entry_id(o)] = true;
  return used;
}

// The nodes inference needs: reachable from the outputs without passing
// through a loss layer's label input. Variables only labels read (and the
// nodes computing labels) are left out.
std::vector<bool> NeededNodes(const IndexedGraph& g) {
  std::vector<bool> needed(g.num_nodes(), false);
  for (const auto& o : g.outputs()) needed[o.node_id] = true;
  for (uint32_t nid = static_cast<uint32_t>(g.num_nodes()); nid-- > 0;) {
    if (!needed[nid]) continue;
    const auto& in = g[nid].inputs;
    for (size_t i = 0; i < in.size(); ++i)
      if (!IsLabelSlot(g.node(nid), i)) needed[in[i].node_id] = true;
  }
  return needed;
}

ExportNode MakeExportNode(const Walk& w, uint32_t nid) {
  ExportNode n;
  n.node = &w.g.node(nid);
  for (const auto& e : w.g[nid].inputs) {
    const uint32_t eid = w.g.entry_id(e);
    n.inputs.push_back(w.names[eid]);
    n.in_shapes.push_back(w.shapes.shapes[eid]);
    n.in_types.push_back(w.types.dtypes[eid]);
  }
  for (uint32_t i = 0; i < n.node->num_outputs(); ++i) {
    const uint32_t eid = w.g.entry_id(nid, i);
    n.outputs.push_back(w.names[eid]);
    n.out_shapes.push_back(w.shapes.shapes[eid]);
    n.out_types.push_back(w.types.dtypes[eid]);
    n.out_used.push_back(w.used[eid]);
  }
  return n;
}

// Converts node `nid`; returns an issue's reason, empty on success.
std::string ConvertNode(onnx_export::Context& cx, const Walk& w, uint32_t nid) {
  const ExportNode n = MakeExportNode(w, nid);
  for (size_t i = 0; i < n.in_shapes.size(); ++i) {
    if (IsLabelSlot(*n.node, i)) continue;
    if (!n.in_shapes[i].is_known())
      return "the shape of input " + std::to_string(i) + " ('" + n.inputs[i] + "') is unknown";
  }
  try {
    if (onnx_export::TryFold(cx, n)) return "";
    const onnx_export::Converter f = onnx_export::FindConverter(*n.node->op());
    if (!f) return "no ONNX conversion for this operator";
    f(cx, n);
  } catch (const onnx_export::Unsupported& u) {
    return u.reason;
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Removes the initializers no node or output reads.
void PruneInitializers(onnx::GraphProto* graph) {
  std::set<std::string> read;
  for (const auto& n : graph->node())
    for (const auto& i : n.input()) read.insert(i);
  for (const auto& o : graph->output()) read.insert(o.name());
  auto* inits = graph->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i)
    if (!read.count(inits->Get(i).name())) inits->DeleteSubrange(i, 1);
}

// Shape and type inference with the data inputs' shapes and the parameters'.
void Infer(const IndexedGraph& g, const std::map<std::string, NDArray>& params,
           const OnnxExportOptions& opts, pass::ShapeResult* shapes, pass::TypeResult* types) {
  pass::ShapeMap in_shapes = opts.input_shapes;
  pass::DTypeMap in_types;
  std::set<std::string> vars;
  for (uint32_t nid : g.input_nodes()) vars.insert(g.node(nid).attrs.name);
  for (const auto& [name, a] : params) {
    if (!vars.count(name)) continue;  // unused parameters are ignored
    in_shapes[name] = a.shape();
    in_types[name] = a.dtype();
  }
  for (uint32_t nid : g.input_nodes()) {  // data inputs without a __dtype__ hint: float32
    const NodeAttrs& a = g.node(nid).attrs;
    if (!params.count(a.name) && !a.dict.count("__dtype__")) in_types[a.name] = DType::kFloat32;
  }
  *shapes = pass::InferShape(g, in_shapes);
  *types = pass::InferType(g, in_types);
}

std::string FormatIssues(const std::vector<OnnxExportIssue>& issues) {
  std::ostringstream s;
  s << "ONNX export: " << issues.size() << (issues.size() == 1 ? " node" : " nodes")
    << " cannot be exported:";
  for (const auto& i : issues) s << "\n  " << FormatOnnxIssue(i);
  return s.str();
}

// Names every entry, adds graph inputs and parameter initializers.
void AddInputs(onnx_export::Context& cx, Walk& w, const std::map<std::string, NDArray>& params,
               onnx::GraphProto* graph, OnnxExportResult* r) {
  const IndexedGraph& g = w.g;
  std::vector<std::string> unknown;
  for (uint32_t nid : g.input_nodes()) {
    const std::string& name = g.node(nid).attrs.name;
    const uint32_t eid = g.entry_id(nid, 0);
    w.names[eid] = name;
    cx.Reserve(name);
    if (!w.needed[nid]) continue;
    auto p = params.find(name);
    if (p != params.end()) {
      cx.AddArray(name, p->second);
      continue;
    }
    const Shape& s = w.shapes.shapes[eid];
    if (!s.is_known()) unknown.push_back(name + " " + s.ToString());
    DType t = w.types.dtypes[eid] == DType::kUnknown ? DType::kFloat32 : w.types.dtypes[eid];
    SetValueInfo(graph->add_input(), name, t, s, cx.options().dynamic_batch);
    r->inputs.push_back(name);
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& u : unknown) list += (list.empty() ? "" : ", ") + u;
    Fail(StatusCode::kInvalidArgument, "ONNX export: the shapes of the inputs ", list,
         " are not known: give them (input_shapes, weft export --shape NAME=DIMS)");
  }
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g.node(nid).is_variable()) continue;
    for (uint32_t i = 0; i < g.node(nid).num_outputs(); ++i)
      w.names[g.entry_id(nid, i)] = cx.Fresh(g.entry_name(g.entry_id(nid, i)));
  }
}

}  // namespace

std::string FormatOnnxIssue(const OnnxExportIssue& issue) {
  return "op '" + issue.op + "' node '" + issue.node + "': " + issue.reason;
}

OnnxExportResult ExportOnnx(const Symbol& sym, const std::map<std::string, NDArray>& args,
                            const std::map<std::string, NDArray>& aux,
                            const OnnxExportOptions& opts) {
  if (opts.opset < kOnnxExportMinOpset || opts.opset > kOnnxExportMaxOpset)
    Fail(StatusCode::kInvalidArgument, "ONNX export: opset ", opts.opset, " is not supported (",
         kOnnxExportMinOpset, " to ", kOnnxExportMaxOpset, ")");
  if (sym.outputs.empty()) Fail(StatusCode::kInvalidArgument, "ONNX export: the symbol is empty");
  std::map<std::string, NDArray> params = args;
  for (const auto& [k, v] : aux) params[k] = v;
  const IndexedGraph g(sym.outputs);
  pass::ShapeResult shapes;
  pass::TypeResult types;
  Infer(g, params, opts, &shapes, &types);

  onnx::ModelProto model;
  onnx::GraphProto* graph = model.mutable_graph();
  onnx_export::Context cx(graph, opts);
  cx.SetParams(params);
  Walk w{g,
         shapes,
         types,
         std::vector<std::string>(g.num_node_entries()),
         NeededNodes(g),
         UsedEntries(g)};
  OnnxExportResult r;
  AddInputs(cx, w, params, graph, &r);

  std::vector<OnnxExportIssue> issues;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = g.node(nid);
    if (node.is_variable() || !w.needed[nid]) continue;
    std::string why = ConvertNode(cx, w, nid);
    if (!why.empty()) issues.push_back({node.op()->name, node.attrs.name, why});
  }
  if (!issues.empty()) Fail(StatusCode::kNotImplemented, FormatIssues(issues));

  for (const auto& o : g.outputs()) {
    const uint32_t eid = g.entry_id(o);
    DType t = types.dtypes[eid] == DType::kUnknown ? DType::kFloat32 : types.dtypes[eid];
    SetValueInfo(graph->add_output(), w.names[eid], t, shapes.shapes[eid], opts.dynamic_batch);
    r.outputs.push_back(w.names[eid]);
  }
  PruneInitializers(graph);
  graph->set_name(sym.GetName().value_or("weft"));
  model.set_ir_version(IrVersion(opts.opset));
  model.set_producer_name("weft");
  model.set_producer_version(WEFT_VERSION_STRING);
  onnx::OperatorSetIdProto* op = model.add_opset_import();
  op->set_domain("");
  op->set_version(opts.opset);
  r.num_nodes = static_cast<size_t>(graph->node_size());
  r.notes = cx.notes();
  if (!model.SerializeToString(&r.model))
    Fail(StatusCode::kInvalidArgument, "ONNX export: the model is over protobuf's 2 GiB limit");
  return r;
}

OnnxExportResult ExportOnnxFile(const Symbol& sym, const std::map<std::string, NDArray>& args,
                                const std::map<std::string, NDArray>& aux,
                                const OnnxExportOptions& opts, const std::string& path) {
  OnnxExportResult r = ExportOnnx(sym, args, aux, opts);
  onnx::ModelProto model = onnx_io::ParseModel(r.model.data(), r.model.size(), "<export>");
  onnx_io::WriteModel(model, path);
  return r;
}

}  // namespace weft
