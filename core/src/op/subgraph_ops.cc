// MXNet's oneDNN subgraph operators, float32: _sg_mkldnn_conv and
// _sg_mkldnn_fully_connected (MXNet 2.0: _sg_onednn_conv,
// _sg_onednn_fully_connected), written by sym.optimize_for('MKLDNN').
//
// A node carries one nested graph (NodeAttrs::subgraphs), the layers it
// fuses: Convolution [-> BatchNorm] [-> act] [-> elemwise_add] [-> act], or
// FullyConnected [-> eltwise] [-> elemwise_add]. Its inputs are the nested
// graph's variables in IndexedGraph (DFS) order, which MXNet's partitioner
// makes data, weight, [bias], [gamma, beta, moving mean, moving var], [sum];
// the moving statistics are auxiliary states. The parameters keep MXNet's
// names (with_bn, with_act, with_sum, with_postsum_act, with_eltwise,
// quantized, min_calib_range, ...) and are saved as read; the input count is
// the variadic `num_args`, which the JSON loader takes from the subgraph.
// The computation is the nested graph's: shape and type inference run on it,
// and pass::ExpandSubgraphs inlines it before a graph runs, where the
// inference passes fuse the layers again for oneDNN.
//
// quantized=true (int8; ExpandSubgraphs keeps such nodes and their kernels
// run them): _sg_mkldnn_conv (kernels/cpu/sg_conv_int8.cc) also takes
// data_min, data_max [, sum_min, sum_max] after the nested graph's variables
// and has three outputs (output, output_min, output_max); data and sum are
// int8/uint8, the weights float32 (the kernel derives the int8 ones, as
// MXNet does), and the output uint8 when the last activation is relu, else
// int8, with min/max_calib_range, and int32 without.
// _sg_mkldnn_fully_connected (kernels/cpu/sg_fc_int8.cc) is described at
// QuantizedFCType below; both read their attributes as quant::QuantParams.
#include "op/op_common.h"
#include "op/subgraph_ops.h"
#include "weft/pass.h"
#include "weft/quantization.h"

namespace weft {
namespace op {

namespace {

std::vector<ParamDecl> CalibParams() {
  return {Optional(FloatParam("min_calib_range", "None", "Calibrated minimum (int8 only).")),
          Optional(FloatParam("max_calib_range", "None", "Calibrated maximum (int8 only).")),
          BoolParam("quantized", "false", "int8 computation (not supported)."),
          BoolParam("enable_float_output", "false", "float32 output of an int8 operator."),
          IntParam("num_args", "0", "Number of inputs (the subgraph's variables).")};
}

std::vector<ParamDecl> ConvParams() {
  std::vector<ParamDecl> p = CalibParams();
  for (const char* name : {"with_bn", "with_act", "with_sum", "with_postsum_act", "dedup_sum"})
    p.push_back(BoolParam(name, "false", StrCat("MXNet's ", name, ".")));
  p.push_back(BoolParam("with_relu", "false", "Old name of with_act."));
  p.push_back(BoolParam("with_postsum_relu", "false", "Old name of with_postsum_act."));
  return p;
}

std::vector<ParamDecl> FCParams() {
  std::vector<ParamDecl> p = CalibParams();
  p.push_back(BoolParam("with_eltwise", "false", "An elementwise op follows the layer."));
  p.push_back(BoolParam("with_sum", "false", "A sum follows (MXNet 2.0)."));
  p.push_back(Optional(BoolParam("channel_wise_quantize", "None", "int8 weight scales.")));
  return p;
}

// Maps `in` (by the nested graph's variable names) through `infer` on the
// nested graph and merges the results into `in` and `out`.
template <typename T, typename Result, typename Infer, typename Known>
bool InferThrough(const NodeAttrs& attrs, std::vector<T>* in, std::vector<T>* out, Infer infer,
                  Known known,
                  void (*assign)(const NodeAttrs&, std::vector<T>*, size_t, const T&,
                                 const std::string&)) {
  const IndexedGraph g(*SingleSubgraph(attrs));
  const auto& vars = g.input_nodes();
  if (vars.size() != in->size() || g.outputs().size() != out->size())
    Fail(StatusCode::kInvalidArgument, SubgraphLabel(attrs), ": has ", in->size(), " inputs and ",
         out->size(), " outputs, its subgraph ", vars.size(), " and ", g.outputs().size());
  std::map<std::string, T> given;
  for (size_t i = 0; i < vars.size(); ++i)
    if (known((*in)[i])) given[g.node(vars[i]).attrs.name] = (*in)[i];
  Result r;
  try {
    r = infer(g, given);
  } catch (const Error& e) {
    Fail(e.code(), SubgraphLabel(attrs), ": in its subgraph: ", e.what());
  }
  for (size_t i = 0; i < vars.size(); ++i)
    assign(attrs, in, i, r.values(g.entry_id(vars[i], 0)), StrCat("input ", i));
  for (size_t i = 0; i < out->size(); ++i)
    assign(attrs, out, i, r.values(g.entry_id(g.outputs()[i])), StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

struct ShapeFound {
  pass::ShapeResult r;
  const Shape& values(uint32_t eid) const { return r.shapes[eid]; }
};
struct TypeFound {
  pass::TypeResult r;
  DType values(uint32_t eid) const { return r.dtypes[eid]; }
};

void AssignShapeAt(const NodeAttrs& a, std::vector<Shape>* v, size_t i, const Shape& s,
                   const std::string& what) {
  AssignShape(a, v, i, s, what);
}
void AssignTypeAt(const NodeAttrs& a, std::vector<DType>* v, size_t i, const DType& t,
                  const std::string& what) {
  AssignType(a, v, i, t, what);
}

bool SubgraphShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferThrough<Shape, ShapeFound>(
      attrs, in, out,
      [](const IndexedGraph& g, const pass::ShapeMap& m) {
        return ShapeFound{pass::InferShape(g, m)};
      },
      [](const Shape& s) { return s.ndim_known(); }, AssignShapeAt);
}

bool SubgraphType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  return InferThrough<DType, TypeFound>(
      attrs, in, out,
      [](const IndexedGraph& g, const pass::DTypeMap& m) {
        return TypeFound{pass::InferType(g, m)};
      },
      [](DType t) { return t != DType::kUnknown; }, AssignTypeAt);
}

OpDef SubgraphDef(const std::string& name, const std::string& alias, std::vector<ParamDecl> params,
                  const std::string& doc) {
  OpDef d;
  d.name = name;
  d.aliases = {alias};
  d.doc = doc;
  d.params = std::move(params);
  d.key_var_num_args = "num_args";
  d.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(p.GetInt("num_args")); };
  d.infer_shape = SubgraphShape;
  d.infer_type = SubgraphType;
  return d;
}

// The attributes decoded once per node, as the int8 kernels read them.
const quant::QuantParams& QParams(const ParamValues& p) { return p.Decoded<quant::QuantParams>(); }

bool Quantized(const ParamValues& p) { return QParams(p).quantized; }

size_t NumArgs(const ParamValues& p) { return static_cast<size_t>(QParams(p).num_args); }

// The range inputs a quantized node takes after num_args.
size_t NumRangeInputs(const ParamValues& p) {
  if (!Quantized(p)) return 0;
  return 2 + (QParams(p).with_sum ? 2 : 0);
}

// Index of the sum input among the first num_args, or num_args when none.
size_t SumIndex(const ParamValues& p) { return QParams(p).with_sum ? NumArgs(p) - 1 : NumArgs(p); }

// Whether the last fused activation never goes negative (MXNet's
// IsOutputUint8): relu, sigmoid, softrelu, clip from a bound >= 0, square,
// sqrt, exp, abs.
bool EndsWithRelu(const NodeAttrs& attrs) {
  const IndexedGraph g(*SingleSubgraph(attrs));
  const Node& last = g.node(g.outputs()[0].node_id);
  if (!last.op()) return false;
  const std::string& op = last.op()->name;
  if (op == "clip") return last.attrs.params.GetFloat("a_min") >= 0;
  if (op == "square" || op == "sqrt" || op == "exp" || op == "abs") return true;
  if (op != "Activation") return false;
  const std::string& act = last.attrs.params.GetString("act_type");
  return act == "relu" || act == "sigmoid" || act == "softrelu";
}

// A quantized subgraph node's shapes: the nested graph's for its variables
// and output 0, (1) for the range inputs and outputs after them.
bool QuantizedShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!Quantized(attrs.params)) return SubgraphShape(attrs, in, out);
  const size_t n = NumArgs(attrs.params);
  std::vector<Shape> bin(in->begin(), in->begin() + n), bout = {(*out)[0]};
  const bool known = SubgraphShape(attrs, &bin, &bout);
  for (size_t i = 0; i < n; ++i) (*in)[i] = bin[i];
  (*out)[0] = bout[0];
  for (size_t i = n; i < in->size(); ++i)
    AssignShape(attrs, in, i, Shape({1}), StrCat("input ", i));
  for (size_t i = 1; i < out->size(); ++i)
    AssignShape(attrs, out, i, Shape({1}), StrCat("output ", i));
  return known && AllKnown(*in) && AllKnown(*out);
}

void CheckLevels(const NodeAttrs& attrs, DType t, const char* what) {
  if (t != DType::kUnknown && t != DType::kInt8 && t != DType::kUint8)
    Fail(StatusCode::kDType, SubgraphLabel(attrs), ": quantized, input '", what,
         "' must be int8 or uint8, given ", DTypeName(t));
}

// Data and sum are int8/uint8; the nested graph infers the rest with them
// as float32 (MXNet's SgMKLDNNConvInferType).
bool QuantizedConvType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (!Quantized(attrs.params)) return SubgraphType(attrs, in, out);
  const size_t n = NumArgs(attrs.params), sum = SumIndex(attrs.params);
  CheckLevels(attrs, (*in)[0], "data");
  if (sum < n) CheckLevels(attrs, (*in)[sum], "sum");
  std::vector<DType> bin(in->begin(), in->begin() + n), bout = {DType::kUnknown};
  bin[0] = DType::kFloat32;
  if (sum < n) bin[sum] = DType::kFloat32;
  SubgraphType(attrs, &bin, &bout);
  for (size_t i = 1; i < n; ++i)
    if (i != sum) (*in)[i] = bin[i];
  for (size_t i = n; i < in->size(); ++i)
    AssignType(attrs, in, i, DType::kFloat32, StrCat("input ", i));
  const DType t = !QParams(attrs.params).calibrated ? DType::kInt32
                  : EndsWithRelu(attrs)             ? DType::kUint8
                                                    : DType::kInt8;
  AssignType(attrs, out, 0, t, "output 0");
  for (size_t i = 1; i < 3; ++i) AssignType(attrs, out, i, DType::kFloat32, StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

// A quantized fully connected layer (MXNet's SgMKLDNNFCOp): tensor-wise,
// data int8/uint8 and weight/bias int8 with a (min, max) each after the
// subgraph's variables; channel-wise, float32 weight/bias and the data's
// range only. One float32 output with enable_float_output, else the output
// (uint8 after a non-negative activation, int8, or int32 uncalibrated)
// and its range.
int QuantizedFCInputs(const ParamValues& p) {
  const quant::QuantParams& q = QParams(p);
  const int n = static_cast<int>(q.num_args);
  if (!q.quantized) return n;
  return q.channel_wise ? n + 2 : 3 * n;
}

// Refuses what MXNet never writes and its kernel cannot run: a calibrated
// range together with enable_float_output, and a channel-wise layer with
// neither (MXNet's channel-wise scales need a fused requantize or
// dequantize).
void CheckFCOutputForm(const NodeAttrs& attrs, const quant::QuantParams& q) {
  if (q.calibrated && q.enable_float_output)
    Fail(StatusCode::kNotImplemented, SubgraphLabel(attrs),
         ": quantized with both min/max_calib_range and enable_float_output (MXNet writes one "
         "or the other)");
  if (q.channel_wise && !q.calibrated && !q.enable_float_output)
    Fail(StatusCode::kNotImplemented, SubgraphLabel(attrs),
         ": channel_wise_quantize needs min_calib_range/max_calib_range or "
         "enable_float_output (an int32 output has one scale)");
}

bool QuantizedFCType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const quant::QuantParams& q = QParams(attrs.params);
  if (!q.quantized) return SubgraphType(attrs, in, out);
  CheckFCOutputForm(attrs, q);
  const size_t n = static_cast<size_t>(q.num_args);
  CheckLevels(attrs, (*in)[0], "data");
  for (size_t i = 1; i < in->size(); ++i)
    AssignType(attrs, in, i, i < n && !q.channel_wise ? DType::kInt8 : DType::kFloat32,
               StrCat("input ", i));
  DType t = DType::kInt32;
  if (q.enable_float_output)
    t = DType::kFloat32;
  else if (q.calibrated)
    t = EndsWithRelu(attrs) ? DType::kUint8 : DType::kInt8;
  AssignType(attrs, out, 0, t, "output 0");
  for (size_t i = 1; i < out->size(); ++i)
    AssignType(attrs, out, i, DType::kFloat32, StrCat("output ", i));
  return AllKnown(*in) && AllKnown(*out);
}

int QuantizedFCOutputs(const ParamValues& p) {
  const quant::QuantParams& q = QParams(p);
  return q.quantized && !q.enable_float_output ? 3 : 1;
}

}  // namespace

const Graph* SingleSubgraph(const NodeAttrs& attrs) {
  if (attrs.subgraphs.size() != 1 || !attrs.subgraphs[0])
    Fail(StatusCode::kInvalidArgument, SubgraphLabel(attrs), ": must carry one subgraph, has ",
         attrs.subgraphs.size());
  return attrs.subgraphs[0].get();
}

std::string SubgraphLabel(const NodeAttrs& attrs) {
  return StrCat("node '", attrs.name, "' (", attrs.op ? attrs.op->name : std::string("?"), ")");
}

void RegisterSubgraphOps(OpRegistry* reg) {
  OpDef conv = SubgraphDef("_sg_mkldnn_conv", "_sg_onednn_conv", ConvParams(),
                           "MXNet's oneDNN-fused Convolution [+ BatchNorm] [+ act] [+ sum] "
                           "[+ act], computed by its subgraph (float32).");
  conv.num_inputs_fn = [](const ParamValues& p) {
    return static_cast<int>(NumArgs(p) + NumRangeInputs(p));
  };
  conv.num_outputs_fn = [](const ParamValues& p) { return Quantized(p) ? 3 : 1; };
  conv.output_names = [](const ParamValues& p) {
    if (Quantized(p)) return std::vector<std::string>{"output", "output_min", "output_max"};
    return std::vector<std::string>{"output"};
  };
  conv.infer_shape = QuantizedShape;
  conv.infer_type = QuantizedConvType;
  conv.input_names = SgConvInputNames;
  conv.mutate_inputs = ConvMutateInputs;
  // The quantized form's int8 kernels place the residual in the output
  // before the convolution adds into it, so the output may take the
  // residual's storage (the planner pairs them where the dtypes agree).
  conv.inplace = [](const ParamValues& p) {
    std::vector<std::pair<int, int>> pairs;
    if (Quantized(p) && QParams(p).with_sum) pairs.emplace_back(static_cast<int>(SumIndex(p)), 0);
    return pairs;
  };
  conv.check_subgraphs = CheckConvSubgraph;
  reg->Add(std::move(conv));

  OpDef fc = SubgraphDef("_sg_mkldnn_fully_connected", "_sg_onednn_fully_connected", FCParams(),
                         "MXNet's oneDNN-fused FullyConnected [+ eltwise] [+ sum], computed by "
                         "its subgraph (float32), or int8 (quantized=true).");
  fc.input_names = FCInputNames;
  fc.check_subgraphs = CheckFCSubgraph;
  fc.num_inputs_fn = QuantizedFCInputs;
  fc.num_outputs_fn = QuantizedFCOutputs;
  fc.output_names = [](const ParamValues& p) {
    if (QuantizedFCOutputs(p) == 3)  // MXNet's names (the convolution's are output_min/max)
      return std::vector<std::string>{"output", "min_output", "max_output"};
    return std::vector<std::string>{"output"};
  };
  fc.infer_shape = QuantizedShape;
  fc.infer_type = QuantizedFCType;
  reg->Add(std::move(fc));
}

}  // namespace op
}  // namespace weft
