// Pooling with MXNet's names and semantics, and _backward_Pooling.
//
// Pooling(data; kernel, pool_type, global_pool, pooling_convention, stride,
// pad, count_include_pad, p_value, cudnn_off, layout): data (N, C, [[D,]
// H,] W) channel-first, 1-D, 2-D or 3-D windows (3-D: CPU reference kernel
// only). pool_type max / avg / sum (lp is not
// supported). Output extent per spatial axis:
//   valid: 1 + floor((x + 2*pad - k) / stride)
//   full:  1 + ceil((x + 2*pad - k) / stride)   (e.g. 75 -> 38 for 3x3/2)
//   global_pool: 1 (the window is the whole input; kernel, stride and pad
//   are ignored).
// A window covers [o*stride - pad, o*stride - pad + k) clipped to the padded
// input [-pad, x + pad); max ignores padding, sum adds the elements inside the
// input, avg divides that sum by the clipped window size when
// count_include_pad (default True), else by the number of input elements it
// covers. A window with no input element gives 0.
// Inference is forward only (as MXNet's): the output from data.
//
// Gradient: `_backward_Pooling(ograd, data)` -> data_grad; max routes each
// output gradient to the first maximum of its window, sum/avg spread it over
// the window (divided by the same count for avg).
#include "nn_spatial.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> PoolParams() {
  return {
      ShapeParam("kernel", "()", "Pooling window: (w,) or (h, w); ignored with global_pool."),
      EnumParam("pool_type", "max", {"avg", "lp", "max", "sum"}, "Pooling function."),
      BoolParam("global_pool", "False", "Pool over the whole spatial extent."),
      BoolParam("cudnn_off", "False", "Turn off cuDNN (ignored on CPU)."),
      EnumParam("pooling_convention", "valid", {"full", "same", "valid"},
                "Output size rounding: valid (floor) or full (ceil)."),
      ShapeParam("stride", "()", "Stride per axis; default 1."),
      ShapeParam("pad", "()", "Padding per axis (both sides); default 0."),
      Optional(IntParam("p_value", "None", "Power of lp pooling (unsupported).")),
      Optional(BoolParam("count_include_pad", "None",
                         "avg only: count padded elements in the divisor (None means True).")),
      LayoutParam("Data layout; only channel-first NCW / NCHW is supported."),
  };
}

// Pooling output inference on in = (data), out = (output).
bool PoolingShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const std::string& type = p.GetString("pool_type");
  if (type == "lp")
    Fail(StatusCode::kNotImplemented, OpLabel(attrs), ": pool_type 'lp' is not supported");
  if (p.GetString("pooling_convention") == "same")
    Fail(StatusCode::kNotImplemented, OpLabel(attrs),
         ": pooling_convention 'same' is not supported (valid, full are)");
  const bool global = p.GetBool("global_pool");
  const Shape& d = (*in)[0];
  SpatialGeom g;
  if (!global) {
    g = ReadSpatialGeom(attrs, false, 3);
  } else if (d.ndim_known()) {
    g.nsp = d.ndim() - 2;
  } else {
    return false;
  }
  if (g.nsp < 1 || g.nsp > 3)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' ", d.ToString(),
         " must have rank 3, 4 or 5 (N, C, [[D,] H,] W) for global pooling");
  CheckChannelFirstLayout(attrs, g.nsp);
  const int nd = g.nsp + 2;
  if (!d.ndim_known()) return false;
  if (d.ndim() != nd)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'data' must have rank ", nd,
         " (N, C, spatial...) for a ", g.nsp, "-D kernel, given ", d.ToString());
  Shape o = Shape::Unknown(nd);
  o[0] = d[0];
  o[1] = d[1];
  const bool full = p.GetString("pooling_convention") == "full";
  for (int i = 0; i < g.nsp; ++i) {
    const int64_t x = d[2 + i];
    if (global) {
      o[2 + i] = 1;
      continue;
    }
    if (x == 0) continue;
    const int64_t span = x + 2 * g.pad[i] - g.kernel[i];
    if (span < 0)
      Fail(StatusCode::kShape, OpLabel(attrs), ": kernel extent ", g.kernel[i], " on axis ", 2 + i,
           " exceeds the padded input extent ", x + 2 * g.pad[i], " (data ", d.ToString(),
           ", kernel ", p.GetShape("kernel").ToString(), ")");
    o[2 + i] = 1 + (full ? (span + g.stride[i] - 1) / g.stride[i] : span / g.stride[i]);
  }
  AssignShape(attrs, out, 0, o, "output 0");
  return AllKnown(*in) && AllKnown(*out);
}

// _backward_Pooling inference on in = (ograd, data), out = (data_grad).
bool PoolingBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  std::vector<Shape> fin = {(*in)[1]}, fout = {(*in)[0]};
  PoolingShape(attrs, &fin, &fout);
  AssignShape(attrs, in, 0, fout[0], "input 'ograd'");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

void RegisterNNPool(OpRegistry* reg) {
  OpDef f;
  f.name = "Pooling";
  f.aliases = {"Pooling_v1"};
  f.doc =
      "1-D / 2-D / 3-D max, average or sum pooling on channel-first data, with stride, padding, "
      "global pooling and valid/full output rounding (MXNet semantics).";
  f.params = PoolParams();
  f.infer_shape = PoolingShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_Pooling", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_Pooling";
  b.doc = "Gradient of Pooling: data_grad from (ograd, data).";
  b.params = PoolParams();
  b.num_inputs = 2;
  b.input_names = FixedNames({"ograd", "data"});
  b.output_names = FixedNames({"data_grad"});
  b.infer_shape = PoolingBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
