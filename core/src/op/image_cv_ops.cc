// MXNet 1.9.1's OpenCV image operators that have a shape function
// (src/io/image_io.cc), on one (H, W, C) image; kernels in
// kernels/cpu/image_cv_ops.cc.
//
// _cvimresize(w, h, interp=1): cv::resize to (h, w, C); uint8 (weft/image_aug.h's
//   ResizeImage, nearest or bilinear; other dtypes and methods refused).
// _cvcopyMakeBorder(top, bot, left, right, type=0, value=0, values=()):
//   cv::copyMakeBorder to (H + top + bot, W + left + right, C); type 0
//   constant (channel c filled with values[c], 0 past its end, or with
//   `value` on the first three channels when `values` is empty), 1
//   replicate, 2 reflect, 3 wrap, 4 reflect-101; float32, float64, uint8,
//   int32 (OpenCV's types MXNet maps).
//
// _cvimdecode and _cvimread are not operators here: in MXNet they are
// NDArray functions whose output shape comes from the encoded bytes (no
// shape function), so they cannot appear in a symbol; weft/image.h's
// DecodeImage and the C ABI's image functions decode.
#include "op/nn_spatial.h"
#include "op/op_common.h"
#include "op/vision_params.h"

namespace weft {
namespace op {

namespace {

bool Need3D(const NodeAttrs& attrs, const Shape& s) {
  if (!s.ndim_known()) return false;
  if (s.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'src' must be an image (H, W, C), given ",
         s.ToString());
  return true;
}

bool ImresizeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!Need3D(attrs, (*in)[0])) return false;
  const ParamValues& p = attrs.params;
  AssignShape(attrs, out, 0, Shape({p.GetInt("h"), p.GetInt("w"), (*in)[0][2]}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool BorderShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!Need3D(attrs, (*in)[0])) return false;
  const ParamValues& p = attrs.params;
  const int64_t t = p.GetInt("top"), b = p.GetInt("bot"), l = p.GetInt("left"),
                r = p.GetInt("right");
  if (t < 0 || b < 0 || l < 0 || r < 0)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": margins (top ", t, ", bot ", b, ", left ",
         l, ", right ", r, ") must not be negative");
  const Shape& s = (*in)[0];
  auto grow = [](int64_t n, int64_t add) { return n > 0 ? n + add : 0; };
  AssignShape(attrs, out, 0, Shape({grow(s[0], t + b), grow(s[1], l + r), s[2]}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

OpDef CvDef(const std::string& name, const std::string& doc, std::vector<ParamDecl> params,
            InferShapeFn shape) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.params = std::move(params);
  d.input_names = FixedNames({"src"});
  d.infer_shape = std::move(shape);
  d.infer_type = ElemwiseType;
  return d;
}

}  // namespace

void RegisterImageCvOps(OpRegistry* reg) {
  OpDef r =
      CvDef("_cvimresize", "Resizes an (H, W, C) image (OpenCV's cv::resize).",
            {Ranged(RequiredParam("w", ParamType::kInt, "Width of the resized image."), 1, 1e9),
             Ranged(RequiredParam("h", ParamType::kInt, "Height of the resized image."), 1, 1e9),
             IntParam("interp", "1", "Interpolation: 0 nearest, 1 bilinear.")},
            ImresizeShape);
  r.aliases = {"_npi_cvimresize"};
  reg->Add(std::move(r));
  reg->Add(
      CvDef("_cvcopyMakeBorder", "Pads an (H, W, C) image (OpenCV's cv::copyMakeBorder).",
            {RequiredParam("top", ParamType::kInt, "Top margin."),
             RequiredParam("bot", ParamType::kInt, "Bottom margin."),
             RequiredParam("left", ParamType::kInt, "Left margin."),
             RequiredParam("right", ParamType::kInt, "Right margin."),
             IntRangeParam("type", "0", 0, 4,
                           "Border: 0 constant, 1 replicate, 2 reflect, 3 wrap, 4 reflect-101."),
             FloatParam("value", "0.0", "Constant fill of the first three channels (deprecated)."),
             FloatTupleParam("values", "()", "Constant fill per channel (up to 4).")},
            BorderShape));
}

}  // namespace op
}  // namespace weft
