// The image operators that Gluon's hybridized transforms put into exported
// graphs, with MXNet 1.9.1's names, parameters, defaults, layouts and checks
// (src/operator/image/*.cc); kernels in kernels/cpu/image_ops.cc and
// image_color_ops.cc.
//
// Layouts: _image_to_tensor takes an image (H, W, C) or a batch (N, H, W, C)
// of any dtype and gives float32 (C, H, W) / (N, C, H, W) = value / 255.
// _image_normalize takes (C, H, W) or (N, C, H, W) with C 1 or 3 and gives
// (x - mean[c]) / std[c] (mean and std: one value, or one per channel; the
// defaults (0, 0, 0, 0) and (1, 1, 1, 1), of length 4, are refused as MXNet
// refuses them, so a graph always carries its own). _image_resize and
// _image_crop take (H, W, C) or (N, H, W, C) with C 1 or 3; the flips and the
// colour ops one image (H, W, C), C 1 or 3.
//
// _image_resize(size, keep_ratio=False, interp=1): size (w, h), or (s,) for
// s x s, or with keep_ratio the shorter side s and the longer side scaled
// (integer arithmetic as MXNet's). _image_crop(x, y, width, height): the
// region at column x, row y. _image_random_* draw from the context's
// RandomState (Runtime::Seed reseeds it): flips with probability 1/2;
// brightness/contrast/saturation/hue a factor U(min_factor, max_factor);
// color_jitter(brightness, contrast, saturation, hue) the four in a random
// order; lighting alpha_std's three normal draws (AlexNet PCA noise).
//
// Gradients: _image_normalize (_backward_image_normalize(ograd, data) =
// ograd / std[c]) and _image_crop (_backward_image_crop(ograd, data): ograd
// placed in zeros of the data's shape; MXNet's takes ograd alone). The
// others have none (MXNet passes the head gradient through unchanged, of the
// wrong shape for a resize or a crop).
#include "op/nn_spatial.h"
#include "op/op_common.h"
#include "op/vision_params.h"

namespace weft {
namespace op {

namespace {

// (H, W, C) or, when `batch`, also (N, H, W, C), with C 1 or 3; false when
// the rank is unknown.
bool CheckImage(const NodeAttrs& attrs, const Shape& s, bool batch) {
  if (!s.ndim_known()) return false;
  if (s.ndim() != 3 && !(batch && s.ndim() == 4))
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must be an image (H, W, C)",
         batch ? " or a batch (N, H, W, C)" : "", ", given ", s.ToString());
  const int64_t c = s[s.ndim() - 1];
  if (c != 0 && c != 1 && c != 3)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must have 1 or 3 channels (last axis), given ", s.ToString());
  return true;
}

bool ToTensorShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  if (s.ndim() != 3 && s.ndim() != 4)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must be (H, W, C) or (N, H, W, C), given ", s.ToString());
  const Shape o = s.ndim() == 3 ? Shape({s[2], s[0], s[1]}) : Shape({s[0], s[3], s[1], s[2]});
  AssignShape(attrs, out, 0, o, "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool Float32Out(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, out, 0, DType::kFloat32, "output");
  return AllKnown(*in);
}

bool NormalizeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  if (s.ndim() != 3 && s.ndim() != 4)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'data' must be (C, H, W) or (N, C, H, W), given ", s.ToString());
  const int64_t c = s[s.ndim() - 3];
  if (c != 0 && c != 1 && c != 3)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must have 1 or 3 channels, given ",
         s.ToString());
  for (const char* key : {"mean", "std"}) {
    const size_t n = FloatTupleValue(attrs, key).size();
    if (c != 0 && n != 1 && static_cast<int64_t>(n) != c)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter '", key, "' has ", n,
           " values; input ", s.ToString(), " needs 1 or ", c);
  }
  return ElemwiseShape(attrs, in, out);
}

// MXNet's GetHeightAndWidth: the (height, width) _image_resize gives.
std::pair<int64_t, int64_t> ResizeTarget(const NodeAttrs& attrs, int64_t h, int64_t w) {
  const Shape& size = attrs.params.GetShape("size");
  if (size.ndim() != 1 && size.ndim() != 2)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
         ": parameter 'size' must be (size,) or (width, height), given ", size.ToString());
  for (int i = 0; i < size.ndim(); ++i)
    if (size[i] <= 0)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'size' = ", size.ToString(),
           " must be positive");
  if (size.ndim() == 2) return {size[1], size[0]};
  const int64_t s = size[0];
  if (!attrs.params.GetBool("keep_ratio")) return {s, s};
  if (h > w) return {static_cast<int>(h * s / w), s};
  return {s, static_cast<int>(w * s / h)};
}

bool ResizeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!CheckImage(attrs, (*in)[0], true)) return false;
  const Shape& s = (*in)[0];
  const int r = s.ndim();
  if (s[r - 3] <= 0 || s[r - 2] <= 0) return false;
  const auto hw = ResizeTarget(attrs, s[r - 3], s[r - 2]);
  const Shape o =
      r == 3 ? Shape({hw.first, hw.second, s[2]}) : Shape({s[0], hw.first, hw.second, s[3]});
  AssignShape(attrs, out, 0, o, "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool CropShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!CheckImage(attrs, (*in)[0], true)) return false;
  const Shape& s = (*in)[0];
  const int r = s.ndim();
  const ParamValues& p = attrs.params;
  const int64_t x = p.GetInt("x"), y = p.GetInt("y"), w = p.GetInt("width"), h = p.GetInt("height");
  if (w <= 0 || h <= 0 || x < 0 || y < 0)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": the crop (x ", x, ", y ", y, ", width ",
         w, ", height ", h, ") needs x, y >= 0 and a positive width and height");
  if ((s[r - 2] > 0 && x + w > s[r - 2]) || (s[r - 3] > 0 && y + h > s[r - 3]))
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": the crop (x ", x, ", y ", y, ", width ",
         w, ", height ", h, ") is not inside input ", s.ToString());
  const Shape o = r == 3 ? Shape({h, w, s[2]}) : Shape({s[0], h, w, s[3]});
  AssignShape(attrs, out, 0, o, "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool ImageShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckImage(attrs, (*in)[0], false);
  return ElemwiseShape(attrs, in, out);
}

bool GradToDataShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  return AllKnown(*in) && AllKnown(*out);
}

OpDef ImageDef(const std::string& name, const std::string& doc, std::vector<ParamDecl> params,
               InferShapeFn shape, bool rng = false) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.params = std::move(params);
  d.input_names = FixedNames({"data"});
  d.infer_shape = std::move(shape);
  d.infer_type = ElemwiseType;
  d.uses_rng = rng;
  return d;
}

// (ograd, data) -> data_grad, with the forward op's parameters.
OpDef BackwardDef(const std::string& name, const std::string& doc, std::vector<ParamDecl> params) {
  OpDef b;
  b.name = name;
  b.doc = doc;
  b.params = std::move(params);
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.output_names = FixedNames({"data_grad"});
  b.infer_shape = GradToDataShape;
  b.infer_type = ElemwiseType;
  return b;
}

GradientFn GradWithData(const std::string& backward) {
  return [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, backward, n, {og[0], n->inputs[0]}, 1);
  };
}

ParamDecl Factor(const char* name, const char* doc) {
  return Ranged(RequiredParam(name, ParamType::kFloat, doc), 0, 3.4e38);
}

void RegisterGeometry(OpRegistry* reg) {
  OpDef t = ImageDef("_image_to_tensor",
                     "(H, W, C) or (N, H, W, C) images to float32 (C, H, W) / (N, C, H, W) "
                     "tensors of value / 255.",
                     {}, ToTensorShape);
  t.infer_type = Float32Out;
  reg->Add(std::move(t));

  std::vector<ParamDecl> np = {
      FloatTupleParam("mean", "(0.0, 0.0, 0.0, 0.0)", "Per-channel means (or one for all)."),
      FloatTupleParam("std", "(1.0, 1.0, 1.0, 1.0)", "Per-channel standard deviations.")};
  OpDef n =
      ImageDef("_image_normalize", "(x - mean[c]) / std[c] on (C, H, W) or (N, C, H, W) tensors.",
               np, NormalizeShape);
  n.inplace = InplaceFirst;
  n.gradient = GradWithData("_backward_image_normalize");
  reg->Add(std::move(n));
  reg->Add(BackwardDef("_backward_image_normalize", "Gradient of _image_normalize: ograd / std[c].",
                       np));

  reg->Add(ImageDef(
      "_image_resize", "Resizes (H, W, C) or (N, H, W, C) uint8 images (OpenCV's cv::resize).",
      {ShapeParam("size", "()", "(width, height), or (size,) for both or the shorter side."),
       BoolParam("keep_ratio", "False", "With one size: resize the shorter side to it."),
       IntParam("interp", "1", "Interpolation: 0 nearest, 1 bilinear.")},
      ResizeShape));

  std::vector<ParamDecl> cp = {RequiredParam("x", ParamType::kInt, "Left column of the crop."),
                               RequiredParam("y", ParamType::kInt, "Top row of the crop."),
                               RequiredParam("width", ParamType::kInt, "Width of the crop."),
                               RequiredParam("height", ParamType::kInt, "Height of the crop.")};
  OpDef c = ImageDef("_image_crop", "Crops (H, W, C) or (N, H, W, C) images.", cp, CropShape);
  c.gradient = GradWithData("_backward_image_crop");
  reg->Add(std::move(c));
  reg->Add(BackwardDef("_backward_image_crop",
                       "Gradient of _image_crop: ograd inside zeros of the data's shape.", cp));

  reg->Add(ImageDef("_image_flip_left_right", "Mirrors an (H, W, C) image left to right.", {},
                    ImageShape));
  reg->Add(ImageDef("_image_flip_top_bottom", "Mirrors an (H, W, C) image top to bottom.", {},
                    ImageShape));
  reg->Add(ImageDef("_image_random_flip_left_right",
                    "Mirrors an (H, W, C) image left to right with probability 1/2.", {},
                    ImageShape, true));
  reg->Add(ImageDef("_image_random_flip_top_bottom",
                    "Mirrors an (H, W, C) image top to bottom with probability 1/2.", {},
                    ImageShape, true));
}

void RegisterColor(OpRegistry* reg) {
  const std::vector<ParamDecl> fp = {Factor("min_factor", "Minimum factor."),
                                     Factor("max_factor", "Maximum factor.")};
  reg->Add(ImageDef("_image_random_brightness",
                    "Multiplies an (H, W, C) image by a factor U(min_factor, max_factor).", fp,
                    ImageShape, true));
  reg->Add(ImageDef("_image_random_contrast",
                    "Blends an (H, W, C) image with its mean gray by a random factor.", fp,
                    ImageShape, true));
  reg->Add(ImageDef("_image_random_saturation",
                    "Blends an (H, W, C) image with its gray by a random factor.", fp, ImageShape,
                    true));
  reg->Add(ImageDef("_image_random_hue", "Rotates the hue of an (H, W, C) image by a random share.",
                    fp, ImageShape, true));
  reg->Add(ImageDef(
      "_image_random_color_jitter",
      "Brightness, contrast, saturation and hue jitter of an (H, W, C) image in random order.",
      {RequiredParam("brightness", ParamType::kFloat, "How much to jitter brightness."),
       RequiredParam("contrast", ParamType::kFloat, "How much to jitter contrast."),
       RequiredParam("saturation", ParamType::kFloat, "How much to jitter saturation."),
       RequiredParam("hue", ParamType::kFloat, "How much to jitter hue.")},
      ImageShape, true));
  reg->Add(ImageDef("_image_adjust_lighting",
                    "Adds AlexNet's PCA lighting of the alphas (R, G, B) to an (H, W, C) image.",
                    {RequiredParam("alpha", ParamType::kString,
                                   "The lighting alphas for R, G, B (a tuple of 3 floats).")},
                    ImageShape));
  reg->Add(ImageDef("_image_random_lighting",
                    "AlexNet's PCA lighting noise with alphas drawn from N(0, alpha_std).",
                    {FloatParam("alpha_std", "0.05", "Level of the lighting noise.")}, ImageShape,
                    true));
}

}  // namespace

void RegisterImageOps(OpRegistry* reg) {
  RegisterGeometry(reg);
  RegisterColor(reg);
}

}  // namespace op
}  // namespace weft
