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
//   _contrib_interleaved_matmul_encdec_qk(queries, keys_values; heads)
//     queries (Lq, B, E) = (Lq, B, heads, D); keys_values (Lk, B, 2*E) =
//     (Lk, B, heads, 2, D) with [k, v] blocks. Output (B*heads, Lq, Lk) of
//     q(i) . k(j) / sqrt(D).
//   _contrib_interleaved_matmul_encdec_valatt(keys_values, attention;
//     heads): attention (B*heads, Lq, Lk); output (Lq, B, E) of attention-
//     weighted v blocks.
// (MXNet's operator documentation writes valatt's recipe with
// transpose_b=True and a (B, L, E) result; its kernels, followed here,
// compute attention x v into (L, B, E), as its shape inference says.)
//
// Inference runs between the inputs and the output in every direction as
// far as the extents determine each other. Gradients: `_backward_<name>`
// without the `_contrib_` prefix, from (ograd, inputs...) to one gradient
// per input; an interleaved array's gradient is zero in the blocks the op
// does not read.
#include <algorithm>

#include "elemwise_common.h"
#include "op_common.h"
#include "subgraph_ops.h"
#include "weft/quantization.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> HeadsParams() {
  return {
      Ranged(RequiredParam("heads", ParamType::kInt, "Number of attention heads."), 1, 1 << 20)};
}

// Checks qkv (L, B, 3*E) against `heads` when its rank and last extent are known.
void CheckQkv(const NodeAttrs& attrs, const Shape& qkv) {
  if (!qkv.ndim_known()) return;
  if (qkv.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs),
         ": input 'queries_keys_values' must have rank 3 (seq_len, batch, ",
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

void Take(int64_t* dst, int64_t v) {
  if (*dst == 0 && v > 0) *dst = v;
}

void CheckRank3(const NodeAttrs& attrs, const Shape& s, const std::string& what) {
  if (s.ndim_known() && s.ndim() != 3)
    Fail(StatusCode::kShape, OpLabel(attrs), ": ", what, " must have rank 3, given ", s.ToString());
}

// Lq, Lk, B and E shared by queries (Lq, B, E), keys_values (Lk, B, 2E),
// attention / scores (B*heads, Lq, Lk) and valatt's output (Lq, B, E);
// `q`, `kv`, `att`, `o` point into the shape vectors or are null.
bool EncDecAssign(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out, int q,
                  int kv, int att, bool att_is_output, int o) {
  const int64_t heads = attrs.params.GetInt("heads");
  auto at = [&](int i, bool output) -> Shape& { return output ? (*out)[i] : (*in)[i]; };
  int64_t lq = 0, lk = 0, b = 0, e = 0;
  if (q >= 0 && (*in)[q].ndim_known()) {
    Take(&lq, (*in)[q][0]), Take(&b, (*in)[q][1]), Take(&e, (*in)[q][2]);
  }
  if (o >= 0 && (*out)[o].ndim_known()) {
    Take(&lq, (*out)[o][0]), Take(&b, (*out)[o][1]), Take(&e, (*out)[o][2]);
  }
  if ((*in)[kv].ndim_known()) {
    Take(&lk, (*in)[kv][0]), Take(&b, (*in)[kv][1]), Take(&e, (*in)[kv][2] / 2);
    if ((*in)[kv][2] > 0 && (*in)[kv][2] % (2 * heads) != 0)
      Fail(StatusCode::kShape, OpLabel(attrs), ": input 'keys_values' last extent ", (*in)[kv][2],
           " is not a multiple of 2 * heads = ", 2 * heads);
  }
  const Shape& a = at(att, att_is_output);
  if (a.ndim_known()) {
    Take(&lq, a[1]), Take(&lk, a[2]);
    if (a[0] > 0 && a[0] % heads == 0) Take(&b, a[0] / heads);
  }
  if (e > 0 && e % heads != 0)
    Fail(StatusCode::kShape, OpLabel(attrs), ": embedding size ", e,
         " is not a multiple of heads = ", heads);
  if (q >= 0) AssignShape(attrs, in, q, Shape({lq, b, e}), "input 'queries'");
  AssignShape(attrs, in, kv, Shape({lk, b, 2 * e}), "input 'keys_values'");
  AssignShape(attrs, att_is_output ? out : in, att, Shape({b * heads, lq, lk}),
              att_is_output ? "output" : "input 'attention'");
  if (o >= 0) AssignShape(attrs, out, o, Shape({lq, b, e}), "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool EncDecQKShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckRank3(attrs, (*in)[0], "input 'queries'");
  CheckRank3(attrs, (*in)[1], "input 'keys_values'");
  CheckRank3(attrs, (*out)[0], "output");
  return EncDecAssign(attrs, in, out, 0, 1, 0, true, -1);
}

bool EncDecValAttShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  CheckRank3(attrs, (*in)[0], "input 'keys_values'");
  CheckRank3(attrs, (*in)[1], "input 'attention'");
  CheckRank3(attrs, (*out)[0], "output");
  return EncDecAssign(attrs, in, out, -1, 0, 1, false, 0);
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
  auto take = Take;
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
  b.doc = "Gradient of _contrib_" + name.substr(std::string("_backward_").size()) + ".";
  b.params = HeadsParams();
  b.num_inputs = static_cast<int>(ins.size());
  b.num_outputs = static_cast<int>(outs.size());
  b.input_names = FixedNames(std::move(ins));
  b.output_names = FixedNames(std::move(outs));
  b.infer_shape = GradShape;
  b.infer_type = ElemwiseType;
  reg->Add(std::move(b));
}

// `_contrib_<name>` with its `_backward_<name>` taking (ograd, inputs...)
// and giving one gradient per input.
void AddForward(OpRegistry* reg, const std::string& name, const std::string& doc,
                std::vector<std::string> ins, InferShapeFn shape) {
  OpDef f;
  f.name = "_contrib_" + name;
  f.doc = doc;
  f.params = HeadsParams();
  f.num_inputs = static_cast<int>(ins.size());
  f.input_names = FixedNames(ins);
  f.infer_shape = std::move(shape);
  f.infer_type = ElemwiseType;
  const std::string backward = "_backward_" + name;
  f.gradient = [backward](const OpRegistry& r, const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> args = {og[0]};
    args.insert(args.end(), n->inputs.begin(), n->inputs.end());
    return BackwardNode(r, backward, n, args, static_cast<int>(n->inputs.size()));
  };
  reg->Add(std::move(f));
  std::vector<std::string> bins = {"ograd"}, bouts;
  for (const auto& i : ins) {
    bins.push_back(i);
    bouts.push_back(i + "_grad");
  }
  AddBackward(reg, backward, std::move(bins), std::move(bouts));
}

// The quantized forms of the fused attention ops (MXNet's
// SgMKLDNNSelfAttQKInferType / ValAttInferType, decoded once as
// quant::QuantParams): int8 qkv [and uint8 attention] each followed by its
// (min, max) inputs; output float32 with enable_float_output, else int8
// when calibrated or int32, and its (min, max). Both a calibrated range and
// enable_float_output is refused (MXNet writes one or the other, and its
// kernel would write int8 levels into the float32 output).
const quant::QuantParams& SelfAttParams(const ParamValues& p) {
  return p.Decoded<quant::QuantParams>();
}

bool SelfAttFloatOnly(const ParamValues& p) {
  const quant::QuantParams& q = SelfAttParams(p);
  return !q.quantized || q.enable_float_output;
}

InferShapeFn QuantizedSelfAttShape(size_t base, InferShapeFn shape) {
  return [base, shape](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    if (!SelfAttParams(attrs.params).quantized) return shape(attrs, in, out);
    std::vector<Shape> bin(in->begin(), in->begin() + base), bout = {(*out)[0]};
    const bool known = shape(attrs, &bin, &bout);
    std::copy(bin.begin(), bin.end(), in->begin());
    (*out)[0] = bout[0];
    for (size_t i = base; i < in->size(); ++i)
      AssignShape(attrs, in, i, Shape({1}), StrCat("input ", i));
    for (size_t i = 1; i < out->size(); ++i)
      AssignShape(attrs, out, i, Shape({1}), StrCat("output ", i));
    return known && AllKnown(*in) && AllKnown(*out);
  };
}

InferTypeFn QuantizedSelfAttType(std::vector<DType> levels) {
  return [levels](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    const quant::QuantParams& q = SelfAttParams(attrs.params);
    if (!q.quantized) return ElemwiseType(attrs, in, out);
    if (q.calibrated && q.enable_float_output)
      Fail(StatusCode::kNotImplemented, SubgraphLabel(attrs),
           ": quantized with both min/max_calib_range and enable_float_output (MXNet writes one "
           "or the other)");
    const std::vector<std::string> names = attrs.op->input_names(attrs.params);
    for (size_t i = 0; i < in->size(); ++i) {
      const DType want = i < levels.size() ? levels[i] : DType::kFloat32;
      if ((*in)[i] != DType::kUnknown && (*in)[i] != want)
        Fail(StatusCode::kDType, SubgraphLabel(attrs), ": quantized, input '", names[i],
             "' must be ", DTypeName(want), ", given ", DTypeName((*in)[i]));
      (*in)[i] = want;
    }
    const DType t = q.enable_float_output ? DType::kFloat32
                    : q.calibrated        ? DType::kInt8
                                          : DType::kInt32;
    AssignType(attrs, out, 0, t, "output 0");
    for (size_t i = 1; i < out->size(); ++i)
      AssignType(attrs, out, i, DType::kFloat32, StrCat("output ", i));
    return true;
  };
}

// MXNet's oneDNN-fused attention op `name` (1.9.1's _sg_mkldnn_selfatt_*,
// 2.0's _sg_onednn_selfatt_*, written by optimize_for('MKLDNN') for BERT):
// float32, it computes what `_contrib_<base>` computes (its kernels are the
// contrib op's, kernels/register_kernels.cc); quantized=true, the int8 form
// above with the range inputs `ranges` (kernels/cpu/selfatt_int8.cc).
void AddFusedSelfAtt(OpRegistry* reg, const std::string& name, const std::string& base,
                     std::vector<std::string> ins, std::vector<std::string> ranges,
                     std::vector<DType> levels, InferShapeFn shape) {
  OpDef f;
  f.name = "_sg_mkldnn_" + name;
  f.aliases = {"_sg_onednn_" + name};
  f.doc = "MXNet's oneDNN-fused _contrib_" + base + " (float32, or int8 with quantized=true).";
  f.params = HeadsParams();
  f.params.push_back(BoolParam("quantized", "False", "int8 computation."));
  f.params.push_back(BoolParam("enable_float_output", "False", "Float output of an int8 op."));
  f.params.push_back(Optional(FloatParam("min_calib_range", "None", "Calibrated minimum.")));
  f.params.push_back(Optional(FloatParam("max_calib_range", "None", "Calibrated maximum.")));
  const size_t n = ins.size();
  f.num_inputs_fn = [n](const ParamValues& p) {
    return static_cast<int>(SelfAttParams(p).quantized ? 3 * n : n);
  };
  f.num_outputs_fn = [](const ParamValues& p) { return SelfAttFloatOnly(p) ? 1 : 3; };
  std::vector<std::string> quantized_ins = ins;
  quantized_ins.insert(quantized_ins.end(), ranges.begin(), ranges.end());
  f.input_names = [ins, quantized_ins](const ParamValues& p) {
    return SelfAttParams(p).quantized ? quantized_ins : ins;
  };
  f.output_names = [](const ParamValues& p) {
    if (SelfAttFloatOnly(p)) return std::vector<std::string>{"output"};
    return std::vector<std::string>{"output", "min_output", "max_output"};
  };
  f.infer_shape = QuantizedSelfAttShape(n, std::move(shape));
  f.infer_type = QuantizedSelfAttType(std::move(levels));
  // As optimize_for writes it, the node carries the contrib op as its
  // subgraph (ExpandSubgraphs inlines the float32 form); a node without one
  // runs the kernel.
  const std::string inner = "_contrib_" + base;
  f.check_subgraphs = [inner](const Node& n) {
    const IndexedGraph g(*SingleSubgraph(n.attrs));
    int ops = 0;
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      const Node& s = g.node(nid);
      if (s.is_variable()) continue;
      ++ops;
      if (s.op()->name != inner)
        Fail(StatusCode::kInvalidArgument, SubgraphLabel(n.attrs), ": its subgraph holds ",
             s.op()->name, " ('", s.attrs.name, "'), expected one ", inner);
      if (s.attrs.params.GetInt("heads") != n.attrs.params.GetInt("heads"))
        Fail(StatusCode::kInvalidArgument, SubgraphLabel(n.attrs), ": heads ",
             n.attrs.params.GetInt("heads"), " but its subgraph's ", inner, " has ",
             s.attrs.params.GetInt("heads"));
    }
    if (ops != 1)
      Fail(StatusCode::kInvalidArgument, SubgraphLabel(n.attrs), ": its subgraph holds ", ops,
           " operators, expected one ", inner);
  };
  reg->Add(std::move(f));
}

}  // namespace

void RegisterContribTransformer(OpRegistry* reg) {
  AddFusedSelfAtt(reg, "selfatt_qk", "interleaved_matmul_selfatt_qk", {"queries_keys_values"},
                  {"min_qkv", "max_qkv"}, {DType::kInt8}, QKShape);
  AddFusedSelfAtt(reg, "selfatt_valatt", "interleaved_matmul_selfatt_valatt",
                  {"queries_keys_values", "attention"},
                  {"min_qkv", "max_qkv", "min_attention", "max_attention"},
                  {DType::kInt8, DType::kUint8}, ValAttShape);
  AddForward(reg, "interleaved_matmul_selfatt_qk",
             "Scaled q.k scores of every head from interleaved "
             "(seq_len, batch, heads*3*head_dim) projections.",
             {"queries_keys_values"}, QKShape);
  AddForward(reg, "interleaved_matmul_selfatt_valatt",
             "Attention-weighted values of every head from interleaved "
             "projections, as (seq_len, batch, embed).",
             {"queries_keys_values", "attention"}, ValAttShape);
  AddForward(reg, "interleaved_matmul_encdec_qk",
             "Scaled q.k scores of every head from queries and interleaved "
             "(seq_len, batch, heads*2*head_dim) keys and values.",
             {"queries", "keys_values"}, EncDecQKShape);
  AddForward(reg, "interleaved_matmul_encdec_valatt",
             "Attention-weighted values of every head from interleaved "
             "keys and values, as (query_len, batch, embed).",
             {"keys_values", "attention"}, EncDecValAttShape);
}

}  // namespace op
}  // namespace weft
