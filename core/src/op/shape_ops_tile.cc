// Replicating shape operators with MXNet 1.9 names and semantics:
//   tile(data; reps): the result has rank max(len(reps), ndim); the shorter
//     of reps and data's shape is padded with leading 1s; reps=() copies.
//   repeat(data; repeats, axis=None): repeats each element `repeats` times
//     along `axis`, or along the flattened array when axis is None.
//   broadcast_to(data; shape=()): 0 in `shape` keeps data's extent.
//   broadcast_like(lhs, rhs; lhs_axes=None, rhs_axes=None): lhs broadcast to
//     rhs's shape, or only lhs_axes[i] to rhs's extent on rhs_axes[i].
//   broadcast_axis (alias broadcast_axes)(data; axis=(), size=()).
//   stack(arg0, ...; axis=0, num_args): joins along a new axis.
// Gradients: tile/repeat -> `_backward_<op>(ograd, data)` (sums the copies);
// the broadcasts -> _broadcast_backward_reduce(ograd, data) (rhs of
// broadcast_like gets zeros_like); stack -> SliceChannel(squeeze_axis).
#include <algorithm>

#include "elemwise_common.h"
#include "shape_view.h"

namespace weft {
namespace op {

void AddViewBackward(OpRegistry* reg, const std::string& fwd);

namespace {

// reps and data dims right-aligned to a common rank (padded with 1s).
void TileAlign(const ParamValues& p, const Shape& d, std::vector<int64_t>* reps,
               std::vector<int64_t>* dims) {
  const Shape& r = p.GetShape("reps");
  const int m = std::max(d.ndim(), std::max(r.ndim(), 0));
  reps->assign(m, 1);
  dims->assign(m, 1);
  for (int i = 0; i < r.ndim(); ++i) {
    if (r[i] < 1)
      Fail(StatusCode::kInvalidArgument, "operator tile: reps ", r.ToString(),
           " must be positive (zero-size arrays are not supported)");
    (*reps)[m - r.ndim() + i] = r[i];
  }
  for (int i = 0; i < d.ndim(); ++i) (*dims)[m - d.ndim() + i] = d[i];
}

Shape TileOut(const ParamValues& p, const Shape& d) {
  std::vector<int64_t> reps, dims;
  TileAlign(p, d, &reps, &dims);
  for (size_t i = 0; i < dims.size(); ++i) dims[i] *= reps[i];
  return Shape(dims);
}

// repeat's normalised axis, or -1 for None.
int RepeatAxis(const ParamValues& p, const Shape& d) {
  if (p.GetInt("repeats") < 1)
    Fail(StatusCode::kInvalidArgument, "operator repeat: repeats must be positive, given ",
         p.GetInt("repeats"), " (zero-size arrays are not supported)");
  return p.IsNone("axis") ? -1 : CheckAxis("repeat", "axis", p.GetInt("axis"), d.ndim());
}

Shape RepeatOut(const ParamValues& p, const Shape& d) {
  const int a = RepeatAxis(p, d);
  const int64_t r = p.GetInt("repeats");
  if (a < 0) return Shape({d.is_known() ? d.Size() * r : 0});
  Shape o = d;
  o[a] *= r;
  return o;
}

Shape BroadcastToOut(const ParamValues& p, const Shape& d) {
  const Shape& s = p.GetShape("shape");
  if (s.ndim() != d.ndim())
    Fail(StatusCode::kShape, "operator broadcast_to: data ", d.ToString(),
         " cannot be broadcast to ", s.ToString(), " (ranks differ)");
  Shape o = d;
  for (int i = 0; i < d.ndim(); ++i) {
    if (s[i] == 0) continue;
    if (d[i] > 0 && d[i] != s[i] && d[i] != 1)
      Fail(StatusCode::kShape, "operator broadcast_to: data ", d.ToString(),
           " cannot be broadcast to ", s.ToString(), " (axis ", i, ")");
    o[i] = s[i];
  }
  return o;
}

Shape BroadcastAxisOut(const ParamValues& p, const Shape& d) {
  const Shape& axes = p.GetShape("axis");
  const Shape& size = p.GetShape("size");
  if (axes.ndim() != size.ndim())
    Fail(StatusCode::kInvalidArgument, "operator broadcast_axis: axis ", axes.ToString(),
         " and size ", size.ToString(), " differ in length");
  Shape o = d;
  for (int k = 0; k < axes.ndim(); ++k) {
    const int a = CheckAxis("broadcast_axis", "axis", axes[k], d.ndim());
    if (d[a] > 1)
      Fail(StatusCode::kShape, "operator broadcast_axis: axis ", a, " of data ", d.ToString(),
           " has extent ", d[a], ", expected 1");
    if (size[k] < 1)
      Fail(StatusCode::kInvalidArgument, "operator broadcast_axis: size ", size.ToString(),
           " must be positive");
    o[a] = size[k];
  }
  return o;
}

bool BroadcastLikeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& l = (*in)[0];
  const Shape& r = (*in)[1];
  if (!l.ndim_known() || !r.ndim_known()) return false;
  const ParamValues& p = attrs.params;
  Shape o = l;
  if (p.IsNone("lhs_axes") || p.IsNone("rhs_axes")) {
    if (l.ndim() != r.ndim())
      Fail(StatusCode::kShape, "operator broadcast_like: lhs ", l.ToString(),
           " cannot be broadcast to rhs ", r.ToString(), " (ranks differ)");
    for (int i = 0; i < l.ndim(); ++i) {
      if (r[i] == 0) continue;
      if (l[i] > 0 && l[i] != r[i] && l[i] != 1)
        Fail(StatusCode::kShape, "operator broadcast_like: lhs ", l.ToString(),
             " cannot be broadcast to rhs ", r.ToString(), " (axis ", i, ")");
      o[i] = r[i];
    }
  } else {
    const Shape& la = p.GetShape("lhs_axes");
    const Shape& ra = p.GetShape("rhs_axes");
    if (la.ndim() != ra.ndim() || la.ndim() <= 0)
      Fail(StatusCode::kInvalidArgument, "operator broadcast_like: lhs_axes ", la.ToString(),
           " and rhs_axes ", ra.ToString(), " must be non-empty and of equal length");
    for (int k = 0; k < la.ndim(); ++k) {
      const int from = CheckAxis("broadcast_like", "lhs_axes entry", la[k], l.ndim());
      const int to = CheckAxis("broadcast_like", "rhs_axes entry", ra[k], r.ndim());
      if (l[from] > 1)
        Fail(StatusCode::kShape, "operator broadcast_like: axis ", from, " of lhs ", l.ToString(),
             " has extent ", l[from], ", expected 1");
      o[from] = r[to];
    }
  }
  AssignShape(attrs, out, 0, o, "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool LhsType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, (*in)[0], "output");
  AssignType(attrs, in, 0, (*out)[0], "input 'lhs'");
  return AllKnown(*in) && AllKnown(*out);
}

bool StackShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const int64_t n = attrs.params.GetInt("num_args");
  Shape common;
  for (size_t i = 0; i < in->size(); ++i)
    if (!ShapeAssign(&common, (*in)[i]))
      Fail(StatusCode::kShape, "operator stack: input 'arg", i, "' ", (*in)[i].ToString(),
           " differs from the other inputs ", common.ToString());
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {  // the inputs from the output
    const int axis = CheckAxis("stack", "axis", attrs.params.GetInt("axis"), o.ndim());
    std::vector<int64_t> dims = o.dims();
    dims.erase(dims.begin() + axis);
    if (!ShapeAssign(&common, Shape(dims)))
      Fail(StatusCode::kShape, "operator stack: output ", o.ToString(), " does not match inputs ",
           common.ToString());
  }
  if (!common.ndim_known()) return false;
  for (size_t i = 0; i < in->size(); ++i)
    AssignShape(attrs, in, i, common, StrCat("input 'arg", i, "'"));
  const int axis = CheckAxis("stack", "axis", attrs.params.GetInt("axis"), common.ndim() + 1);
  std::vector<int64_t> dims = common.dims();
  dims.insert(dims.begin() + axis, n);
  AssignShape(attrs, out, 0, Shape(dims), "output");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<NodeEntry> ReduceGrad(const OpRegistry& r, const NodePtr& n,
                                  const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> g = {
      GradOp(r, "_broadcast_backward_reduce", n, "backward", {og[0], n->inputs[0]})};
  if (n->inputs.size() > 1) g.push_back(GradOp(r, "zeros_like", n, "rhs_backward", {n->inputs[1]}));
  return g;
}

}  // namespace

StridedView TileView(const ParamValues& p, const Shape& data, const Shape&) {
  std::vector<int64_t> reps, dims;
  TileAlign(p, data, &reps, &dims);
  const std::vector<int64_t> st = RowMajorStrides(Shape(dims));
  StridedView v;
  for (size_t i = 0; i < dims.size(); ++i) {
    v.dims.insert(v.dims.end(), {reps[i], dims[i]});
    v.strides.insert(v.strides.end(), {0, st[i]});
    if (reps[i] > 1) v.injective = false;
  }
  return v;
}

StridedView RepeatView(const ParamValues& p, const Shape& data, const Shape&) {
  const int a = RepeatAxis(p, data);
  const int64_t r = p.GetInt("repeats");
  StridedView v;
  v.injective = r == 1;
  if (a < 0) {
    v.dims = {data.Size(), r};
    v.strides = {1, 0};
    return v;
  }
  v.dims = data.dims();
  v.strides = RowMajorStrides(data);
  v.dims.insert(v.dims.begin() + a + 1, r);
  v.strides.insert(v.strides.begin() + a + 1, 0);
  return v;
}

void RegisterShapeOpsTile(OpRegistry* reg) {
  OpDef t = ShapeOpDef("tile", {}, "Repeats the whole array `reps` times per axis.",
                       {RequiredParam("reps", ParamType::kShape, "Repetitions per axis.")},
                       OutFromData<TileOut>);
  t.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_tile", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(t));

  OpDef rp =
      ShapeOpDef("repeat", {}, "Repeats each element `repeats` times.",
                 {RequiredParam("repeats", ParamType::kInt, "Repetitions of each element."),
                  Optional(IntParam("axis", "None", "Axis to repeat along; None flattens."))},
                 OutFromData<RepeatOut>);
  rp.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_repeat", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(rp));
  AddViewBackward(reg, "tile");
  AddViewBackward(reg, "repeat");

  OpDef bt = ShapeOpDef("broadcast_to", {}, "Broadcasts unit axes to `shape` (0 keeps the extent).",
                        {ShapeParam("shape", "()", "Target shape.")}, OutFromData<BroadcastToOut>);
  bt.gradient = ReduceGrad;
  reg->Add(std::move(bt));

  OpDef ba = ShapeOpDef(
      "broadcast_axis", {"broadcast_axes"}, "Broadcasts the unit axes `axis` to `size`.",
      {ShapeParam("axis", "()", "Axes to broadcast."), ShapeParam("size", "()", "Target extents.")},
      OutFromData<BroadcastAxisOut>);
  ba.gradient = ReduceGrad;
  reg->Add(std::move(ba));

  OpDef bl = ShapeOpDef(
      "broadcast_like", {}, "Broadcasts lhs to rhs's shape (or on the given axes).",
      {Optional(ShapeParam("lhs_axes", "None", "Axes of lhs to broadcast.")),
       Optional(ShapeParam("rhs_axes", "None", "Axes of rhs giving the target extents."))},
      BroadcastLikeShape);
  bl.num_inputs = 2;
  bl.input_names = FixedNames({"lhs", "rhs"});
  bl.infer_type = LhsType;
  bl.gradient = ReduceGrad;
  reg->Add(std::move(bl));

  OpDef st = ShapeOpDef(
      "stack", {}, "Joins arrays of one shape along a new axis.",
      {IntParam("axis", "0", "Position of the new axis in the result."),
       Ranged(RequiredParam("num_args", ParamType::kInt, "Number of inputs to stack."), 1, 1e6)},
      StackShape);
  st.key_var_num_args = "num_args";
  st.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  st.input_names = [](const ParamValues& p) {
    std::vector<std::string> names;
    for (int64_t i = 0; i < p.GetInt("num_args"); ++i) names.push_back("arg" + std::to_string(i));
    return names;
  };
  st.gradient = [](const OpRegistry& r, const NodePtr& nd, const std::vector<NodeEntry>& og) {
    const ParamValues& p = nd->attrs.params;
    std::vector<NodeEntry> g;
    NodePtr split = MakeOpNode(r, "SliceChannel", GradName(nd, "backward"), {og[0]},
                               {{"num_outputs", std::to_string(p.GetInt("num_args"))},
                                {"axis", std::to_string(p.GetInt("axis"))},
                                {"squeeze_axis", "True"}});
    for (int64_t i = 0; i < p.GetInt("num_args"); ++i)
      g.push_back(OutEntry(split, static_cast<uint32_t>(i)));
    return g;
  };
  reg->Add(std::move(st));
}

}  // namespace op
}  // namespace weft
