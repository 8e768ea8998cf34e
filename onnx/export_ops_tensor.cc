// ONNX export of shape and tensor operators: Flatten, Reshape (MXNet's
// special codes resolved by shape inference), transpose, Concat,
// SliceChannel, expand_dims, squeeze, slice_axis, clip, Cast, the
// reductions, dot, batch_dot, _npi_einsum, constant fills.
#include <algorithm>

#include "export_context.h"
#include "weft/einsum.h"

namespace weft {
namespace onnx_export {

namespace {

int64_t NormAxis(int64_t axis, int rank) { return axis < 0 ? axis + rank : axis; }

void Flatten(Context& cx, const ExportNode& n) {
  SetInt(cx.Add("Flatten", {n.inputs[0]}, {n.outputs[0]}, n.name()), "axis", 1);
}

// The shape inference resolved (0, -1, -2, -3, -4 and reverse); with a
// dynamic batch a kept dim 0 is written as ONNX's copy code 0.
void Reshape(Context& cx, const ExportNode& n) {
  std::vector<int64_t> s = Dims(n.out_shapes[0]);
  if (cx.options().dynamic_batch && !s.empty() && n.in_shapes[0].ndim() > 0 &&
      s[0] == n.in_shapes[0][0])
    s[0] = 0;
  ReshapeTo(cx, n.inputs[0], s, n.name(), n.outputs[0]);
}

void Transpose(Context& cx, const ExportNode& n) {
  std::vector<int64_t> perm = Dims(n.params().GetShape("axes"));
  const int rank = n.in_shapes[0].ndim();
  if (perm.empty())
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  SetInts(cx.Add("Transpose", {n.inputs[0]}, {n.outputs[0]}, n.name()), "perm", perm);
}

void Concat(Context& cx, const ExportNode& n) {
  const int64_t axis = NormAxis(n.params().GetInt("dim"), n.in_shapes[0].ndim());
  SetInt(cx.Add("Concat", n.inputs, {n.outputs[0]}, n.name()), "axis", axis);
}

void SliceChannel(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const int rank = n.in_shapes[0].ndim();
  const int64_t axis = NormAxis(p.GetInt("axis"), rank);
  const int64_t parts = p.GetInt("num_outputs");
  const std::vector<int64_t> sizes(parts, n.in_shapes[0][static_cast<int>(axis)] / parts);
  if (!p.GetBool("squeeze_axis"))
    return SplitInto(cx, n.inputs[0], axis, sizes, n.outputs, n.name());
  std::vector<std::string> parts_out;
  for (int64_t i = 0; i < parts; ++i) parts_out.push_back(cx.Fresh(n.name() + "_part"));
  SplitInto(cx, n.inputs[0], axis, sizes, parts_out, n.name());
  for (int64_t i = 0; i < parts; ++i)
    Squeeze(cx, parts_out[i], {axis}, n.name() + "_squeeze", n.outputs[i]);
}

void ExpandDims(Context& cx, const ExportNode& n) {
  const int64_t axis = NormAxis(n.params().GetInt("axis"), n.in_shapes[0].ndim() + 1);
  Unsqueeze(cx, n.inputs[0], {axis}, n.name(), n.outputs[0]);
}

void SqueezeOp(Context& cx, const ExportNode& n) {
  std::vector<int64_t> axes;
  const Shape& s = n.in_shapes[0];
  if (n.params().IsNone("axis")) {
    for (int i = 0; i < s.ndim(); ++i)
      if (s[i] == 1) axes.push_back(i);
  } else {
    for (int64_t a : Dims(n.params().GetShape("axis"))) axes.push_back(NormAxis(a, s.ndim()));
  }
  if (axes.empty())
    cx.Add("Identity", {n.inputs[0]}, {n.outputs[0]}, n.name());
  else
    Squeeze(cx, n.inputs[0], axes, n.name(), n.outputs[0]);
}

void SliceAxis(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const int rank = n.in_shapes[0].ndim();
  const int64_t axis = NormAxis(p.GetInt("axis"), rank);
  const int64_t dim = n.in_shapes[0][static_cast<int>(axis)];
  int64_t begin = p.GetInt("begin");
  int64_t end = p.IsNone("end") ? dim : p.GetInt("end");
  if (begin < 0) begin += dim;
  if (end < 0) end += dim;
  const std::string nm = n.name();
  cx.Add("Slice",
         {n.inputs[0], cx.ConstInts(nm + "_starts", {begin}), cx.ConstInts(nm + "_ends", {end}),
          cx.ConstInts(nm + "_axes", {axis})},
         {n.outputs[0]}, nm);
}

void Clip(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const DType t = n.in_types[0];
  cx.Add("Clip",
         {n.inputs[0], cx.ConstScalar(n.name() + "_min", p.GetFloat("a_min"), t),
          cx.ConstScalar(n.name() + "_max", p.GetFloat("a_max"), t)},
         {n.outputs[0]}, n.name());
}

void Cast(Context& cx, const ExportNode& n) {
  SetInt(cx.Add("Cast", {n.inputs[0]}, {n.outputs[0]}, n.name()), "to",
         OnnxElemType(n.out_types[0]));
}

std::vector<int64_t> ReduceAxes(const ExportNode& n) {
  const ParamValues& p = n.params();
  const int rank = n.in_shapes[0].ndim();
  std::vector<bool> listed(rank, p.IsNone("axis") || p.GetShape("axis").ndim() == 0);
  if (!p.IsNone("axis"))
    for (int64_t a : Dims(p.GetShape("axis"))) listed[NormAxis(a, rank)] = true;
  std::vector<int64_t> axes;
  const bool exclude = p.GetBool("exclude");
  for (int i = 0; i < rank; ++i)
    if (listed[i] != exclude) axes.push_back(i);
  return axes;
}

template <const char* kOp>
void ReduceOp(Context& cx, const ExportNode& n) {
  const std::vector<int64_t> axes = ReduceAxes(n);
  const bool keep = n.params().GetBool("keepdims");
  if (axes.empty()) {
    cx.Add("Identity", {n.inputs[0]}, {n.outputs[0]}, n.name());
    return;
  }
  if (!keep && axes.size() == static_cast<size_t>(n.in_shapes[0].ndim())) {
    // MXNet keeps a (1,) result where ONNX would give a scalar.
    const std::string r = cx.Fresh(n.name() + "_all");
    Reduce(cx, kOp, n.inputs[0], axes, false, r, n.name());
    ReshapeTo(cx, r, {1}, n.name() + "_shape", n.outputs[0]);
    return;
  }
  Reduce(cx, kOp, n.inputs[0], axes, keep, n.outputs[0], n.name());
}
constexpr char kReduceSum[] = "ReduceSum";
constexpr char kReduceMean[] = "ReduceMean";
constexpr char kReduceMax[] = "ReduceMax";
constexpr char kReduceMin[] = "ReduceMin";
constexpr char kReduceProd[] = "ReduceProd";

std::string SwapLast(Context& cx, const std::string& x, int rank, const std::string& name) {
  std::vector<int64_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  const std::string out = cx.Fresh(name);
  SetInts(cx.Add("Transpose", {x}, {out}, name), "perm", perm);
  return out;
}

// MXNet's dot contracts a's last axis with b's first: both flattened to
// matrices, multiplied, reshaped to the inferred output.
void Dot(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const Shape &a = n.in_shapes[0], &b = n.in_shapes[1];
  const bool ta = p.GetBool("transpose_a"), tb = p.GetBool("transpose_b");
  if ((ta && a.ndim() != 2) || (tb && b.ndim() != 2))
    ThrowUnsupported("transpose_a/transpose_b on an operand that is not 2-D");
  std::string x = n.inputs[0], y = n.inputs[1];
  if (ta) x = SwapLast(cx, x, 2, n.name() + "_lhs_t");
  if (tb) y = SwapLast(cx, y, 2, n.name() + "_rhs_t");
  const bool plain = a.ndim() == 2 && b.ndim() == 2;
  if (plain) {
    cx.Add("MatMul", {x, y}, {n.outputs[0]}, n.name());
    return;
  }
  const int64_t k = ta ? a[0] : a[a.ndim() - 1];
  x = ReshapeTo(cx, x, {a.Size() / k, k}, n.name() + "_lhs");
  y = ReshapeTo(cx, y, {k, b.Size() / k}, n.name() + "_rhs");
  const std::string mm = cx.Add1("MatMul", {x, y}, n.name() + "_matmul");
  ReshapeTo(cx, mm, Dims(n.out_shapes[0]), n.name(), n.outputs[0]);
}

void BatchDot(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  std::string x = n.inputs[0], y = n.inputs[1];
  if (p.GetBool("transpose_a")) x = SwapLast(cx, x, n.in_shapes[0].ndim(), n.name() + "_lhs_t");
  if (p.GetBool("transpose_b")) y = SwapLast(cx, y, n.in_shapes[1].ndim(), n.name() + "_rhs_t");
  cx.Add("MatMul", {x, y}, {n.outputs[0]}, n.name());
}

// _npi_einsum as Einsum (opset 12+) with the output term written out, so
// that ONNX's implicit mode (letters sorted "alphabetically") cannot read
// it differently. ONNX broadcasts only the "..." axes, and each "..." must
// stand for as many axes: a letter's axis of extent 1 against a longer one,
// or "..." of different lengths (both of which Weft broadcasts, as NumPy),
// are refused.
void Einsum(Context& cx, const ExportNode& n) {
  if (cx.opset() < 12)
    ThrowUnsupported("Einsum needs opset 12 (exporting at opset " + std::to_string(cx.opset()) +
                     ")");
  const std::string who = "node '" + n.name() + "'";
  const op::EinsumEquation eq = op::EinsumEquation::Parse(n.params().GetString("subscripts"), who);
  const op::EinsumLayout l = op::EinsumLayout::Bind(eq, n.in_shapes, who);
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const size_t ell = static_cast<size_t>(n.in_shapes[i].ndim()) - eq.inputs[i].letters.size();
    const auto e_max = static_cast<size_t>(std::count(l.names.begin(), l.names.end(), 0));
    if (eq.inputs[i].ellipsis >= 0 && ell != e_max)
      ThrowUnsupported("operand " + std::to_string(i) + "'s '...' stands for " +
                       std::to_string(ell) + " axes, another's for more (ONNX's Einsum needs " +
                       "the same number)");
  }
  for (size_t i = 0; i < l.inputs.size(); ++i)
    for (size_t a = 0; a < l.inputs[i].size(); ++a) {
      const int lab = l.inputs[i][a];
      if (l.names[lab] != 0 && n.in_shapes[i][static_cast<int>(a)] == 1 && l.extents[lab] > 1)
        ThrowUnsupported("operand " + std::to_string(i) + " broadcasts " + l.LabelName(lab) +
                         " from extent 1 to " + std::to_string(l.extents[lab]) +
                         " (ONNX's Einsum broadcasts only '...' axes)");
    }
  SetString(cx.Add("Einsum", n.inputs, {n.outputs[0]}, n.name()), "equation", eq.ExplicitText());
}

// _zeros/_ones/_full: a constant of the inferred shape.
void Fill(Context& cx, const ExportNode& n, double value) {
  onnx::NodeProto* node =
      cx.Add("ConstantOfShape", {cx.ConstInts(n.name() + "_shape", Dims(n.out_shapes[0]))},
             {n.outputs[0]}, n.name());
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = a->mutable_t();
  t->set_data_type(OnnxElemType(n.out_types[0]));
  t->add_dims(1);
  switch (n.out_types[0]) {
    case DType::kFloat64:
      t->add_double_data(value);
      break;
    case DType::kInt64:
      t->add_int64_data(static_cast<int64_t>(value));
      break;
    case DType::kFloat32:
      t->add_float_data(static_cast<float>(value));
      break;
    default:
      t->add_int32_data(static_cast<int32_t>(value));
  }
}
void Zeros(Context& cx, const ExportNode& n) { Fill(cx, n, 0); }
void Ones(Context& cx, const ExportNode& n) { Fill(cx, n, 1); }
void Full(Context& cx, const ExportNode& n) { Fill(cx, n, n.params().GetFloat("value")); }

// zeros_like/ones_like: ConstantOfShape of the input's run-time shape.
void FillLike(Context& cx, const ExportNode& n, double value) {
  const std::string s = cx.Add1("Shape", {n.inputs[0]}, n.name() + "_shape");
  const std::string z = cx.Add1("ConstantOfShape", {s}, n.name() + "_fill");
  const std::string v = cx.ConstScalar(n.name() + "_value", value, n.in_types[0]);
  // ConstantOfShape gives float32 zeros; cast through the value's type.
  const std::string c = cx.Fresh(n.name() + "_cast");
  SetInt(cx.Add("Cast", {z}, {c}, n.name() + "_cast"), "to", OnnxElemType(n.in_types[0]));
  cx.Add("Add", {c, v}, {n.outputs[0]}, n.name());
}
void ZerosLike(Context& cx, const ExportNode& n) { FillLike(cx, n, 0); }
void OnesLike(Context& cx, const ExportNode& n) { FillLike(cx, n, 1); }

}  // namespace

void AddTensorConverters(ConverterTable* t) {
  (*t)["Flatten"] = Flatten;
  (*t)["Reshape"] = Reshape;
  (*t)["transpose"] = Transpose;
  (*t)["Concat"] = Concat;
  (*t)["SliceChannel"] = SliceChannel;
  (*t)["expand_dims"] = ExpandDims;
  (*t)["squeeze"] = SqueezeOp;
  (*t)["slice_axis"] = SliceAxis;
  (*t)["clip"] = Clip;
  (*t)["Cast"] = Cast;
  (*t)["sum"] = ReduceOp<kReduceSum>;
  (*t)["mean"] = ReduceOp<kReduceMean>;
  (*t)["max"] = ReduceOp<kReduceMax>;
  (*t)["min"] = ReduceOp<kReduceMin>;
  (*t)["prod"] = ReduceOp<kReduceProd>;
  (*t)["dot"] = Dot;
  (*t)["batch_dot"] = BatchDot;
  (*t)["_npi_einsum"] = Einsum;
  (*t)["_zeros"] = Zeros;
  (*t)["_ones"] = Ones;
  (*t)["_full"] = Full;
  (*t)["zeros_like"] = ZerosLike;
  (*t)["ones_like"] = OnesLike;
}

}  // namespace onnx_export
}  // namespace weft
