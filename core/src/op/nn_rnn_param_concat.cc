// `_rnn_param_concat` (alias `_npi_rnn_param_concat`), the Concat that
// Gluon's RNN layers (gluon.rnn.LSTM/GRU/RNN, hybridized and exported) put
// in front of RNN to pack every flattened i2h/h2h weight and bias into the
// `parameters` vector.
//
// _rnn_param_concat(arg0, ..., arg{n-1}; num_args, dim=1): Concat's
// parameters, forward (the CPU kernel is Concat's) and gradient
// (`_backward_Concat`). Only shape inference differs, as in MXNet 1.9's
// RNNParamConcatShape: the layer-0 i2h weights' extent along `dim` depends
// on the input size, so one or two inputs (the forward and reverse i2h
// weights) may be unknown there; they are recovered from the output's
// extent (which RNN's inference gives), sharing the residual equally.
#include "elemwise_common.h"
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::string ArgName(size_t i) { return "input 'arg" + std::to_string(i) + "'"; }

bool RnnParamConcatShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  int nd = (*out)[0].ndim_known() ? (*out)[0].ndim() : -1;
  for (const Shape& s : *in)
    if (s.ndim_known()) nd = s.ndim();
  if (nd < 0) return false;
  if (nd == 0) Fail(StatusCode::kShape, OpLabel(attrs), ": inputs must have rank >= 1");
  const int64_t dim = attrs.params.GetInt("dim");
  if (dim < -nd || dim >= nd)
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": dim ", dim, " is out of range for rank ",
         nd);
  const int axis = static_cast<int>(dim < 0 ? dim + nd : dim);
  // Every extent but `axis` is shared by the inputs and the output.
  Shape common = Shape::Unknown(nd);
  for (size_t i = 0; i <= in->size(); ++i) {
    const Shape& s = i < in->size() ? (*in)[i] : (*out)[0];
    if (!s.ndim_known()) continue;
    if (s.ndim() != nd)
      Fail(StatusCode::kShape, OpLabel(attrs), ": ", i < in->size() ? ArgName(i) : "output",
           " has rank ", s.ndim(), ", expected ", nd);
    Shape t = s;
    t[axis] = 0;
    if (!ShapeAssign(&common, t))
      Fail(StatusCode::kShape, OpLabel(attrs), ": ", i < in->size() ? ArgName(i) : "output", " ",
           s.ToString(), " disagrees with the others outside dim ", axis, " (", common.ToString(),
           ")");
  }
  int64_t sum = 0;
  std::vector<size_t> unknown;
  for (size_t i = 0; i < in->size(); ++i) {
    if ((*in)[i].ndim_known() && (*in)[i][axis] > 0)
      sum += (*in)[i][axis];
    else
      unknown.push_back(i);
  }
  const int64_t total = (*out)[0].ndim_known() ? (*out)[0][axis] : 0;
  if (!unknown.empty() && total > 0) {
    const int64_t residual = total - sum;
    if (unknown.size() > 2 || residual <= 0 || residual % static_cast<int64_t>(unknown.size()) != 0)
      Fail(StatusCode::kShape, OpLabel(attrs), ": cannot share the output's extent ", total,
           " along dim ", axis, " less the known inputs' ", sum, " among ", unknown.size(),
           " inputs of unknown extent (1 or 2 inputs, equal shares)");
    for (size_t i : unknown) {
      Shape s = common;
      s[axis] = residual / static_cast<int64_t>(unknown.size());
      AssignShape(attrs, in, i, s, ArgName(i));
    }
    unknown.clear();
    sum = total;
  }
  for (size_t i = 0; i < in->size(); ++i) {
    Shape s = common;
    s[axis] = (*in)[i].ndim_known() ? (*in)[i][axis] : 0;
    AssignShape(attrs, in, i, s, ArgName(i));
  }
  Shape o = common;
  o[axis] = unknown.empty() ? sum : 0;
  AssignShape(attrs, out, 0, o, "output");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace

void RegisterNNRnnParamConcat(OpRegistry* reg) {
  OpDef c = ConcatLikeDef(
      "_rnn_param_concat",
      "Concat of RNN parameters: one or two inputs' extent along `dim` may come from the output.",
      ConcatParams(), RnnParamConcatShape);
  c.aliases = {"_npi_rnn_param_concat"};
  reg->Add(std::move(c));
}

}  // namespace op
}  // namespace weft
