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
// inference passes fuse the layers again for oneDNN. quantized=true (int8)
// is refused at load (subgraph_check.cc).
#include "op/op_common.h"
#include "op/subgraph_ops.h"
#include "weft/pass.h"

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
  conv.input_names = SgConvInputNames;
  conv.mutate_inputs = ConvMutateInputs;
  conv.check_subgraphs = CheckConvSubgraph;
  reg->Add(std::move(conv));

  OpDef fc = SubgraphDef("_sg_mkldnn_fully_connected", "_sg_onednn_fully_connected", FCParams(),
                         "MXNet's oneDNN-fused FullyConnected [+ eltwise] [+ sum], computed by "
                         "its subgraph (float32).");
  fc.input_names = FCInputNames;
  fc.check_subgraphs = CheckFCSubgraph;
  reg->Add(std::move(fc));
}

}  // namespace op
}  // namespace weft
