// Gathering and scattering by index with MXNet's names and parameters:
//   pick(data, index; axis=-1, keepdims=False, mode='clip'): data[.., index,
//     ..] along axis; index has data's shape without that axis (or with
//     extent 1 under keepdims; index may take either form, as in MXNet).
//     axis=None is rejected, as in MXNet.
//   one_hot(indices; depth, on_value=1, off_value=0, dtype='float32'):
//     indices.shape + (depth,), on_value at each index, off_value elsewhere
//     (indices outside [0, depth) give a row of off_value).
//   take(a, indices; axis=0, mode='clip'): a.shape[:axis] + indices.shape +
//     a.shape[axis+1:]; mode 'clip' clamps, 'wrap' wraps, 'raise' fails on
//     an out-of-range index.
//   gather_nd(data, indices): indices (M, Y...) (at least 2-D) address the
//     first M axes; output Y... + data.shape[M:].
//   scatter_nd(data, indices; shape): zeros of `shape` with data written at
//     the addressed positions (the last write wins on duplicates).
// Indices of pick/one_hot/take are any numeric dtype (float values are
// truncated); gather_nd/scatter_nd accept indices in [-n, n) (negative
// ones count from the end, as MXNet) and fail on others.
// Gradients: pick -> `_backward_pick(ograd, data, index)`; take ->
// `_backward_take(ograd, a, indices)`; gather_nd ->
// `_backward_gather_nd(ograd, indices, data)` (a scatter-add; MXNet's takes
// `shape` instead of data); scatter_nd -> gather_nd(ograd, indices). Index
// inputs and one_hot get zero gradients.
#include "op_common.h"

namespace weft {
namespace op {

namespace {

ParamDecl ModeParam(std::vector<std::string> choices) {
  return EnumParam("mode", "clip", std::move(choices), "How out-of-range indices are handled.");
}

NodeEntry Zeros(const OpRegistry& r, const NodePtr& n, int input) {
  return MakeOpEntry(r, "zeros_like", GradName(n, StrCat("zero", input)), {n->inputs[input]});
}

// Normalised `axis` of op for rank `ndim`.
int GatherAxis(const NodeAttrs& attrs, int ndim) {
  if (attrs.params.IsNone("axis"))
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name,
         ": axis=None is not supported; an axis must be given");
  const int64_t a = attrs.params.GetInt("axis");
  if (a < -ndim || a >= ndim)
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name, ": axis ", a,
         " is out of range for an input with ndim ", ndim, " (expected -", ndim, " <= axis < ",
         ndim, ")");
  return static_cast<int>(a < 0 ? a + ndim : a);
}

std::vector<ParamDecl> PickParams() {
  return {Optional(IntParam("axis", "-1", "Axis to pick along (negative counts from the end).")),
          BoolParam("keepdims", "False", "Keep the picked axis with extent 1."),
          ModeParam({"clip", "wrap"})};
}

// data's shape reduced over the picked axis (extent 1 under `keepdims`;
// a 1-D input gives (1,)), as MXNet's ReduceAxisShapeImpl.
Shape PickedShape(const Shape& data, int axis, bool keepdims) {
  if (data.ndim() == 1) return Shape({1});
  std::vector<int64_t> dims;
  for (int i = 0; i < data.ndim(); ++i)
    if (i != axis)
      dims.push_back(data[i]);
    else if (keepdims)
      dims.push_back(1);
  return Shape(dims);
}

// pick(data, index) and _backward_pick(ograd, data, index). The output
// (and ograd) follow `keepdims`; as in MXNet, index may have either form:
// data's rank (extent 1 at the axis) or one less.
bool PickShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const bool back = attrs.op->name == "_backward_pick";
  const size_t d = back ? 1 : 0, x = back ? 2 : 1;
  if (back) {
    AssignShape(attrs, out, 0, (*in)[1], "output");
    AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  }
  const Shape data = (*in)[d];
  if (!data.ndim_known()) return false;
  const int axis = GatherAxis(attrs, data.ndim());
  const bool keep = attrs.params.GetBool("keepdims");
  if (back)
    AssignShape(attrs, in, 0, PickedShape(data, axis, keep), "input 'ograd'");
  else
    AssignShape(attrs, out, 0, PickedShape(data, axis, keep), "output");
  const Shape& idx = (*in)[x];
  const bool idx_keep = idx.ndim_known() ? idx.ndim() == data.ndim() : keep;
  AssignShape(attrs, in, x, PickedShape(data, axis, idx_keep), "input 'index'");
  return AllKnown(*in) && AllKnown(*out);
}

// Output 0 has input `i`'s dtype (both ways); other inputs keep theirs.
template <int i>
bool FollowInput(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, (*in)[i], "output");
  AssignType(attrs, in, i, (*out)[0], "input");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> OneHotParams() {
  return {Ranged(RequiredParam("depth", ParamType::kInt, "Length of the one-hot axis."), 1, 1e12),
          FloatParam("on_value", "1.0", "Value at the index."),
          FloatParam("off_value", "0.0", "Value elsewhere."),
          DTypeParam("dtype", "float32", "Output dtype.")};
}

bool OneHotShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& x = (*in)[0];
  if (x.ndim_known()) {
    std::vector<int64_t> dims = x.dims();
    dims.push_back(attrs.params.GetInt("depth"));
    AssignShape(attrs, out, 0, Shape(dims), "output");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() >= 1)
    AssignShape(attrs, in, 0, Shape(std::vector<int64_t>(o.dims().begin(), o.dims().end() - 1)),
                "input 'indices'");
  return AllKnown(*in) && AllKnown(*out);
}

bool OneHotType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, attrs.params.GetDType("dtype"), "output");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> TakeParams() {
  return {IntParam("axis", "0", "Axis of `a` to take along."),
          ModeParam({"clip", "raise", "wrap"})};
}

// take(a, indices) / _backward_take(ograd, a, indices).
bool TakeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const bool back = attrs.op->name == "_backward_take";
  const size_t a = back ? 1 : 0, x = back ? 2 : 1;
  if (back) {
    AssignShape(attrs, out, 0, (*in)[1], "output");
    AssignShape(attrs, in, 1, (*out)[0], "input 'a'");
  }
  const Shape &as = (*in)[a], &xs = (*in)[x];
  if (!as.ndim_known() || !xs.ndim_known()) return false;
  const int axis = GatherAxis(attrs, as.ndim());
  std::vector<int64_t> dims(as.dims().begin(), as.dims().begin() + axis);
  dims.insert(dims.end(), xs.dims().begin(), xs.dims().end());
  dims.insert(dims.end(), as.dims().begin() + axis + 1, as.dims().end());
  if (back)
    AssignShape(attrs, in, 0, Shape(dims), "input 'ograd'");
  else
    AssignShape(attrs, out, 0, Shape(dims), "output");
  return AllKnown(*in) && AllKnown(*out);
}

// Output shape of gather_nd for data `d` and indices `x` (ranks known).
Shape GatherNdShape(const NodeAttrs& attrs, const Shape& d, const Shape& x) {
  if (x.ndim() < 2)
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": indices ", x.ToString(),
         " need at least 2 dimensions (M, Y...)");
  if (x[0] == 0) return Shape();
  if (x[0] > d.ndim())
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": indices ", x.ToString(), " address ",
         x[0], " axes of an array with ndim ", d.ndim(),
         " (expected indices.shape[0] <= ", d.ndim(), ")");
  std::vector<int64_t> dims(x.dims().begin() + 1, x.dims().end());
  dims.insert(dims.end(), d.dims().begin() + x[0], d.dims().end());
  return Shape(dims);
}

bool GatherNdShapeFn(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &d = (*in)[0], &x = (*in)[1];
  if (!d.ndim_known() || !x.ndim_known()) return false;
  Shape s = GatherNdShape(attrs, d, x);
  if (s.ndim_known()) AssignShape(attrs, out, 0, s, "output");
  return AllKnown(*in) && AllKnown(*out);
}

// _backward_gather_nd(ograd, indices, data) -> data's shape.
bool GatherNdBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[2], "output");
  AssignShape(attrs, in, 2, (*out)[0], "input 'data'");
  const Shape &d = (*in)[2], &x = (*in)[1];
  if (d.ndim_known() && x.ndim_known()) {
    Shape s = GatherNdShape(attrs, d, x);
    if (s.ndim_known()) AssignShape(attrs, in, 0, s, "input 'ograd'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool ScatterNdShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& shape = attrs.params.GetShape("shape");
  AssignShape(attrs, out, 0, shape, "output");
  const Shape& x = (*in)[1];
  if (x.ndim_known()) {
    Shape s = GatherNdShape(attrs, shape, x);
    if (s.ndim_known()) AssignShape(attrs, in, 0, s, "input 'data'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

// take on a run's arrays where one has no elements (OpDef::infer_empty_shape):
// the shape TakeShape gives, refused when indices address an empty axis.
std::vector<Shape> TakeEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  const Shape &a = in[0], &x = in[1];
  const int axis = GatherAxis(attrs, a.ndim());
  if (a[axis] == 0 && x.Size() > 0)
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": input 'a' ", a.ToString(),
         " has no elements on axis ", axis, " to take, but input 'indices' ", x.ToString(),
         " asks for ", x.Size());
  std::vector<int64_t> dims(a.dims().begin(), a.dims().begin() + axis);
  dims.insert(dims.end(), x.dims().begin(), x.dims().end());
  dims.insert(dims.end(), a.dims().begin() + axis + 1, a.dims().end());
  return {Shape(dims)};
}

// gather_nd likewise: indices (M, Y...) of no tuple give Y... + data.shape[M:];
// tuples into an axis of data without elements are refused.
std::vector<Shape> GatherNdEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  const Shape &d = in[0], &x = in[1];
  const Shape out = GatherNdShape(attrs, d, x);
  if (!out.ndim_known())
    Fail(StatusCode::kShape, "operator ", attrs.op->name, ": indices ", x.ToString(),
         " address no axis");
  for (int64_t i = 0; i < x[0] && out.Size() > 0; ++i)
    if (d[static_cast<int>(i)] == 0)
      Fail(StatusCode::kShape, "operator ", attrs.op->name, ": indices ", x.ToString(),
           " address axis ", i, " of data ", d.ToString(), ", which has no elements");
  return {out};
}

OpDef Def(const std::string& name, const std::string& doc, int num_inputs,
          std::vector<std::string> names, std::vector<ParamDecl> params, InferShapeFn shape,
          InferTypeFn type) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.num_inputs = num_inputs;
  d.input_names = FixedNames(std::move(names));
  d.params = std::move(params);
  d.infer_shape = std::move(shape);
  d.infer_type = std::move(type);
  return d;
}

}  // namespace

void RegisterGatherOps(OpRegistry* reg) {
  OpDef p = Def("pick", "Picks one element per position along an axis.", 2, {"data", "index"},
                PickParams(), PickShape, FollowInput<0>);
  p.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> g =
        BackwardNode(r, "_backward_pick", n, {og[0], n->inputs[0], n->inputs[1]}, 1);
    g.push_back(Zeros(r, n, 1));
    return g;
  };
  reg->Add(std::move(p));
  reg->Add(Def("_backward_pick", "Gradient of pick: ograd placed at the picked positions.", 3,
               {"ograd", "data", "index"}, PickParams(), PickShape, FollowInput<0>));

  OpDef o = Def("one_hot", "One-hot encoding of integer indices.", 1, {"indices"}, OneHotParams(),
                OneHotShape, OneHotType);
  o.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>&) {
    return std::vector<NodeEntry>{Zeros(r, n, 0)};
  };
  reg->Add(std::move(o));

  OpDef t = Def("take", "Takes elements of `a` along an axis by index.", 2, {"a", "indices"},
                TakeParams(), TakeShape, FollowInput<0>);
  t.infer_empty_shape = TakeEmptyShape;
  t.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> g =
        BackwardNode(r, "_backward_take", n, {og[0], n->inputs[0], n->inputs[1]}, 1);
    g.push_back(Zeros(r, n, 1));
    return g;
  };
  reg->Add(std::move(t));
  reg->Add(Def("_backward_take", "Gradient of take: ograd summed into the taken rows.", 3,
               {"ograd", "a", "indices"}, TakeParams(), TakeShape, FollowInput<0>));

  OpDef g = Def("gather_nd", "Gathers elements or slices addressed by index tuples.", 2,
                {"data", "indices"}, {}, GatherNdShapeFn, FollowInput<0>);
  g.infer_empty_shape = GatherNdEmptyShape;
  g.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> gr =
        BackwardNode(r, "_backward_gather_nd", n, {og[0], n->inputs[1], n->inputs[0]}, 1);
    gr.push_back(Zeros(r, n, 1));
    return gr;
  };
  reg->Add(std::move(g));
  reg->Add(Def("_backward_gather_nd",
               "Gradient of gather_nd: ograd summed into the addressed positions.", 3,
               {"ograd", "indices", "data"}, {}, GatherNdBackwardShape, FollowInput<0>));

  OpDef s =
      Def("scatter_nd", "Writes data into zeros of `shape` at the addressed positions.", 2,
          {"data", "indices"}, {RequiredParam("shape", ParamType::kShape, "Shape of the output.")},
          ScatterNdShape, FollowInput<0>);
  s.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "gather_nd", GradName(n, "backward"), {og[0], n->inputs[1]}),
        Zeros(r, n, 1)};
  };
  reg->Add(std::move(s));
}

}  // namespace op
}  // namespace weft
