// FullyConnected with MXNet's names and semantics, and its gradient op.
//
// FullyConnected(data, weight[, bias]; num_hidden, no_bias=False,
// flatten=True): out = data . weight^T + bias, where
//   flatten=True:  data (N, d1, ...) is viewed as (N, K), K = d1*...,
//                  output (N, num_hidden);
//   flatten=False: data (..., K) keeps its leading axes, output (..., num_hidden);
//   weight (num_hidden, K), bias (num_hidden,) unless no_bias.
// Inference is bidirectional as MXNet's: weight and bias follow from
// num_hidden and data; the batch axis of data is taken from the output;
// K flows back from weight to data's last axis when flatten=False (or when
// data is 2-D).
//
// Gradient: `_backward_FullyConnected(ograd, data, weight)` with outputs
// (data_grad, weight_grad[, bias_grad]): dX = dY . W, dW = dY^T . X,
// db = column sums of dY (GEMMs in the kernel).
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> FCParams() {
  return {
      Ranged(RequiredParam("num_hidden", ParamType::kInt, "Number of hidden units (output width)."),
             1, 1e12),
      BoolParam("no_bias", "False", "Whether to omit the bias input."),
      BoolParam("flatten", "True",
                "Whether to collapse all but the first axis of data (else only the last "
                "axis is contracted).")};
}

std::vector<std::string> FCInputNames(const ParamValues& p) {
  if (p.GetBool("no_bias")) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

bool FCShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ParamValues& p = attrs.params;
  const int64_t nh = p.GetInt("num_hidden");
  const bool flatten = p.GetBool("flatten");
  Shape& dshape = (*in)[0];
  // Weight rows and bias from num_hidden.
  AssignShape(attrs, in, 1, Shape({nh, 0}), "input 'weight'");
  if (!p.GetBool("no_bias")) {
    const Shape& b = (*in)[2];
    if (b.ndim() == 2)
      AssignShape(attrs, in, 2, Shape({nh, 1}), "input 'bias'");
    else
      AssignShape(attrs, in, 2, Shape({nh}), "input 'bias'");
  }
  const Shape& oshape = (*out)[0];
  if (!dshape.ndim_known()) {
    // Rank of data is only recoverable when it is not flattened.
    if (!flatten && oshape.ndim_known() && oshape.ndim() >= 1) {
      Shape d = oshape;
      d[d.ndim() - 1] = (*in)[1][1];
      AssignShape(attrs, in, 0, d, "input 'data'");
    } else {
      return false;
    }
  }
  if (dshape.ndim() < 1)
    Fail(StatusCode::kShape, "operator FullyConnected: input 'data' must have rank >= 1, given ",
         dshape.ToString());
  // K from weight back to data (when K is one axis of data).
  const int last = dshape.ndim() - 1;
  if ((!flatten || dshape.ndim() == 2) && dshape[last] == 0 && (*in)[1][1] > 0) {
    Shape d = dshape;
    d[last] = (*in)[1][1];
    AssignShape(attrs, in, 0, d, "input 'data'");
  }
  // Batch (leading axes) from the output.
  if (oshape.ndim_known()) {
    Shape d = dshape;
    if (flatten) {
      if (oshape.ndim() != 2)
        Fail(StatusCode::kShape,
             "operator FullyConnected: output must be 2-D with flatten=True, given ",
             oshape.ToString());
      if (d.ndim() >= 1 && d[0] == 0) d[0] = oshape[0];
    } else if (oshape.ndim() == d.ndim()) {
      for (int i = 0; i < last; ++i)
        if (d[i] == 0) d[i] = oshape[i];
    }
    AssignShape(attrs, in, 0, d, "input 'data'");
  }
  const int64_t k = flatten ? dshape.ProdRange(1, dshape.ndim()) : dshape[last];
  if (k > 0) AssignShape(attrs, in, 1, Shape({nh, k}), "input 'weight'");
  if (flatten) {
    AssignShape(attrs, out, 0, Shape({dshape[0], nh}), "output");
  } else {
    Shape o = dshape;
    o[last] = nh;
    AssignShape(attrs, out, 0, o, "output");
  }
  return AllKnown(*in) && AllKnown(*out);
}

bool FCBackwardShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  // in: ograd, data, weight; out: data_grad, weight_grad[, bias_grad].
  AssignShape(attrs, out, 0, (*in)[1], "output 'data_grad'");
  AssignShape(attrs, in, 1, (*out)[0], "input 'data'");
  AssignShape(attrs, out, 1, (*in)[2], "output 'weight_grad'");
  AssignShape(attrs, in, 2, (*out)[1], "input 'weight'");
  if (out->size() > 2)
    AssignShape(attrs, out, 2, Shape({attrs.params.GetInt("num_hidden")}), "output 'bias_grad'");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

void RegisterNNDense(OpRegistry* reg) {
  OpDef f;
  f.name = "FullyConnected";
  f.doc = "Dense layer: out = data . weight^T + bias (MXNet FullyConnected).";
  f.params = FCParams();
  f.num_inputs_fn = [](const ParamValues& p) { return p.GetBool("no_bias") ? 2 : 3; };
  f.input_names = FCInputNames;
  f.infer_shape = FCShape;
  f.infer_type = ElemwiseType;
  f.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    const int n_in = static_cast<int>(n->inputs.size());
    return BackwardNode(r, "_backward_FullyConnected", n, {og[0], n->inputs[0], n->inputs[1]},
                        n_in);
  };
  reg->Add(std::move(f));

  OpDef b;
  b.name = "_backward_FullyConnected";
  b.doc = "Gradient of FullyConnected: (dX, dW[, db]) from (dY, X, W).";
  b.params = FCParams();
  b.num_inputs = 3;
  b.num_outputs_fn = [](const ParamValues& p) { return p.GetBool("no_bias") ? 2 : 3; };
  b.input_names = FixedNames({"ograd", "data", "weight"});
  b.output_names = [](const ParamValues& p) {
    std::vector<std::string> names = {"data_grad", "weight_grad"};
    if (!p.GetBool("no_bias")) names.push_back("bias_grad");
    return names;
  };
  b.infer_shape = FCBackwardShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace op
}  // namespace weft
