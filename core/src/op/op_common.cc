#include "op_common.h"

#include <utility>

namespace weft {
namespace op {

static std::string NodeLabel(const NodeAttrs& attrs) {
  std::string s = "operator " + (attrs.op ? attrs.op->name : std::string("?"));
  if (!attrs.name.empty() && attrs.op && attrs.name != attrs.op->name)
    s += " (node '" + attrs.name + "')";
  return s;
}

void AssignShape(const NodeAttrs& attrs, std::vector<Shape>* shapes, size_t i, const Shape& src,
                 const std::string& what) {
  Shape merged = (*shapes)[i];
  if (!ShapeAssign(&merged, src))
    Fail(StatusCode::kShape, NodeLabel(attrs), ": shape mismatch for ", what, ": expected ",
         src.ToString(), ", given ", (*shapes)[i].ToString());
  (*shapes)[i] = merged;
}

void AssignType(const NodeAttrs& attrs, std::vector<DType>* types, size_t i, DType src,
                const std::string& what) {
  if (src == DType::kUnknown) return;
  if ((*types)[i] == DType::kUnknown) {
    (*types)[i] = src;
  } else if ((*types)[i] != src) {
    Fail(StatusCode::kDType, NodeLabel(attrs), ": dtype mismatch for ", what, ": expected ",
         DTypeName(src), ", given ", DTypeName((*types)[i]));
  }
}

bool AllKnown(const std::vector<Shape>& shapes) {
  for (const auto& s : shapes)
    if (!s.ndim_known() || (s.ndim() > 0 && !s.is_known())) return false;
  return true;
}

bool AllKnown(const std::vector<DType>& types) {
  for (auto t : types)
    if (t == DType::kUnknown) return false;
  return true;
}

bool ElemwiseShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape s;
  auto merge = [&](const Shape& x, const std::string& what) {
    if (!ShapeAssign(&s, x))
      Fail(StatusCode::kShape, NodeLabel(attrs), ": shape mismatch for ", what, ": expected ",
           s.ToString(), ", given ", x.ToString());
  };
  std::vector<std::string> in_names = attrs.op->InputNames(attrs.params);
  for (size_t i = 0; i < in->size(); ++i) merge((*in)[i], "input '" + in_names[i] + "'");
  for (size_t i = 0; i < out->size(); ++i) merge((*out)[i], StrCat("output ", i));
  for (size_t i = 0; i < in->size(); ++i) (*in)[i] = s;
  for (size_t i = 0; i < out->size(); ++i) (*out)[i] = s;
  return AllKnown(*in) && AllKnown(*out);
}

bool ElemwiseType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  std::vector<std::string> in_names = attrs.op->InputNames(attrs.params);
  auto merge = [&](DType x, const std::string& what) {
    if (x == DType::kUnknown) return;
    if (t == DType::kUnknown)
      t = x;
    else if (t != x)
      Fail(StatusCode::kDType, NodeLabel(attrs), ": dtype mismatch for ", what, ": expected ",
           DTypeName(t), ", given ", DTypeName(x));
  };
  for (size_t i = 0; i < in->size(); ++i) merge((*in)[i], "input '" + in_names[i] + "'");
  for (size_t i = 0; i < out->size(); ++i) merge((*out)[i], StrCat("output ", i));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
  return t != DType::kUnknown;
}

NamesFn FixedNames(std::vector<std::string> names) {
  return [names](const ParamValues&) { return names; };
}

std::vector<std::pair<int, int>> InplaceFirst(const ParamValues&) { return {{0, 0}}; }

std::string OpLabel(const NodeAttrs& attrs) {
  std::string s = "operator " + (attrs.op ? attrs.op->name : std::string("?"));
  if (attrs.op && !attrs.name.empty() && attrs.name != attrs.op->name)
    s += " (node '" + attrs.name + "')";
  return s;
}

std::string GradName(const NodePtr& node, const std::string& suffix) {
  return node->attrs.name + "_" + suffix;
}

NodeEntry OutEntry(const NodePtr& node, uint32_t index) { return NodeEntry{node, index, 0}; }

std::vector<NodeEntry> BackwardNode(const OpRegistry& reg, const std::string& backward_op,
                                    const NodePtr& node, std::vector<NodeEntry> inputs,
                                    int num_outputs) {
  NodePtr b =
      MakeOpNode(reg, backward_op, GradName(node, "backward"), std::move(inputs), node->attrs.dict);
  std::vector<NodeEntry> grads;
  for (int i = 0; i < num_outputs; ++i) grads.push_back(OutEntry(b, i));
  return grads;
}

namespace {

// A parameter of `type` with default text `def`: what every builder below
// starts from.
ParamDecl MakeParam(const std::string& name, ParamType type, const std::string& def,
                    const std::string& doc) {
  ParamDecl d;
  d.name = name;
  d.type = type;
  d.default_value = def;
  d.doc = doc;
  return d;
}

}  // namespace

ParamDecl FloatParam(const std::string& name, const std::string& def, const std::string& doc) {
  return MakeParam(name, ParamType::kFloat, def, doc);
}

ParamDecl IntParam(const std::string& name, const std::string& def, const std::string& doc) {
  return MakeParam(name, ParamType::kInt, def, doc);
}

ParamDecl BoolParam(const std::string& name, const std::string& def, const std::string& doc) {
  return MakeParam(name, ParamType::kBool, def, doc);
}

ParamDecl ShapeParam(const std::string& name, const std::string& def, const std::string& doc) {
  return MakeParam(name, ParamType::kShape, def, doc);
}

ParamDecl DTypeParam(const std::string& name, const std::string& def, const std::string& doc) {
  return MakeParam(name, ParamType::kDType, def, doc);
}

ParamDecl ContextParam(const std::string& name, const std::string& def, const std::string& doc) {
  return MakeParam(name, ParamType::kContext, def, doc);
}

ParamDecl StringParam(const std::string& name, const std::string& def, const std::string& doc) {
  return MakeParam(name, ParamType::kString, def, doc);
}

ParamDecl EnumParam(const std::string& name, const std::string& def,
                    std::vector<std::string> choices, const std::string& doc) {
  ParamDecl d = MakeParam(name, ParamType::kEnum, def, doc);
  d.choices = std::move(choices);
  return d;
}

ParamDecl IntRangeParam(const std::string& name, const std::string& def, double lo, double hi,
                        const std::string& doc) {
  return Ranged(IntParam(name, def, doc), lo, hi);
}

ParamDecl RequiredParam(const std::string& name, ParamType type, const std::string& doc) {
  ParamDecl d = MakeParam(name, type, "", doc);
  d.required = true;
  return d;
}

ParamDecl RequiredEnumParam(const std::string& name, std::vector<std::string> choices,
                            const std::string& doc) {
  ParamDecl d = RequiredParam(name, ParamType::kEnum, doc);
  d.choices = std::move(choices);
  return d;
}

ParamDecl Optional(ParamDecl d) {
  d.optional = true;
  return d;
}

ParamDecl Ranged(ParamDecl d, double lo, double hi) {
  d.lo = lo;
  d.hi = hi;
  return d;
}

}  // namespace op
}  // namespace weft
