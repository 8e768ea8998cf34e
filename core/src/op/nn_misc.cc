// Resampling and padding ops with MXNet's names and semantics:
// UpSampling (nearest) and Pad, with `_backward_UpSampling` and
// `_backward_Pad`.
//
// UpSampling(data_0, ..., data_{num_args-1}; scale, sample_type,
// num_filter, multi_input_mode, num_args, workspace): nearest-neighbour
// upsampling of (N, C_i, H_i, W_i) inputs to (scale*H_0, scale*W_0); every
// input's extents must divide those (its own factor is H_out / H_i). The
// results are concatenated along channels (multi_input_mode 'concat',
// default) or summed ('sum', equal channels). sample_type 'bilinear' is
// not supported. Gradient: each input's block sums of the output gradient.
//
// Pad(data; mode, pad_width, constant_value): rank 4 or 5 input, pad_width
// has 2*rank values (before, after) per axis with the first four (N and C)
// zero. mode 'constant' fills constant_value, 'edge' repeats the border,
// 'reflect' mirrors without repeating the border (pad < extent). Gradient:
// the output gradient scattered back through the same index map.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> UpSamplingParams() {
  return {Ranged(RequiredParam("scale", ParamType::kInt, "Up-sampling factor of input 0."), 1, 1e6),
          IntParam("num_filter", "0", "Input filter count (bilinear only; ignored)."),
          RequiredEnumParam("sample_type", {"bilinear", "nearest"},
                            "Up-sampling method; only nearest is supported."),
          EnumParam("multi_input_mode", "concat", {"concat", "sum"},
                    "How several inputs are combined."),
          IntRangeParam("num_args", "1", 1, 1e6, "Number of inputs."),
          IntParam("workspace", "512", "Workspace in MB (ignored).")};
}

bool UpSamplingShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  if (p.GetString("sample_type") != "nearest")
    Fail(StatusCode::kNotImplemented, OpLabel(attrs), ": sample_type '", p.GetString("sample_type"),
         "' is not supported (only nearest)");
  const int64_t scale = p.GetInt("scale");
  const bool sum = p.GetString("multi_input_mode") == "sum";
  for (size_t i = 0; i < in->size(); ++i) {
    const Shape& s = (*in)[i];
    if (s.ndim_known() && s.ndim() != 4)
      Fail(StatusCode::kShape, OpLabel(attrs), ": input ", i,
           " must have rank 4 (N, C, H, W), given ", s.ToString());
  }
  const Shape& d0 = (*in)[0];
  if (!d0.ndim_known() || d0[2] == 0 || d0[3] == 0) return false;
  Shape o({d0[0], 0, d0[2] * scale, d0[3] * scale});
  int64_t channels = sum ? d0[1] : 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const Shape& s = (*in)[i];
    if (!s.is_known()) return false;
    if (s[0] != d0[0] || o[2] % s[2] != 0 || o[3] % s[3] != 0)
      Fail(StatusCode::kShape, OpLabel(attrs), ": input ", i, " ", s.ToString(),
           " cannot be up-sampled to ", o[2], "x", o[3], " (input 0 times scale ", scale,
           "): the batch must match input 0 and the extents must divide");
    if (sum && s[1] != d0[1])
      Fail(StatusCode::kShape, OpLabel(attrs), ": with multi_input_mode 'sum' input ", i, " ",
           s.ToString(), " must have ", d0[1], " channels like input 0");
    if (!sum) channels += s[1];
  }
  o[1] = channels;
  AssignShape(attrs, out, 0, o, "output 0");
  return AllKnown(*in) && AllKnown(*out);
}

// _backward_UpSampling: in = (ograd, data_0, ...), out = (grad_0, ...).
bool UpSamplingBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                             std::vector<Shape>* out) {
  std::vector<Shape> fin(in->begin() + 1, in->end()), fout = {(*in)[0]};
  for (size_t i = 0; i < out->size(); ++i)
    AssignShape(attrs, &fin, i, (*out)[i], StrCat("output ", i));
  UpSamplingShape(attrs, &fin, &fout);
  (*in)[0] = fout[0];
  for (size_t i = 0; i < fin.size(); ++i) (*in)[i + 1] = (*out)[i] = fin[i];
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<ParamDecl> PadParams() {
  return {RequiredEnumParam("mode", {"constant", "edge", "reflect"}, "Padding mode."),
          RequiredParam("pad_width", ParamType::kShape,
                        "(before, after) per axis, 2*rank values; N and C must be 0."),
          FloatParam("constant_value", "0", "Fill value of mode 'constant'.")};
}

bool PadShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const Shape& pw = p.GetShape("pad_width");
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  if (d.ndim() != 4 && d.ndim() != 5)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must have rank 4 or 5, given ",
         d.ToString());
  if (pw.ndim() != 2 * d.ndim())
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter 'pad_width' = ", pw.ToString(),
         " must have ", 2 * d.ndim(), " values for input 'data' ", d.ToString());
  for (int i = 0; i < pw.ndim(); ++i) {
    if ((i < 4 && pw[i] != 0) || pw[i] < 0)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": parameter 'pad_width' = ", pw.ToString(),
           " must be non-negative with zeros for the N and C axes");
  }
  const bool reflect = p.GetString("mode") == "reflect";
  Shape o = d;
  for (int a = 2; a < d.ndim(); ++a) {
    if (d[a] == 0) continue;
    if (reflect && (pw[2 * a] >= d[a] || pw[2 * a + 1] >= d[a]))
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": mode 'reflect' needs pad_width ",
           pw.ToString(), " smaller than the extent ", d[a], " of axis ", a);
    o[a] = d[a] + pw[2 * a] + pw[2 * a + 1];
  }
  AssignShape(attrs, out, 0, o, "output 0");
  return AllKnown(*in) && AllKnown(*out);
}

bool PadBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  std::vector<Shape> fin = {(*in)[1]}, fout = {(*in)[0]};
  PadShape(attrs, &fin, &fout);
  AssignShape(attrs, in, 0, fout[0], "input 'ograd'");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

void RegisterNNMisc(OpRegistry* reg) {
  auto num_args = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  auto data_names = [](const ParamValues& p) {
    std::vector<std::string> n;
    for (int64_t i = 0; i < p.GetInt("num_args"); ++i) n.push_back(StrCat("arg", i));
    return n;
  };
  OpDef u;
  u.name = "UpSampling";
  u.doc = "Nearest-neighbour up-sampling of one or more NCHW inputs (MXNet semantics).";
  u.params = UpSamplingParams();
  u.num_inputs_fn = num_args;
  u.key_var_num_args = "num_args";
  u.input_names = data_names;
  u.infer_shape = UpSamplingShape;
  u.infer_type = ElemwiseType;
  u.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> in = {og[0]};
    for (const auto& e : n->inputs) in.push_back(e);
    return BackwardNode(r, "_backward_UpSampling", n, in, static_cast<int>(n->inputs.size()));
  };
  reg->Add(std::move(u));

  OpDef ub;
  ub.name = "_backward_UpSampling";
  ub.doc = "Gradient of UpSampling: per input, block sums of ograd; inputs (ograd, data...).";
  ub.params = UpSamplingParams();
  ub.num_inputs_fn = [](const ParamValues& p) {
    return static_cast<int>(p.GetInt("num_args")) + 1;
  };
  ub.num_outputs_fn = num_args;
  ub.infer_shape = UpSamplingBackwardShape;
  ub.infer_type = ElemwiseType;
  reg->Add(std::move(ub));

  OpDef f;
  f.name = "Pad";
  f.aliases = {"pad"};
  f.doc = "Pads the spatial axes of a rank 4/5 array: constant, edge or reflect (MXNet semantics).";
  f.params = PadParams();
  f.infer_shape = PadShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_Pad", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_Pad";
  b.doc = "Gradient of Pad: data_grad from (ograd, data).";
  b.params = PadParams();
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.output_names = FixedNames({"data_grad"});
  b.infer_shape = PadBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
