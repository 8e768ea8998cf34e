// See import_context.h.
#include "import_context.h"

#include <sstream>

#include "weft/graph.h"
#include "weft/pass.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {

ImportContext::ImportContext(Runtime* r, int set, std::string w)
    : rt(r), reg(r->ops()), opset(set), what(std::move(w)) {}

bool ImportContext::Has(const std::string& name) const {
  return syms_.count(name) || consts_.count(name);
}

const ConstTensor& ImportContext::Const(const std::string& name, const std::string& role) const {
  auto it = consts_.find(name);
  if (it == consts_.end())
    Unsupported("its " + role + " '" + name +
                "' is computed at run time; the importer needs it as a constant (an "
                "initializer, or a shape computation over static shapes: give the input "
                "shapes at import when the model's are dynamic)");
  return it->second;
}

Symbol ImportContext::Sym(const std::string& name) {
  auto it = syms_.find(name);
  if (it != syms_.end()) return it->second;
  auto c = consts_.find(name);
  if (c == consts_.end())
    Invalid("input '" + name + "' is neither a graph input, an initializer nor a node output");
  const ConstTensor& t = c->second;
  // A scalar becomes a 1-element vector (it broadcasts the same way); Weft's
  // extent 0 means unknown, so an empty tensor cannot be a parameter.
  const Shape shape = t.dims.empty() ? Shape({1}) : t.shape();
  for (int64_t d : t.dims)
    if (d == 0) Unsupported("the empty tensor '" + name + "' as an operand");
  NDArray arr(shape, Context::CPU(), DType::kFloat32, rt);
  std::vector<float> host(t.size());
  for (size_t k = 0; k < host.size(); ++k) host[k] = static_cast<float>(t.real(k));
  arr.CopyFromHost(host.data(), host.size() * sizeof(float));
  params[name] = arr;
  VariableHints hints;
  hints.shape = shape;
  hints.dtype = DType::kFloat32;
  Symbol s = Symbol::CreateVariable(name, hints);
  syms_[name] = s;
  return s;
}

Symbol ImportContext::NewParam(const std::string& suffix, ConstTensor t) {
  // A model exported from MXNet may already hold the natural name (its
  // PRelu slope is "<node>_gamma"): the derived one then takes a number.
  std::string name = node_name + suffix;
  for (int k = 1; Has(name); ++k) name = node_name + suffix + std::to_string(k);
  SetConst(name, std::move(t));
  return Sym(name);
}

Shape ImportContext::ShapeOf(const std::string& name) const {
  auto c = consts_.find(name);
  if (c != consts_.end()) return c->second.shape();
  auto it = shapes_.find(name);
  Shape s = it == shapes_.end() ? Shape() : it->second;
  auto sym = syms_.find(name);
  if (s.is_known() || sym == syms_.end() || weft_inferred_.count(name)) return s;
  // ONNX's inference left it (partly) unknown: Weft's shape inference over
  // the graph built so far (variables carry their shape hints).
  weft_inferred_.insert(name);
  try {
    const pass::ShapeResult r = pass::InferShape(IndexedGraph(sym->second.outputs));
    const Shape w = r.out_shapes.empty() ? Shape() : r.out_shapes[0];
    if (!s.ndim_known() || (w.ndim_known() && w.ndim() == s.ndim())) {
      Shape merged = w;
      for (int i = 0; s.ndim_known() && i < s.ndim(); ++i)
        if (merged[i] == 0) merged[i] = s[i];
      s = merged;
    }
  } catch (const Error&) {
    // The converter that needs the shape reports it unknown.
  }
  shapes_[name] = s;
  return s;
}

Shape ImportContext::KnownShape(const std::string& name, const std::string& role) const {
  const Shape s = ShapeOf(name);
  if (!s.is_known())
    Unsupported("the shape of its " + role + " '" + name + "' is " +
                (s.ndim_known() ? s.ToString() : std::string("unknown")) +
                "; the conversion needs it static (give the input shapes at import)");
  return s;
}

Symbol ImportContext::Op(const std::string& op, const std::vector<Symbol>& args,
                         const StringMap& params_in, const std::string& suffix) {
  return Symbol::Apply(reg, op, args, params_in, node_name + suffix);
}

void ImportContext::Unsupported(const std::string& detail) const {
  Fail(StatusCode::kNotImplemented, what, ": node '", node_name, "' (", node->op_type(),
       "): ", detail);
}

void ImportContext::Invalid(const std::string& detail) const {
  Fail(StatusCode::kInvalidArgument, what, ": node '", node_name, "' (", node->op_type(),
       "): ", detail);
}

const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, const std::string& key) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return &a;
  return nullptr;
}

int64_t AttrInt(const onnx::NodeProto& n, const std::string& key, int64_t def) {
  const auto* a = FindAttr(n, key);
  return a ? a->i() : def;
}

float AttrFloat(const onnx::NodeProto& n, const std::string& key, float def) {
  const auto* a = FindAttr(n, key);
  return a ? a->f() : def;
}

std::string AttrString(const onnx::NodeProto& n, const std::string& key, const std::string& def) {
  const auto* a = FindAttr(n, key);
  return a ? a->s() : def;
}

std::vector<int64_t> AttrInts(const onnx::NodeProto& n, const std::string& key,
                              const std::vector<int64_t>& def) {
  const auto* a = FindAttr(n, key);
  if (!a) return def;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

bool HasInput(const onnx::NodeProto& n, int i) { return i < n.input_size() && !n.input(i).empty(); }

std::vector<int64_t> AxesArg(ImportContext& c, const std::string& key, int index) {
  if (HasInput(*c.node, index))
    return c.Const(c.node->input(index), "input '" + key + "'").AsInts();
  return AttrInts(*c.node, key);
}

std::string Tuple(const std::vector<int64_t>& v) {
  std::ostringstream s;
  s << "(";
  for (size_t k = 0; k < v.size(); ++k) s << (k ? "," : "") << v[k];
  if (v.size() == 1) s << ",";
  s << ")";
  return s.str();
}

int64_t NormAxis(const ImportContext& c, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    c.Invalid("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace onnx_import
}  // namespace weft
