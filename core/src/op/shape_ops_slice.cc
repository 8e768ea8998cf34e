// Element-moving shape operators with MXNet 1.9 names and semantics (their
// element maps live in shape_view.cc):
//   slice (alias crop)(data; begin, end, step=()): tuples with None entries.
//   slice_like(data, shape_like; axes=()): data cut to shape_like's extents
//     on `axes` (all axes when empty), starting at 0.
//   Crop(arg0[, arg1]; num_args, offset=(0,0), h_w=(0,0), center_crop=False):
//     legacy 4-D crop to h_w (num_args=1) or to arg1's (H, W) (num_args=2).
//   reverse (alias flip)(data; axis): reverses the listed axes.
//   SwapAxis (alias swapaxes)(data; dim1=0, dim2=0).
//   depth_to_space / space_to_depth(data; block_size).
//   diag(data; k=0, axis1=0, axis2=1).
// Gradients: `_backward_<op>(ograd, data)` scatters the head gradient back
// through the same view (zeros elsewhere; 1-D diag gathers it instead);
// the shape-only inputs (shape_like, Crop's arg1) get zeros_like.
#include <algorithm>

#include "op_common.h"
#include "shape_view.h"

namespace weft {
namespace op {

Shape SliceOutShape(const ParamValues& p, const Shape& d);
std::pair<int64_t, int64_t> CropOffset(const ParamValues& p, const Shape& d, const Shape& o);

namespace {

// `_backward_<fwd>(ograd, data)` -> data's gradient; the other inputs of
// the forward node (shape donors) get zeros_like.
GradientFn ViewGrad(const std::string& fwd) {
  return [fwd](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> g = BackwardNode(r, "_backward_" + fwd, n, {og[0], n->inputs[0]}, 1);
    for (size_t i = 1; i < n->inputs.size(); ++i)
      g.push_back(
          MakeOpEntry(r, "zeros_like", GradName(n, "zeros" + std::to_string(i)), {n->inputs[i]}));
    return g;
  };
}

bool ViewBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

Shape SliceLikeOut(const ParamValues& p, const Shape& d, const Shape& like) {
  const Shape& axes = p.GetShape("axes");
  Shape o = d;
  auto take = [&](int a, int from) {
    if (like[from] > 0 && d[a] > 0 && like[from] > d[a])
      Fail(StatusCode::kShape, "operator slice_like: axis ", a, " of shape_like ", like.ToString(),
           " exceeds data ", d.ToString());
    o[a] = like[from];
  };
  if (axes.ndim() <= 0) {
    if (d.ndim() != like.ndim())
      Fail(StatusCode::kShape, "operator slice_like: data ", d.ToString(), " and shape_like ",
           like.ToString(), " differ in rank (axes=() slices every axis)");
    for (int i = 0; i < d.ndim(); ++i) take(i, i);
  } else {
    for (int k = 0; k < axes.ndim(); ++k) {
      const int a = CheckAxis("slice_like", "axis", axes[k], d.ndim());
      if (a >= like.ndim())
        Fail(StatusCode::kShape, "operator slice_like: axis ", axes[k], " exceeds shape_like ",
             like.ToString());
      take(a, a);
    }
  }
  return o;
}

bool SliceLikeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].ndim_known() || !(*in)[1].ndim_known()) return false;
  AssignShape(attrs, out, 0, SliceLikeOut(attrs.params, (*in)[0], (*in)[1]), "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool SliceLikeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, (*in)[0], "output");
  AssignType(attrs, in, 0, (*out)[0], "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

bool CropShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (d.ndim() != 4)
    Fail(StatusCode::kShape, "operator Crop: input 'arg0' must be 4-D (N, C, H, W), given ",
         d.ToString());
  Shape o = d;
  if (attrs.params.GetInt("num_args") == 1) {
    const Shape& hw = attrs.params.GetShape("h_w");
    if (hw.ndim() != 2 || hw[0] < 1 || hw[1] < 1 || (d[2] > 0 && hw[0] > d[2]) ||
        (d[3] > 0 && hw[1] > d[3]))
      Fail(StatusCode::kInvalidArgument, "operator Crop: h_w ", hw.ToString(),
           " must be (h, w) with 1 <= h <= ", d[2], " and 1 <= w <= ", d[3], " for data ",
           d.ToString());
    o[2] = hw[0];
    o[3] = hw[1];
  } else {
    const Shape& like = (*in)[1];
    if (!like.ndim_known()) return false;
    if (like.ndim() < 4)
      Fail(StatusCode::kShape, "operator Crop: input 'arg1' must be 4-D (N, C, H, W), given ",
           like.ToString());
    o[2] = like[2];
    o[3] = like[3];
  }
  if (o.is_known() && d.is_known()) CropOffset(attrs.params, d, o);  // validates the offset
  AssignShape(attrs, out, 0, o, "output");
  return AllKnown(*in) && AllKnown(*out);
}

Shape ReverseOut(const ParamValues& p, const Shape& d) {
  const Shape& axes = p.GetShape("axis");
  std::vector<bool> seen(d.ndim(), false);
  for (int k = 0; k < axes.ndim(); ++k) {
    const int a = CheckAxis("reverse", "axis", axes[k], d.ndim());
    if (seen[a])
      Fail(StatusCode::kInvalidArgument, "operator reverse: axis ", axes.ToString(),
           " repeats axis ", a);
    seen[a] = true;
  }
  return d;
}

bool ReverseShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  ElemwiseShape(attrs, in, out);
  if ((*in)[0].ndim_known()) ReverseOut(attrs.params, (*in)[0]);
  return AllKnown(*in) && AllKnown(*out);
}

bool SwapAxisShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  for (int dir = 0; dir < 2; ++dir) {  // data -> output, then output -> data
    const Shape& src = dir == 0 ? (*in)[0] : (*out)[0];
    if (!src.ndim_known()) continue;
    Shape t = src;
    std::swap(t[CheckAxis("SwapAxis", "dim1", p.GetInt("dim1"), t.ndim())],
              t[CheckAxis("SwapAxis", "dim2", p.GetInt("dim2"), t.ndim())]);
    if (dir == 0)
      AssignShape(attrs, out, 0, t, "output");
    else
      AssignShape(attrs, in, 0, t, "input 'data'");
  }
  return AllKnown(*in) && AllKnown(*out);
}

Shape DepthSpaceOut(const ParamValues& p, const Shape& d, bool to_space) {
  const char* op = to_space ? "depth_to_space" : "space_to_depth";
  const int64_t b = p.GetInt("block_size");
  if (b < 1)
    Fail(StatusCode::kInvalidArgument, "operator ", op, ": block_size must be positive, given ", b);
  if (d.ndim() != 4)
    Fail(StatusCode::kShape, "operator ", op, ": data must be 4-D (N, C, H, W), given ",
         d.ToString());
  Shape o = d;
  auto divide = [&](int i, int64_t by) {
    if (d[i] > 0 && d[i] % by != 0)
      Fail(StatusCode::kShape, "operator ", op, ": axis ", i, " of data ", d.ToString(),
           " is not divisible by ", by);
    o[i] = d[i] / by;
  };
  if (to_space) {
    divide(1, b * b);
    o[2] = d[2] * b;
    o[3] = d[3] * b;
  } else {
    o[1] = d[1] * b * b;
    divide(2, b);
    divide(3, b);
  }
  return o;
}
Shape DepthToSpaceOut(const ParamValues& p, const Shape& d) { return DepthSpaceOut(p, d, true); }
Shape SpaceToDepthOut(const ParamValues& p, const Shape& d) { return DepthSpaceOut(p, d, false); }

Shape DiagOut(const ParamValues& p, const Shape& d) {
  const int64_t k = p.GetInt("k");
  if (d.ndim() == 0) Fail(StatusCode::kShape, "operator diag: data must have rank >= 1");
  if (d.ndim() == 1) {
    const int64_t s = d[0] > 0 ? d[0] + std::abs(k) : 0;
    return Shape({s, s});
  }
  const int a1 = CheckAxis("diag", "axis1", p.GetInt("axis1"), d.ndim());
  const int a2 = CheckAxis("diag", "axis2", p.GetInt("axis2"), d.ndim());
  if (a1 == a2)
    Fail(StatusCode::kInvalidArgument, "operator diag: axis1 and axis2 both refer to axis ", a1);
  std::vector<int64_t> dims;
  for (int i = 0; i < d.ndim(); ++i)
    if (i != a1 && i != a2) dims.push_back(d[i]);
  int64_t len = 0;
  if (d[a1] > 0 && d[a2] > 0) {
    len = std::min(d[a1] + std::min<int64_t>(k, 0), d[a2] - std::max<int64_t>(k, 0));
    if (len <= 0)
      Fail(StatusCode::kShape, "operator diag: diagonal k=", k, " does not exist in data ",
           d.ToString());
  }
  dims.push_back(len);
  return Shape(dims);
}

OpDef ViewDef(const std::string& name, std::vector<std::string> aliases, const std::string& doc,
              std::vector<ParamDecl> params, InferShapeFn shape) {
  OpDef f = ShapeOpDef(name, std::move(aliases), doc, std::move(params), std::move(shape));
  f.gradient = ViewGrad(name);
  return f;
}

}  // namespace

// Adds `_backward_<fwd>(ograd, data)` with the forward op's parameters.
void AddViewBackward(OpRegistry* reg, const std::string& fwd) {
  OpDef b;
  b.name = "_backward_" + fwd;
  b.doc = "Gradient of " + fwd + ": the head gradient moved back through the forward element map.";
  b.params = reg->Get(fwd).params;
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.infer_shape = ViewBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

namespace {

// slice of a run's array without elements: an axis of extent 0 stays 0
// (Python's slice of an empty axis), the others are sliced as ever.
std::vector<Shape> SliceEmptyShape(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  return {SliceOutShape(attrs.params, in[0])};
}

// slice, which takes a run's arrays without elements.
OpDef SliceDef() {
  OpDef sc = ViewDef(
      "slice", {"crop"}, "A strided slice with Python semantics per axis.",
      {RequiredParam("begin", ParamType::kString, "Start indices per axis (None = default)."),
       RequiredParam("end", ParamType::kString,
                     "End indices per axis, exclusive (None = default)."),
       StringParam("step", "()", "Steps per axis (None or empty = 1).")},
      OutFromData<SliceOutShape>);
  sc.infer_empty_shape = SliceEmptyShape;
  return sc;
}

}  // namespace

void RegisterShapeOpsSlice(OpRegistry* reg) {
  reg->Add(SliceDef());

  OpDef sl = ViewDef("slice_like", {}, "data cut to shape_like's extents on `axes`.",
                     {ShapeParam("axes", "()", "Axes to slice; empty = all.")}, SliceLikeShape);
  sl.num_inputs = 2;
  sl.input_names = FixedNames({"data", "shape_like"});
  sl.infer_type = SliceLikeType;
  reg->Add(std::move(sl));

  OpDef cr = ViewDef("Crop", {}, "Crops the (H, W) plane of a 4-D array (legacy).",
                     {Ranged(RequiredParam("num_args", ParamType::kInt,
                                           "1: crop to h_w; 2: crop to arg1's (H, W)."),
                             1, 3),
                      ShapeParam("offset", "(0,0)", "Crop offset (y, x)."),
                      ShapeParam("h_w", "(0,0)", "Crop size (h, w) when num_args=1."),
                      BoolParam("center_crop", "False", "Centre the crop (ignores offset).")},
                     CropShape);
  cr.key_var_num_args = "num_args";
  cr.num_inputs_fn = [](const ParamValues& p) {
    return static_cast<int>(std::min<int64_t>(p.GetInt("num_args"), 2));
  };
  cr.input_names = [](const ParamValues& p) {
    return p.GetInt("num_args") >= 2 ? std::vector<std::string>{"arg0", "arg1"}
                                     : std::vector<std::string>{"arg0"};
  };
  cr.infer_type = SliceLikeType;
  reg->Add(std::move(cr));

  OpDef rv = ViewDef("reverse", {"flip"}, "Reverses the order of elements along `axis`.",
                     {RequiredParam("axis", ParamType::kShape, "Axes to reverse.")}, ReverseShape);
  rv.gradient = [](const OpRegistry& r, const NodePtr& nd, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "reverse", GradName(nd, "backward"), {og[0]}, nd->attrs.dict)};
  };
  reg->Add(std::move(rv));

  OpDef sw =
      ViewDef("SwapAxis", {"swapaxes"}, "Interchanges two axes.",
              {IntParam("dim1", "0", "The first axis."), IntParam("dim2", "0", "The second axis.")},
              SwapAxisShape);
  sw.gradient = [](const OpRegistry& r, const NodePtr& nd, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "SwapAxis", GradName(nd, "backward"), {og[0]}, nd->attrs.dict)};
  };
  reg->Add(std::move(sw));

  const std::vector<ParamDecl> block = {
      RequiredParam("block_size", ParamType::kInt, "Edge of the moved blocks.")};
  OpDef d2s = ViewDef("depth_to_space", {}, "Moves channel blocks into (H, W) blocks (DCR order).",
                      block, OutFromData<DepthToSpaceOut>);
  d2s.gradient = [](const OpRegistry& r, const NodePtr& nd, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "space_to_depth", GradName(nd, "backward"), {og[0]}, nd->attrs.dict)};
  };
  reg->Add(std::move(d2s));
  OpDef s2d = ViewDef("space_to_depth", {},
                      "Moves (H, W) blocks into channels (inverse of depth_to_space).", block,
                      OutFromData<SpaceToDepthOut>);
  s2d.gradient = [](const OpRegistry& r, const NodePtr& nd, const std::vector<NodeEntry>& og) {
    return std::vector<NodeEntry>{
        MakeOpEntry(r, "depth_to_space", GradName(nd, "backward"), {og[0]}, nd->attrs.dict)};
  };
  reg->Add(std::move(s2d));

  reg->Add(ViewDef("diag", {}, "Extracts a diagonal, or builds a diagonal matrix from a 1-D array.",
                   {IntParam("k", "0", "Diagonal offset (> 0 above the main diagonal)."),
                    IntParam("axis1", "0", "First axis of the 2-D planes."),
                    IntParam("axis2", "1", "Second axis of the 2-D planes.")},
                   OutFromData<DiagOut>));

  for (const char* op : {"slice", "slice_like", "Crop", "diag"}) AddViewBackward(reg, op);
}

}  // namespace op
}  // namespace weft
