// Deconvolution (transposed convolution) with MXNet's names and semantics,
// and _backward_Deconvolution.
//
// Deconvolution(data, weight[, bias]; kernel, stride, dilate, pad, adj,
// target_shape, num_filter, num_group, no_bias (default True), workspace,
// cudnn_tune, cudnn_off, layout):
//   data (N, C, [[D,] H,] W), weight (C, num_filter / num_group, [[kd,]
//   kh,] kw) (3-D: a direct CPU reference kernel only),
//   bias (num_filter,); output (N, num_filter, [oh,] ow) with
//   o = stride*(x-1) + dilate*(k-1) + 1 - 2*pad + adj. When target_shape is
//   given (non-zero) it is the output's spatial shape and pad/adj are
//   derived from it as in MXNet: total = stride*(x-1) + dilated_k - target,
//   adj = total % 2, pad = (total + 1) / 2. adj must be < stride.
//   It is the adjoint of Convolution with the same kernel/stride/dilate/pad:
//   y = col2im(W_g^T . x_g) per sample and group.
// Inference fills weight, bias and output from data (as MXNet's); C also
// flows from weight[0] to data.
//
// Gradient: `_backward_Deconvolution(ograd, data, weight)` -> (data_grad,
// weight_grad[, bias_grad]): dx_g = W_g . im2col(dy_g),
// dW_g = sum_n x_g . im2col(dy_g)^T, db = sums of dy.
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> DeconvParams() {
  return {
      RequiredParam("kernel", ParamType::kShape, "Kernel size: (w,) or (h, w)."),
      ShapeParam("stride", "()", "Stride per axis; default 1."),
      ShapeParam("dilate", "()", "Dilation per axis; default 1."),
      ShapeParam("pad", "()", "Padding removed from both sides of the output; default 0."),
      ShapeParam("adj", "()", "Extra output extent on the far side (< stride); default 0."),
      ShapeParam("target_shape", "()", "Output spatial shape; overrides pad and adj."),
      NumFilterParam(),
      IntRangeParam("num_group", "1", 1, 100000, "Number of channel groups."),
      IntRangeParam("workspace", "512", 0, 1e9, "Workspace limit in MB (ignored on CPU)."),
      BoolParam("no_bias", "True", "Whether to omit the bias input."),
      CudnnTuneParam(),
      BoolParam("cudnn_off", "False", "Turn off cuDNN (ignored on CPU)."),
      LayoutParam("Data layout; only channel-first NCW / NCHW is supported."),
  };
}

// Reads an optional per-axis tuple `key` (empty = all `def`) into dst.
void ReadAxes(const NodeAttrs& attrs, const std::string& key, int nsp, int64_t def, int64_t* dst) {
  const Shape& t = attrs.params.GetShape(key);
  for (int i = 0; i < nsp; ++i) dst[i] = def;
  if (t.ndim() <= 0) return;
  if (t.ndim() != nsp)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter '", key, "' = ", t.ToString(),
         " must have ", nsp, " value(s), one per kernel axis");
  for (int i = 0; i < nsp; ++i) {
    if (t[i] < 0)
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter '", key, "' = ", t.ToString(),
           " must be non-negative");
    dst[i] = t[i];
  }
}

bool DeconvolutionShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const SpatialGeom g = ReadSpatialGeom(attrs, true, 3);
  CheckChannelFirstLayout(attrs, g.nsp);
  int64_t adj[3], target[3];
  ReadAxes(attrs, "adj", g.nsp, 0, adj);
  ReadAxes(attrs, "target_shape", g.nsp, 0, target);
  const bool use_target = p.GetShape("target_shape").ndim() > 0 && target[0] != 0;
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
  const Shape d = (*in)[0], w = (*in)[1];
  const int64_t C = d[1] != 0 ? d[1] : w[0];
  if (C != 0 && C % G != 0)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' has ", C,
         " channels, not divisible by num_group ", G);
  Shape we = Shape::Unknown(nd), de = Shape::Unknown(nd), oe = Shape::Unknown(nd);
  we[0] = C;
  we[1] = F / G;
  de[1] = C;
  de[0] = (*out)[0][0];
  oe[0] = d[0];
  oe[1] = F;
  for (int i = 0; i < g.nsp; ++i) {
    we[2 + i] = g.kernel[i];
    if (!use_target && adj[i] >= g.stride[i])
      Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
           ": parameter 'adj' = ", p.GetShape("adj").ToString(),
           " must be smaller than 'stride' on every axis");
    const int64_t x = d[2 + i];
    if (x == 0) continue;
    const int64_t full = g.stride[i] * (x - 1) + g.Dilated(i);
    int64_t o;
    if (use_target) {
      if (target[i] > full || target[i] < 1)
        Fail(StatusCode::kInvalidArgument, OpLabel(attrs),
             ": parameter 'target_shape' = ", p.GetShape("target_shape").ToString(),
             " is not reachable from input extent ", x, " (at most ", full, " on axis ", 2 + i,
             ")");
      o = target[i];
    } else {
      o = full - 2 * g.pad[i] + adj[i];
      if (o < 1)
        Fail(StatusCode::kShape, OpLabel(attrs), ": output extent ", o, " on axis ", 2 + i,
             " is not positive (data ", d.ToString(), ", pad ", p.GetShape("pad").ToString(), ")");
    }
    oe[2 + i] = o;
  }
  AssignShape(attrs, in, 1, we, "input 'weight'");
  AssignShape(attrs, in, 0, de, "input 'data'");
  AssignShape(attrs, out, 0, oe, "output 0");
  if (!p.GetBool("no_bias")) AssignShape(attrs, in, 2, Shape({F}), "input 'bias'");
  return AllKnown(*in) && AllKnown(*out);
}

std::vector<std::string> DeconvInputNames(const ParamValues& p) {
  if (p.GetBool("no_bias")) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

std::vector<std::string> DeconvGradNames(const ParamValues& p) {
  if (p.GetBool("no_bias")) return {"data_grad", "weight_grad"};
  return {"data_grad", "weight_grad", "bias_grad"};
}

int DeconvNumInputs(const ParamValues& p) { return p.GetBool("no_bias") ? 2 : 3; }

}  // namespace

void RegisterNNDeconv(OpRegistry* reg) {
  OpDef f;
  f.name = "Deconvolution";
  f.doc =
      "1-D / 2-D transposed convolution on channel-first data with groups, stride, dilation, "
      "padding, adj and target_shape (MXNet semantics).";
  f.params = DeconvParams();
  f.num_inputs_fn = DeconvNumInputs;
  f.input_names = DeconvInputNames;
  f.infer_shape = DeconvolutionShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    const int n_out = static_cast<int>(n->inputs.size());
    return BackwardNode(r, "_backward_Deconvolution", n, {og[0], n->inputs[0], n->inputs[1]},
                        n_out);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_Deconvolution";
  b.doc =
      "Gradient of Deconvolution: (data_grad, weight_grad[, bias_grad]) from (ograd, data, "
      "weight).";
  b.params = DeconvParams();
  b.num_inputs = 3;
  b.num_outputs_fn = DeconvNumInputs;
  b.input_names = FixedNames({"ograd", "data", "weight"});
  b.output_names = DeconvGradNames;
  b.infer_shape = ConvLikeBackwardShape(DeconvolutionShape);
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
