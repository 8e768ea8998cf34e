// ONNX export of comparisons (MXNet's 0/1 results in the input's dtype),
// where, and the shape-driven view operators: SwapAxis, repeat, tile,
// slice_like, Crop, broadcast_axis/_to/_like, _contrib_div_sqrt_dim.
#include <cmath>

#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

// ONNX's comparison for MXNet's relation, negated when `negate`.
struct Relation {
  const char* op;
  bool negate;
};

Relation RelationOf(const std::string& mx, int opset) {
  if (mx.find("not_equal") != std::string::npos) return {"Equal", true};
  if (mx.find("greater_equal") != std::string::npos)
    return opset >= 12 ? Relation{"GreaterOrEqual", false} : Relation{"Less", true};
  if (mx.find("lesser_equal") != std::string::npos)
    return opset >= 12 ? Relation{"LessOrEqual", false} : Relation{"Greater", true};
  if (mx.find("greater") != std::string::npos) return {"Greater", false};
  if (mx.find("lesser") != std::string::npos) return {"Less", false};
  return {"Equal", false};
}

// lhs REL rhs as 0/1 of the output dtype.
void Compare(Context& cx, const ExportNode& n, const std::string& lhs, const std::string& rhs) {
  const Relation r = RelationOf(n.op(), cx.opset());
  std::string b = cx.Add1(r.op, {lhs, rhs}, n.name() + "_cmp");
  if (r.negate) b = cx.Add1("Not", {b}, n.name() + "_not");
  SetInt(cx.Add("Cast", {b}, {n.outputs[0]}, n.name()), "to", OnnxElemType(n.out_types[0]));
}

void CompareBinary(Context& cx, const ExportNode& n) { Compare(cx, n, n.inputs[0], n.inputs[1]); }

void CompareScalar(Context& cx, const ExportNode& n) {
  Compare(cx, n, n.inputs[0],
          cx.ConstScalar(n.name() + "_scalar", n.params().GetFloat("scalar"), n.in_types[0]));
}

void Where(Context& cx, const ExportNode& n) {
  const std::string c = cx.Fresh(n.name() + "_cond");
  SetInt(cx.Add("Cast", {n.inputs[0]}, {c}, n.name() + "_cond"), "to", onnx::TensorProto::BOOL);
  cx.Add("Where", {c, n.inputs[1], n.inputs[2]}, {n.outputs[0]}, n.name());
}

void SwapAxis(Context& cx, const ExportNode& n) {
  const int rank = n.in_shapes[0].ndim();
  int64_t a = n.params().GetInt("dim1"), b = n.params().GetInt("dim2");
  if (a < 0) a += rank;
  if (b < 0) b += rank;
  std::vector<int64_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[a], perm[b]);
  SetInts(cx.Add("Transpose", {n.inputs[0]}, {n.outputs[0]}, n.name()), "perm", perm);
}

// Each element `repeats` times along `axis` (None: of the flattened input).
void Repeat(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const int64_t r = p.GetInt("repeats");
  std::string x = n.inputs[0];
  Shape s = n.in_shapes[0];
  int64_t axis = 0;
  if (p.IsNone("axis")) {
    x = ReshapeTo(cx, x, {s.Size()}, n.name() + "_flat");
    s = Shape{s.Size()};
  } else {
    axis = p.GetInt("axis");
    if (axis < 0) axis += s.ndim();
  }
  const std::string u = Unsqueeze(cx, x, {axis + 1}, n.name() + "_unsqueeze");
  std::vector<int64_t> target = Dims(s);
  target.insert(target.begin() + axis + 1, r);
  const std::string e =
      cx.Add1("Expand", {u, cx.ConstInts(n.name() + "_target", target)}, n.name() + "_expand");
  ReshapeTo(cx, e, Dims(n.out_shapes[0]), n.name(), n.outputs[0]);
}

void Tile(Context& cx, const ExportNode& n) {
  std::vector<int64_t> reps = Dims(n.params().GetShape("reps"));
  const int rank = n.in_shapes[0].ndim();
  std::string x = n.inputs[0];
  if (static_cast<int>(reps.size()) > rank) {  // leading axes of 1 on the input
    std::vector<int64_t> s(reps.size() - rank, 1);
    for (int64_t d : Dims(n.in_shapes[0])) s.push_back(d);
    x = ReshapeTo(cx, x, s, n.name() + "_expand_rank");
  }
  while (static_cast<int>(reps.size()) < rank) reps.insert(reps.begin(), 1);
  cx.Add("Tile", {x, cx.ConstInts(n.name() + "_reps", reps)}, {n.outputs[0]}, n.name());
}

// A window of the input: `starts` on every axis, the output's extents.
void Window(Context& cx, const ExportNode& n, const std::vector<int64_t>& starts) {
  const std::vector<int64_t> out = Dims(n.out_shapes[0]);
  std::vector<int64_t> ends, axes;
  for (size_t i = 0; i < out.size(); ++i) {
    ends.push_back(starts[i] + out[i]);
    axes.push_back(static_cast<int64_t>(i));
  }
  const std::string nm = n.name();
  cx.Add("Slice",
         {n.inputs[0], cx.ConstInts(nm + "_starts", starts), cx.ConstInts(nm + "_ends", ends),
          cx.ConstInts(nm + "_axes", axes)},
         {n.outputs[0]}, nm);
}

void SliceLike(Context& cx, const ExportNode& n) {
  Window(cx, n, std::vector<int64_t>(n.out_shapes[0].ndim(), 0));
}

void Crop(Context& cx, const ExportNode& n) {
  const ParamValues& p = n.params();
  const Shape &d = n.in_shapes[0], &o = n.out_shapes[0];
  int64_t y = 0, x = 0;
  if (p.GetBool("center_crop")) {
    y = (d[2] - o[2]) / 2;
    x = (d[3] - o[3]) / 2;
  } else {
    y = p.GetShape("offset")[0];
    x = p.GetShape("offset")[1];
  }
  Window(cx, n, {0, 0, y, x});
}

// broadcast_axis / broadcast_to / broadcast_like: Expand to the inferred shape.
void BroadcastTo(Context& cx, const ExportNode& n) {
  cx.Add("Expand", {n.inputs[0], cx.ConstInts(n.name() + "_shape", Dims(n.out_shapes[0]))},
         {n.outputs[0]}, n.name());
}

void DivSqrtDim(Context& cx, const ExportNode& n) {
  const Shape& s = n.in_shapes[0];
  const double d = std::sqrt(static_cast<double>(s[s.ndim() - 1]));
  cx.Add("Div", {n.inputs[0], cx.ConstScalar(n.name() + "_sqrt_dim", d, n.in_types[0])},
         {n.outputs[0]}, n.name());
}

}  // namespace

void AddIndexConverters(ConverterTable* t) {
  for (const char* rel :
       {"equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal"}) {
    const std::string r = rel;
    (*t)["_" + r] = CompareBinary;
    (*t)["broadcast_" + r] = CompareBinary;
    (*t)["_" + r + "_scalar"] = CompareScalar;
  }
  (*t)["where"] = Where;
  (*t)["SwapAxis"] = SwapAxis;
  (*t)["repeat"] = Repeat;
  (*t)["tile"] = Tile;
  (*t)["slice_like"] = SliceLike;
  (*t)["Crop"] = Crop;
  (*t)["broadcast_axis"] = BroadcastTo;
  (*t)["broadcast_to"] = BroadcastTo;
  (*t)["broadcast_like"] = BroadcastTo;
  (*t)["_contrib_div_sqrt_dim"] = DivSqrtDim;
}

}  // namespace onnx_export
}  // namespace weft
