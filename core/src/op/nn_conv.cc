// Convolution with MXNet's names and semantics, and _backward_Convolution.
//
// Convolution(data, weight[, bias]; kernel, stride, dilate, pad, num_filter,
// num_group, no_bias, workspace, cudnn_tune, cudnn_off, layout):
//   data (N, C, [H,] W), weight (num_filter, C / num_group, [kh,] kw),
//   bias (num_filter,) unless no_bias; output (N, num_filter, [oh,] ow) with
//   o = (x + 2*pad - (dilate*(k-1)+1)) / stride + 1 (floor). Channels are
//   split into num_group independent groups (num_group == C is depthwise).
//   Layout is channel-first (NCW / NCHW / NCDHW); 1-D, 2-D and 3-D kernels
//   (3-D: a direct CPU reference kernel; oneDNN and CUDA take 1-D / 2-D).
// Inference is bidirectional as MXNet's: the batch flows between data and
// output, C between data and weight (weight[1] * num_group), and a spatial
// extent of data is recovered from the output's when that axis' stride is 1.
//
// Gradient: `_backward_Convolution(ograd, data, weight)` with outputs
// (data_grad, weight_grad[, bias_grad]) computed by the kernels (col2im of
// W^T . dy for data, dy . im2col(x)^T for weight, sums of dy for bias).
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> ConvParams() {
  return {
      RequiredParam("kernel", ParamType::kShape, "Convolution kernel size: (w,) or (h, w)."),
      ShapeParam("stride", "()", "Convolution stride per axis; default 1."),
      ShapeParam("dilate", "()", "Convolution dilation per axis; default 1."),
      ShapeParam("pad", "()", "Zero padding per axis (both sides); default 0."),
      NumFilterParam(),
      IntRangeParam("num_group", "1", 1, 100000, "Number of channel groups."),
      IntRangeParam("workspace", "1024", 0, 1e9, "Workspace limit in MB (ignored on CPU)."),
      BoolParam("no_bias", "False", "Whether to omit the bias input."),
      CudnnTuneParam(),
      BoolParam("cudnn_off", "False", "Turn off cuDNN (ignored on CPU)."),
      LayoutParam("Data layout; only channel-first NCW / NCHW / NCDHW is supported."),
  };
}

}  // namespace

// Convolution inference on in = (data, weight[, bias]), out = (output).
// Shared with _backward_Convolution (see below).
bool ConvolutionShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const SpatialGeom g = ReadSpatialGeom(attrs, true, 3);
  CheckChannelFirstLayout(attrs, g.nsp);
  const int64_t F = p.GetInt("num_filter"), G = p.GetInt("num_group");
  if (F % G != 0)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": num_filter ", F,
         " must be divisible by num_group ", G);
  const int nd = g.nsp + 2;
  const Shape& d0 = (*in)[0];
  if (d0.ndim_known() && d0.ndim() != nd)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must have rank ", nd,
         " (N, C, spatial...) for a ", g.nsp, "-D kernel, given ", d0.ToString());
  AssignShape(attrs, in, 0, Shape::Unknown(nd), "input 'data'");
  AssignShape(attrs, in, 1, Shape::Unknown(nd), "input 'weight'");
  AssignShape(attrs, out, 0, Shape::Unknown(nd), "output 0");
  Shape d = (*in)[0], w = (*in)[1], o = (*out)[0];

  int64_t C = d[1];
  if (C == 0 && w[1] != 0) C = w[1] * G;
  if (C != 0 && C % G != 0)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' has ", C,
         " channels, not divisible by num_group ", G, " (data ", d.ToString(), ")");

  Shape we = Shape::Unknown(nd), de = Shape::Unknown(nd), oe = Shape::Unknown(nd);
  we[0] = F;
  we[1] = C / G;
  de[0] = o[0];
  de[1] = C;
  oe[0] = d[0];
  oe[1] = F;
  for (int i = 0; i < g.nsp; ++i) {
    we[2 + i] = g.kernel[i];
    const int64_t ext = g.Dilated(i);
    if (d[2 + i] != 0) {
      const int64_t padded = d[2 + i] + 2 * g.pad[i];
      if (padded < ext)
        Fail(StatusCode::kShape, OpLabel(attrs), ": dilated kernel extent ", ext, " on axis ",
             2 + i, " exceeds the padded input extent ", padded, " (data ", d.ToString(),
             ", kernel ", p.GetShape("kernel").ToString(), ")");
      oe[2 + i] = (padded - ext) / g.stride[i] + 1;
    } else if (o[2 + i] != 0 && g.stride[i] == 1) {
      const int64_t x = o[2 + i] + ext - 1 - 2 * g.pad[i];
      if (x > 0) de[2 + i] = x;
    }
  }
  AssignShape(attrs, in, 1, we, "input 'weight'");
  AssignShape(attrs, in, 0, de, "input 'data'");
  AssignShape(attrs, out, 0, oe, "output 0");
  if (!p.GetBool("no_bias")) AssignShape(attrs, in, 2, Shape({F}), "input 'bias'");
  return AllKnown(*in) && AllKnown(*out);
}

// Inference of a backward op (ograd, data, weight) -> (data_grad,
// weight_grad[, bias_grad]) from the forward inference `fwd`.
InferShapeFn ConvLikeBackwardShape(InferShapeFn fwd) {
  return [fwd](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    const bool bias = out->size() == 3;
    std::vector<Shape> fin = {(*in)[1], (*in)[2]}, fout = {(*in)[0]};
    if (bias) fin.push_back((*out)[2]);
    AssignShape(attrs, &fin, 0, (*out)[0], "output 'data_grad'");
    AssignShape(attrs, &fin, 1, (*out)[1], "output 'weight_grad'");
    fwd(attrs, &fin, &fout);
    (*in)[0] = fout[0];
    (*in)[1] = (*out)[0] = fin[0];
    (*in)[2] = (*out)[1] = fin[1];
    if (bias) (*out)[2] = fin[2];
    return AllKnown(*in) && AllKnown(*out);
  };
}

std::vector<std::string> ConvInputNames(const ParamValues& p) {
  if (p.GetBool("no_bias")) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

std::vector<std::string> ConvGradNames(const ParamValues& p) {
  if (p.GetBool("no_bias")) return {"data_grad", "weight_grad"};
  return {"data_grad", "weight_grad", "bias_grad"};
}

int ConvNumInputs(const ParamValues& p) { return p.GetBool("no_bias") ? 2 : 3; }

void RegisterNNConv(OpRegistry* reg) {
  OpDef f;
  f.name = "Convolution";
  f.aliases = {"Convolution_v1"};
  f.doc =
      "N-D convolution (1-D, 2-D) on channel-first data with groups (num_group; num_group == "
      "channels is depthwise), stride, dilation and zero padding (MXNet semantics).";
  f.params = ConvParams();
  f.num_inputs_fn = ConvNumInputs;
  f.input_names = ConvInputNames;
  f.infer_shape = ConvolutionShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    const int n_out = static_cast<int>(n->inputs.size());
    return BackwardNode(r, "_backward_Convolution", n, {og[0], n->inputs[0], n->inputs[1]}, n_out);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_Convolution";
  b.doc =
      "Gradient of Convolution: (data_grad, weight_grad[, bias_grad]) from (ograd, data, weight).";
  b.params = ConvParams();
  b.num_inputs = 3;
  b.num_outputs_fn = ConvNumInputs;
  b.input_names = FixedNames({"ograd", "data", "weight"});
  b.output_names = ConvGradNames;
  b.infer_shape = ConvLikeBackwardShape(ConvolutionShape);
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
