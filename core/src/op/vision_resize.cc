// Resizing operators of segmentation/detection heads with MXNet 1.9's names
// and semantics: _contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D
// with their backward ops. Both work on data (N, C, H, W).
//
// AdaptiveAvgPooling2D(output_size=()): output (N, C, OH, OW) with
//   (OH, OW) = (1, 1) for (), (s, s) for (s,), else the pair; cell (i, j)
//   averages rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for columns.
//   Gradient `_backward_contrib_AdaptiveAvgPooling2D(ograd, data)` (data
//   gives the shape).
// BilinearResize2D(height=1, width=1, scale_height=None, scale_width=None,
//   mode=size, align_corners=True): output size by mode: size = (height,
//   width), or int(scale * H/W) when scale_height is given (MXNet then reads
//   scale_width too); odd_scale = (H-1)*scale+1 for odd H, H*scale for even;
//   like = the (H, W) of the second input "like"; to_even_down/up,
//   to_odd_down/up = H or W moved by one to the nearest even/odd value.
//   Bilinear interpolation as PyTorch's interpolate(mode='bilinear'):
//   align_corners maps corner pixel centres onto each other, otherwise
//   src = (dst + 0.5) * in/out - 0.5 clamped at 0 (scales in float).
//   Gradient `_backward_contrib_BilinearResize2D(ograd, data)`; "like" gets
//   zeros.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

void Need4D(const NodeAttrs& attrs, const Shape& d) {
  if (d.ndim_known() && d.ndim() != 4)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must be (N, C, H, W), given ",
         d.ToString());
}

bool AdaptiveShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& os = attrs.params.GetShape("output_size");
  if (os.ndim() > 2 || (os.ndim() >= 1 && os[0] <= 0) || (os.ndim() == 2 && os[1] <= 0))
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
         ": parameter 'output_size' = ", os.ToString(),
         " must be (), (size,) or (height, width) with positive values");
  const int64_t oh = os.ndim() == 0 ? 1 : os[0], ow = os.ndim() == 0 ? 1 : os[os.ndim() - 1];
  Need4D(attrs, (*in)[0]);
  if (!(*in)[0].ndim_known()) return false;
  const Shape& d = (*in)[0];
  AssignShape(attrs, out, 0, Shape({d[0], d[1], oh, ow}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

// MXNet's output extent of one axis of extent `n` for `mode`.
int64_t ResizeExtent(const NodeAttrs& attrs, const std::string& mode, int64_t n, bool is_h) {
  const ParamValues& p = attrs.params;
  const char* sk = is_h ? "scale_height" : "scale_width";
  auto scale = [&]() -> double {
    if (p.IsNone(sk))
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": mode '", mode, "' needs parameter '",
           sk, "'");
    return static_cast<float>(p.GetFloat(sk));
  };
  if (mode == "size")
    return p.IsNone("scale_height") ? p.GetInt(is_h ? "height" : "width")
                                    : static_cast<int64_t>(scale() * n);
  if (mode == "odd_scale")
    return n % 2 == 0 ? static_cast<int64_t>(n * scale())
                      : static_cast<int64_t>((n - 1) * scale()) + 1;
  if (mode == "to_even_down") return n % 2 == 0 ? n : n - 1;
  if (mode == "to_even_up") return n % 2 == 0 ? n : n + 1;
  if (mode == "to_odd_down") return n % 2 == 1 ? n : n - 1;
  return n % 2 == 1 ? n : n + 1;  // to_odd_up
}

bool ResizeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const std::string& mode = attrs.params.GetString("mode");
  Need4D(attrs, (*in)[0]);
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  int64_t oh, ow;
  if (mode == "like") {
    const Shape& l = (*in)[1];
    if (!l.ndim_known()) return false;
    if (l.ndim() != 4)
      Fail(StatusCode::kShape, OpLabel(attrs), ": input 'like' must be 4-D, given ", l.ToString());
    oh = l[2];
    ow = l[3];
  } else {
    if (d[2] <= 0 || d[3] <= 0) return false;
    oh = ResizeExtent(attrs, mode, d[2], true);
    ow = ResizeExtent(attrs, mode, d[3], false);
    if (oh <= 0 || ow <= 0)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": the output size (", oh, ", ", ow,
           ") of input ", d.ToString(), " is not positive");
  }
  AssignShape(attrs, out, 0, Shape({d[0], d[1], oh, ow}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool GradToDataShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> ResizeParams() {
  return {IntRangeParam("height", "1", 1, 1e9, "Output height (mode size)."),
          IntRangeParam("width", "1", 1, 1e9, "Output width (mode size)."),
          Optional(FloatParam("scale_height", "None", "Height scale (modes size and odd_scale).")),
          Optional(FloatParam("scale_width", "None", "Width scale (modes size and odd_scale).")),
          EnumParam("mode", "size",
                    {"size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down",
                     "to_odd_up"},
                    "How the output size is chosen."),
          BoolParam("align_corners", "True", "Align the corner pixel centres.")};
}

OpDef GradDef(const std::string& name, std::vector<ParamDecl> params) {
  OpDef b;
  b.name = name;
  b.doc = "Gradient w.r.t. data from (ograd, data); data gives the shape.";
  b.params = std::move(params);
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.output_names = FixedNames({"data_grad"});
  b.infer_shape = GradToDataShape;
  b.infer_type = ElemwiseType;
  return b;
}

}  // namespace

void RegisterVisionResize(OpRegistry* reg) {
  const std::vector<ParamDecl> ap = {
      ShapeParam("output_size", "()", "Output size: (), (size,) or (height, width).")};
  OpDef a;
  a.name = "_contrib_AdaptiveAvgPooling2D";
  a.doc = "Average pooling to a fixed output size (MXNet semantics).";
  a.params = ap;
  a.infer_shape = AdaptiveShape;
  a.infer_type = ElemwiseType;
  a.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_contrib_AdaptiveAvgPooling2D", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(a));
  reg->Add(GradDef("_backward_contrib_AdaptiveAvgPooling2D", ap));

  OpDef b;
  b.name = "_contrib_BilinearResize2D";
  b.doc = "Bilinear resizing of (N, C, H, W) maps (MXNet semantics).";
  b.params = ResizeParams();
  b.num_inputs_fn = [](const ParamValues& p) { return p.GetString("mode") == "like" ? 2 : 1; };
  b.input_names = [](const ParamValues& p) {
    return p.GetString("mode") == "like" ? std::vector<std::string>{"data", "like"}
                                         : std::vector<std::string>{"data"};
  };
  b.infer_shape = ResizeShape;
  b.infer_type = ElemwiseType;
  b.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> g =
        BackwardNode(r, "_backward_contrib_BilinearResize2D", n, {og[0], n->inputs[0]}, 1);
    if (n->inputs.size() > 1)
      g.push_back(MakeOpEntry(r, "zeros_like", GradName(n, "like_grad"), {n->inputs[1]}));
    return g;
  };
  reg->Add(std::move(b));
  reg->Add(GradDef("_backward_contrib_BilinearResize2D", ResizeParams()));
}

}  // namespace op
}  // namespace weft
