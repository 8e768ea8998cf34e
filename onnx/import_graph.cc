// ONNX import (onnx_import.h): opset checks, the checker, ONNX's shape
// inference, initializers and inputs, the walk over the nodes, and the
// arg/aux split of the parameters.
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "import_context.h"
#include "import_fuse.h"
#include "model_proto_io.h"
#include "weft/onnx_import.h"
#include "weft/status.h"

namespace weft {
namespace {

using onnx_import::ImportContext;

constexpr int kMinOpset = 7, kMaxOpset = 18;

bool IsDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// The default domain's opset; Error for a missing or unsupported one.
int CheckOpset(const onnx::ModelProto& m, const std::string& what) {
  int opset = -1;
  for (const auto& o : m.opset_import())
    if (IsDefaultDomain(o.domain())) opset = static_cast<int>(o.version());
  if (opset < 0)
    Fail(StatusCode::kInvalidArgument, what,
         ": the model imports no opset of the default ONNX domain");
  if (opset < kMinOpset || opset > kMaxOpset)
    Fail(StatusCode::kInvalidArgument, what, ": opset ", opset,
         " of the default ONNX domain is not supported (Weft imports opsets ", kMinOpset, "-",
         kMaxOpset, ")");
  return opset;
}

std::string NodeLabel(const onnx::NodeProto& n, int index) {
  return (n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'") + " (" +
         (IsDefaultDomain(n.domain()) ? "" : n.domain() + ".") + n.op_type() + ")";
}

// The nodes of `g` and of the graphs nested in its nodes (If, Loop, Scan)
// that the importer cannot convert.
void ListUnsupported(const onnx::GraphProto& g, const onnx_import::ConverterMap& conv,
                     std::vector<std::string>* bad) {
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    const bool known = conv.count(n.op_type()) || onnx_import::FoldableOps().count(n.op_type());
    if (!IsDefaultDomain(n.domain()) || !known) bad->push_back(NodeLabel(n, i));
    for (const auto& a : n.attribute()) {
      if (a.has_g()) ListUnsupported(a.g(), conv, bad);
      for (const auto& sub : a.graphs()) ListUnsupported(sub, conv, bad);
    }
  }
}

// One error listing every node the importer cannot convert.
void CheckSupported(const onnx::GraphProto& g, const onnx_import::ConverterMap& conv,
                    const std::string& what) {
  std::vector<std::string> bad;
  ListUnsupported(g, conv, &bad);
  if (bad.empty()) return;
  std::string list;
  for (const auto& b : bad) list += (list.empty() ? "" : ", ") + b;
  Fail(StatusCode::kNotImplemented, what, ": ", bad.size(),
       " node(s) use operators Weft cannot import: ", list);
}

// True when `s` is well-formed UTF-8 without NUL characters (onnx.proto is
// proto2: protobuf does not check its strings, and names end up in the
// symbol's JSON, which refuses NULs).
bool IsUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80           ? 1
                       : (c >> 5) == 0x6  ? 2
                       : (c >> 4) == 0xe  ? 3
                       : (c >> 3) == 0x1e ? 4
                                          : 0;
    if (c == 0 || len == 0 || i + len > s.size() || (len > 1 && c < 0xc2)) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += len;
  }
  return true;
}

// Every name the symbol will carry must be UTF-8.
void CheckNames(const onnx::GraphProto& g, const std::string& what) {
  auto check = [&](const std::string& name, const char* role) {
    if (!IsUtf8(name))
      Fail(StatusCode::kInvalidArgument, what, ": a ", role,
           " name is not valid UTF-8 or holds a NUL character");
  };
  for (const auto& v : g.input()) check(v.name(), "graph input");
  for (const auto& v : g.output()) check(v.name(), "graph output");
  for (const auto& t : g.initializer()) check(t.name(), "initializer");
  for (const auto& n : g.node()) {
    check(n.name(), "node");
    for (const auto& in : n.input()) check(in, "node input");
    for (const auto& out : n.output()) check(out, "node output");
  }
}

// Every node input must be a graph input, an initializer or an earlier
// node's output.
void CheckInputsDefined(const onnx::GraphProto& g, const std::string& what) {
  std::set<std::string> defined;
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in))
        Fail(StatusCode::kInvalidArgument, what, ": node ", NodeLabel(n, i), " reads '", in,
             "', which is no graph input, initializer or earlier node's output (a missing "
             "initializer?)");
    for (const auto& out : n.output()) defined.insert(out);
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name()))
      Fail(StatusCode::kInvalidArgument, what, ": graph output '", o.name(), "' is never computed");
}

// The caller's shapes replace graph inputs' ONNX shapes; a name that is an
// initializer (a value the caller overrides) is left alone.
void SetInputShapes(onnx::GraphProto* g, const OnnxImportOptions& options,
                    const std::string& what) {
  std::set<std::string> inits;
  for (const auto& t : g->initializer()) inits.insert(t.name());
  for (const auto& [name, shape] : options.input_shapes) {
    if (inits.count(name)) continue;
    onnx::ValueInfoProto* v = nullptr;
    for (auto& in : *g->mutable_input())
      if (in.name() == name) v = &in;
    if (!v)
      Fail(StatusCode::kInvalidArgument, what, ": the model has no input '", name,
           "' to give the shape ", shape.ToString());
    auto* dims = v->mutable_type()->mutable_tensor_type()->mutable_shape();
    dims->clear_dim();
    for (int64_t d : shape.dims()) {
      if (d > 0)
        dims->add_dim()->set_dim_value(d);
      else
        dims->add_dim()->set_dim_param("?");
    }
  }
}

// The newest opset of the default domain this libonnx knows (17 for
// Debian's 1.12).
int LibraryOpset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

// The checker and ONNX's shape inference, for opsets this libonnx knows: a
// newer opset (18 on Debian's libonnx 1.12) would be checked against older
// schemas (axes as attributes), so its model is left to the importer's own
// checks and its shapes to Weft's inference (ImportContext::ShapeOf).
void RunCheckerAndInference(onnx::ModelProto* m, int opset, const std::string& what) {
  if (opset > LibraryOpset()) return;
  try {
    onnx::checker::check_model(*m);
  } catch (const std::exception& e) {
    Fail(StatusCode::kInvalidArgument, what, ": the ONNX checker rejects the model: ", e.what());
  }
  try {
    onnx::shape_inference::InferShapes(*m);
  } catch (const std::exception&) {
    // Shapes stay unknown where ONNX cannot infer them; converters that
    // need one then say so, naming the node.
  }
}

// Reads every initializer. Those in external files then become typed graph
// inputs in `g` (the checker would look for their files relative to the
// working directory; the importer has read them from the model's folder).
std::map<std::string, onnx_import::ConstTensor> ReadInitializers(onnx::GraphProto* g,
                                                                 const std::string& model_dir,
                                                                 const std::string& what) {
  std::map<std::string, onnx_import::ConstTensor> inits;
  for (int i = g->initializer_size(); i-- > 0;) {
    const onnx::TensorProto& t = g->initializer(i);
    inits[t.name()] = onnx_import::ReadTensor(t, model_dir, what);
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    onnx::ValueInfoProto* v = g->add_input();
    v->set_name(t.name());
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    for (int64_t d : t.dims()) tt->mutable_shape()->add_dim()->set_dim_value(d);
    g->mutable_initializer()->DeleteSubrange(i, 1);
  }
  return inits;
}

// Initializers as constants, then data inputs as variables.
void AddInputs(const onnx::GraphProto& g, std::map<std::string, onnx_import::ConstTensor> inits,
               ImportContext* c, OnnxModel* out) {
  for (auto& [name, t] : inits) c->SetConst(name, std::move(t));
  for (const auto& v : g.input()) {
    if (inits.count(v.name())) continue;
    VariableHints hints;
    hints.shape = onnx_import::ShapeOfType(v.type());
    const int32_t type = v.type().tensor_type().elem_type();
    hints.dtype = type ? onnx_import::WeftDType(type, c->what + ": input '" + v.name() + "'")
                       : DType::kUnknown;
    c->SetSym(v.name(), Symbol::CreateVariable(v.name(), hints));
    out->inputs.emplace_back(v.name(), hints.shape);
  }
}

// The Weft name of node `i`: its ONNX name when set and unused, else
// "<op_type lowercased><i>" (with "_<k>" appended while that is taken: a
// nested graph's node i meets the model's).
std::string UniqueName(const onnx::NodeProto& n, int i, std::set<std::string>* used) {
  std::string name = n.name();
  if (name.empty() || used->count(name)) {
    name = n.op_type();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    name += std::to_string(i);
    const std::string base = name;
    for (int k = 1; used->count(name); ++k) name = base + "_" + std::to_string(k);
  }
  used->insert(name);
  return name;
}

void SplitParams(ImportContext* c, OnnxModel* out) {
  const std::vector<std::string> aux = out->symbol.ListAuxiliaryStates();
  const std::set<std::string> aux_set(aux.begin(), aux.end());
  for (const std::string& name : out->symbol.ListInputs()) {
    auto it = c->params.find(name);
    if (it == c->params.end()) continue;
    (aux_set.count(name) ? out->aux : out->args)[name] = it->second;
  }
}

onnx_import::ConverterMap AllConverters() {
  onnx_import::ConverterMap m;
  onnx_import::AddNNConverters(&m);
  onnx_import::AddMathConverters(&m);
  onnx_import::AddShapeConverters(&m);
  onnx_import::AddRnnConverters(&m);
  onnx_import::AddVisionConverters(&m);
  onnx_import::AddControlFlowConverters(&m);
  return m;
}

}  // namespace

namespace onnx_import {

Shape ShapeOfType(const onnx::TypeProto& t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return Shape();
  std::vector<int64_t> dims;
  for (const auto& d : t.tensor_type().shape().dim())
    dims.push_back(d.has_dim_value() && d.dim_value() > 0 ? d.dim_value() : 0);
  return Shape(dims);
}

void ConvertNodes(ImportContext& c, const onnx::GraphProto& g) {
  static const ConverterMap conv = AllConverters();
  static const ConverterMap fused_conv = [] {
    ConverterMap m;
    AddFusedConverters(&m);
    return m;
  }();
  WEFT_CHECK(c.node_names) << "ConvertNodes: no node name set";
  for (int i = 0; i < g.node_size(); ++i) {
    c.node = &g.node(i);
    c.node_name = UniqueName(g.node(i), i, c.node_names);
    if (c.node->domain() == kFusedDomain) {
      fused_conv.at(c.node->op_type())(c);
      continue;
    }
    if (FoldNode(c)) continue;
    auto it = conv.find(c.node->op_type());
    if (it == conv.end()) {
      const std::string& op = c.node->op_type();
      if (op == "Shape" || op == "Size") c.KnownShape(c.node->input(0), "input");
      c.Unsupported(
          "is evaluated only at import, and its inputs are not all constants (give the input "
          "shapes at import when the model's are dynamic)");
    }
    it->second(c);
    for (const auto& o : c.node->output())
      if (!o.empty() && !c.Has(o)) c.Unsupported("the converter left output '" + o + "' unset");
  }
}

}  // namespace onnx_import

std::vector<std::string> OnnxSupportedOps() {
  std::set<std::string> ops;
  for (const auto& kv : AllConverters()) ops.insert(kv.first);
  for (const auto& op : onnx_import::FoldableOps()) ops.insert(op);
  return std::vector<std::string>(ops.begin(), ops.end());
}

OnnxModel ImportOnnx(const void* data, size_t size, const std::string& what,
                     const std::string& model_dir, Runtime* rt, const OnnxImportOptions& options) {
  WEFT_CHECK(rt != nullptr);
  onnx::ModelProto m = onnx_io::ParseModel(data, size, what);
  OnnxModel out;
  out.opset = CheckOpset(m, what);
  out.producer =
      m.producer_name() + (m.producer_version().empty() ? "" : " " + m.producer_version());
  const onnx_import::ConverterMap conv = AllConverters();
  CheckNames(m.graph(), what);
  CheckSupported(m.graph(), conv, what);
  CheckInputsDefined(m.graph(), what);
  SetInputShapes(m.mutable_graph(), options, what);
  auto inits = ReadInitializers(m.mutable_graph(), model_dir, what);
  RunCheckerAndInference(&m, out.opset, what);
  if (options.fuse)
    out.fused = onnx_import::FuseDecompositions(m.mutable_graph(), inits, model_dir, what);
  const onnx::GraphProto& g = m.graph();
  ImportContext c(rt, out.opset, what);
  for (const auto& v : g.value_info()) c.SetShape(v.name(), onnx_import::ShapeOfType(v.type()));
  for (const auto& v : g.input()) c.SetShape(v.name(), onnx_import::ShapeOfType(v.type()));
  for (const auto& v : g.output()) c.SetShape(v.name(), onnx_import::ShapeOfType(v.type()));
  AddInputs(g, std::move(inits), &c, &out);
  std::set<std::string> used;
  c.node_names = &used;
  onnx_import::ConvertNodes(c, g);
  std::vector<Symbol> outs;
  for (const auto& o : g.output()) outs.push_back(c.Sym(o.name()));
  out.symbol = Symbol::Group(outs);
  SplitParams(&c, &out);
  return out;
}

OnnxModel ImportOnnxFile(const std::string& path, Runtime* rt, const OnnxImportOptions& options) {
  const std::string bytes = onnx_io::ReadModelBytes(path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return ImportOnnx(bytes.data(), bytes.size(), path, dir, rt, options);
}

bool IsOnnxPath(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 5);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return ext == ".onnx";
}

}  // namespace weft
