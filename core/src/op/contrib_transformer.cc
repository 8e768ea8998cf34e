// MXNet 1.9's fused self-attention matmuls (src/operator/contrib/
// transformer.cc), which GluonNLP's BERT and Transformer export when their
// attention cells use the interleaved projection (one FullyConnected giving
// queries, keys and values):
//
//   _contrib_interleaved_matmul_selfatt_qk(queries_keys_values; heads)
//     qkv (L, B, 3*E) holds, for every position and sequence, each head's
//     [q, k, v] blocks of D = E / heads values in turn, i.e. it is
//     (L, B, heads, 3, D). Output (B*heads, L, L): out[b*heads + h, i, j] =
//     q(i, b, h) . k(j, b, h) / sqrt(D).
//   _contrib_interleaved_matmul_selfatt_valatt(queries_keys_values,
//     attention; heads): attention (B*heads, L, L); output (L, B, E):
//     out[i, b, h*D + d] = sum_j attention[b*heads + h, i, j] v(j, b, h)[d].
//
// Inference: qk from qkv (and L, B from a known output); valatt between
// qkv, attention and output in every direction. Gradients:
// `_backward_interleaved_matmul_selfatt_qk(ograd, qkv)` -> qkv_grad (zero in
// the v blocks) and `_backward_interleaved_matmul_selfatt_valatt(ograd, qkv,
// attention)` -> (qkv_grad (zero in the q, k blocks), attention_grad).
#include "elemwise_common.h"
#include "op_common.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> HeadsParams() {
  ParamDecl h = RequiredParam("heads", ParamType::kInt, "Number of attention heads.");
  h.lo = 1;
  return {h};
}

// Checks qkv (L, B, 3*E) against `heads` when its rank and last extent are known.
void CheckQkv(const NodeAttrs& attrs, const Shape& qkv) {
  if (!qkv.ndim_known()) return;
  if (qkv.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'queries_keys_values' must have rank 3 (seq_len, batch, ",
         "3 * heads * head_dim), given ", qkv.ToString());
  const int64_t heads = attrs.params.GetInt("heads");
  if (qkv[2] > 0 && qkv[2] % (3 * heads) != 0)
    Fail(StatusCode::kShape, OpLabel(attrs), ": input 'queries_keys_values' last extent ", qkv[2],
         " is not a multiple of 3 * heads = ", 3 * heads);
}

bool QKShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckQkv(attrs, (*in)[0]);
  const int64_t heads = attrs.params.GetInt("heads");
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs), ": output must have rank 3, given ", o.ToString());
  if (o.ndim_known()) {
    const int64_t len = o[1] > 0 ? o[1] : o[2];
    AssignShape(attrs, in, 0, Shape({len, o[0] > 0 && o[0] % heads == 0 ? o[0] / heads : 0, 0}),
                "input 'queries_keys_values'");
  }
  const Shape& qkv = (*in)[0];
  if (qkv.ndim_known())
    AssignShape(attrs, out, 0, Shape({qkv[1] > 0 ? qkv[1] * heads : 0, qkv[0], qkv[0]}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool ValAttShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckQkv(attrs, (*in)[0]);
  const int64_t heads = attrs.params.GetInt("heads");
  for (int k = 0; k < 2; ++k) {
    const Shape& s = k == 0 ? (*in)[1] : (*out)[0];
    if (s.ndim_known() && s.ndim() != 3)
      Fail(StatusCode::kShape, OpLabel(attrs), ": ", k == 0 ? "input 'attention'" : "output",
           " must have rank 3, given ", s.ToString());
  }
  // L, B and E (the output's last extent) from whichever array knows them.
  int64_t len = 0, batch = 0, e = 0;
  auto take = [](int64_t* dst, int64_t v) {
    if (*dst == 0 && v > 0) *dst = v;
  };
  if ((*in)[0].ndim_known()) {
    take(&len, (*in)[0][0]);
    take(&batch, (*in)[0][1]);
    take(&e, (*in)[0][2] / 3);
  }
  if ((*out)[0].ndim_known()) {
    take(&len, (*out)[0][0]);
    take(&batch, (*out)[0][1]);
    take(&e, (*out)[0][2]);
  }
  if ((*in)[1].ndim_known()) {
    take(&len, (*in)[1][1]);
    take(&len, (*in)[1][2]);
    if ((*in)[1][0] > 0 && (*in)[1][0] % heads == 0) take(&batch, (*in)[1][0] / heads);
  }
  AssignShape(attrs, in, 0, Shape({len, batch, 3 * e}), "input 'queries_keys_values'");
  AssignShape(attrs, in, 1, Shape({batch * heads, len, len}), "input 'attention'");
  AssignShape(attrs, out, 0, Shape({len, batch, e}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

// Backward shapes: gradients have their inputs' shapes (the inputs follow
// the head gradient in `in`).
bool GradShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  for (size_t i = 0; i < out->size(); ++i) {
    AssignShape(attrs, out, i, (*in)[i + 1], "output " + std::to_string(i));
    AssignShape(attrs, in, i + 1, (*out)[i], "input " + std::to_string(i + 1));
  }
  return AllKnown(*in) && AllKnown(*out);
}

void AddBackward(OpRegistry* reg, const std::string& name, std::vector<std::string> ins,
                 std::vector<std::string> outs) {
  OpDef b;
  b.name = name;
  b.doc = "Gradient of _contrib_" + name.substr(10) + ".";
  b.params = HeadsParams();
  b.num_inputs = static_cast<int>(ins.size());
  b.num_outputs = static_cast<int>(outs.size());
  b.input_names = FixedNames(std::move(ins));
  b.output_names = FixedNames(std::move(outs));
  b.infer_shape = GradShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

}  // namespace

void RegisterContribTransformer(OpRegistry* reg) {
  OpDef qk;
  qk.name = "_contrib_interleaved_matmul_selfatt_qk";
  qk.doc = "Scaled q.k scores of every head from interleaved (seq_len, batch, heads*3*head_dim) projections.";
  qk.params = HeadsParams();
  qk.num_inputs = 1;
  qk.input_names = FixedNames({"queries_keys_values"});
  qk.infer_shape = QKShape;
  qk.infer_type = ElemwiseType;
  qk.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_interleaved_matmul_selfatt_qk", n, {og[0], n->inputs[0]}, 1);
  };
  reg->Add(std::move(qk));
  AddBackward(reg, "_backward_interleaved_matmul_selfatt_qk", {"ograd", "queries_keys_values"},
              {"queries_keys_values_grad"});

  OpDef va;
  va.name = "_contrib_interleaved_matmul_selfatt_valatt";
  va.doc = "Attention-weighted values of every head from interleaved projections, as (seq_len, batch, embed).";
  va.params = HeadsParams();
  va.num_inputs = 2;
  va.input_names = FixedNames({"queries_keys_values", "attention"});
  va.infer_shape = ValAttShape;
  va.infer_type = ElemwiseType;
  va.gradient = [](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    return BackwardNode(r, "_backward_interleaved_matmul_selfatt_valatt", n,
                        {og[0], n->inputs[0], n->inputs[1]}, 2);
  };
  reg->Add(std::move(va));
  AddBackward(reg, "_backward_interleaved_matmul_selfatt_valatt", {"ograd", "queries_keys_values", "attention"},
              {"queries_keys_values_grad", "attention_grad"});
}

}  // namespace op
}  // namespace weft
