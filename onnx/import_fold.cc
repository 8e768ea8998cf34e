// Evaluation at import of nodes whose inputs are all constants (shape
// computations: Shape, ConstantOfShape, Gather, Concat, arithmetic, ...);
// the results are host constants, so that Reshape, Slice, Expand and the
// rest find their shape operands as constants.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "import_context.h"
#include "import_fold_util.h"
#include "weft/status.h"

namespace weft {
namespace onnx_import {
namespace {

using TP = onnx::TensorProto;

ConstTensor FoldConstant(ImportContext& c) {
  const onnx::NodeProto& n = *c.node;
  if (const auto* a = FindAttr(n, "value")) return ReadTensor(a->t(), "", c.what);
  ConstTensor t;
  if (const auto* a = FindAttr(n, "value_float")) {
    t.reals = {a->f()};
  } else if (const auto* a = FindAttr(n, "value_floats")) {
    t.reals.assign(a->floats().begin(), a->floats().end());
    t.dims = {static_cast<int64_t>(t.reals.size())};
  } else if (const auto* a = FindAttr(n, "value_int")) {
    t.type = TP::INT64;
    t.ints = {a->i()};
  } else if (const auto* a = FindAttr(n, "value_ints")) {
    t.type = TP::INT64;
    t.ints.assign(a->ints().begin(), a->ints().end());
    t.dims = {static_cast<int64_t>(t.ints.size())};
  } else {
    c.Unsupported("only the value, value_float(s) and value_int(s) attributes are supported");
  }
  return t;
}

ConstTensor FoldShape(ImportContext& c) {
  const Shape s = c.KnownShape(c.node->input(0), "input");
  ConstTensor t;
  t.type = TP::INT64;
  if (c.node->op_type() == "Size") {
    t.ints = {s.Size()};
    return t;
  }
  const int64_t r = s.ndim();
  int64_t start = AttrInt(*c.node, "start", 0), end = AttrInt(*c.node, "end", r);
  start = std::clamp(start < 0 ? start + r : start, int64_t{0}, r);
  end = std::clamp(end < 0 ? end + r : end, int64_t{0}, r);
  for (int64_t i = start; i < end; ++i) t.ints.push_back(s[static_cast<int>(i)]);
  t.dims = {static_cast<int64_t>(t.ints.size())};
  return t;
}

ConstTensor FoldConstantOfShape(ImportContext& c) {
  ConstTensor t;
  t.dims = In(c, 0).AsInts();
  double value = 0;
  if (const auto* a = FindAttr(*c.node, "value")) {
    const ConstTensor v = ReadTensor(a->t(), "", c.what);
    if (v.size() != 1) c.Invalid("attribute 'value' must hold one element");
    t.type = v.type;
    value = v.real(0);
  }
  const size_t n = CheckedElements(c, t.dims);
  if (t.is_int())
    t.ints.assign(n, static_cast<int64_t>(value));
  else
    t.reals.assign(n, value);
  return t;
}

ConstTensor FoldCast(ImportContext& c) {
  const ConstTensor& x = In(c, 0);
  ConstTensor t;
  t.dims = x.dims;
  t.type = static_cast<int32_t>(AttrInt(*c.node, "to", TP::FLOAT));
  for (size_t k = 0; k < x.size(); ++k) {
    if (t.type == TP::BOOL)
      t.ints.push_back(x.real(k) != 0);
    else if (t.is_int())
      t.ints.push_back(x.integer(k));
    else
      t.reals.push_back(t.type == TP::FLOAT ? static_cast<float>(x.real(k)) : x.real(k));
  }
  return t;
}

ConstTensor FoldRange(ImportContext& c) {
  const ConstTensor &s = In(c, 0), &l = In(c, 1), &d = In(c, 2);
  ConstTensor t;
  t.type = s.type;
  const double start = s.real(0), limit = l.real(0), delta = d.real(0);
  if (delta == 0) c.Invalid("Range with delta 0");
  const double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (!std::isfinite(count) || count > 1e15) c.Invalid("Range of a non-finite or huge length");
  const size_t n = CheckedElements(c, {static_cast<int64_t>(count)});
  t.dims = {static_cast<int64_t>(n)};
  for (size_t k = 0; k < n; ++k) {
    if (t.is_int())
      t.ints.push_back(s.integer(0) + static_cast<int64_t>(k) * d.integer(0));
    else
      t.reals.push_back(start + static_cast<double>(k) * delta);
  }
  return t;
}

ConstTensor FoldUnary(ImportContext& c) {
  const std::string& op = c.node->op_type();
  const ConstTensor& x = In(c, 0);
  ConstTensor t = x;
  for (size_t k = 0; k < x.size(); ++k) {
    if (x.is_int()) {
      const int64_t v = x.ints[k];
      t.ints[k] = op == "Neg" ? -v : op == "Not" ? (v == 0) : op == "Abs" ? std::llabs(v) : v;
    } else {
      const double v = x.reals[k];
      t.reals[k] = op == "Neg"     ? -v
                   : op == "Sqrt"  ? std::sqrt(v)
                   : op == "Floor" ? std::floor(v)
                   : op == "Ceil"  ? std::ceil(v)
                   : op == "Abs"   ? std::fabs(v)
                                   : v;
    }
  }
  return t;
}

using Folder = ConstTensor (*)(ImportContext&);

const std::map<std::string, Folder>& Folders() {
  static const std::map<std::string, Folder> m = {
      {"Constant", FoldConstant},   {"Shape", FoldShape},
      {"Size", FoldShape},          {"ConstantOfShape", FoldConstantOfShape},
      {"Cast", FoldCast},           {"Range", FoldRange},
      {"Neg", FoldUnary},           {"Not", FoldUnary},
      {"Sqrt", FoldUnary},          {"Floor", FoldUnary},
      {"Ceil", FoldUnary},          {"Abs", FoldUnary},
      {"Identity", FoldUnary},      {"Add", FoldBinary},
      {"Sub", FoldBinary},          {"Mul", FoldBinary},
      {"Div", FoldBinary},          {"Equal", FoldBinary},
      {"Less", FoldBinary},         {"Greater", FoldBinary},
      {"Max", FoldBinary},          {"Min", FoldBinary},
      {"And", FoldBinary},          {"Or", FoldBinary},
      {"Where", FoldWhere},         {"Gather", FoldGather},
      {"Concat", FoldConcat},       {"Unsqueeze", FoldReshapeLike},
      {"Squeeze", FoldReshapeLike}, {"Reshape", FoldReshapeLike},
      {"Flatten", FoldReshapeLike}, {"Slice", FoldSlice},
      {"Transpose", FoldTranspose}, {"Expand", FoldExpand}};
  return m;
}

}  // namespace

const std::set<std::string>& FoldableOps() {
  static const std::set<std::string> only = {"Constant", "Shape", "Size", "ConstantOfShape",
                                             "Range"};
  return only;
}

bool FoldNode(ImportContext& c) {
  const onnx::NodeProto& n = *c.node;
  auto it = Folders().find(n.op_type());
  if (it == Folders().end() || n.output_size() != 1) return false;
  if (n.op_type() == "Shape" || n.op_type() == "Size") {
    if (!c.ShapeOf(n.input(0)).is_known()) return false;
  } else {
    for (int i = 0; i < n.input_size(); ++i)
      if (!n.input(i).empty() && !c.IsConst(n.input(i))) return false;
  }
  c.SetConst(n.output(0), it->second(c));
  return true;
}

}  // namespace onnx_import
}  // namespace weft
