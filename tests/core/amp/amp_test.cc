// Automatic mixed precision (weft/amp.h) against MXNet's rules: the amp_cast
// nodes of a small convolutional net where MXNet's ReducePrecision pass puts
// them (names included), the parameters' __dtype__ codes and
// cast_optional_params, list checks, a JSON round trip, and the converted
// graph computing what the float32 one computes within bfloat16/float16
// rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/pass/inference_test_util.h"
#include "weft/amp.h"
#include "weft/executor.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

using test::Apply;

Symbol SmallNet() {
  Symbol h = Apply("Convolution", {Symbol::CreateVariable("data")},
                   {{"kernel", "(3,3)"}, {"num_filter", "8"}, {"pad", "(1,1)"}}, "conv");
  h = Apply("BatchNorm", {h}, {{"fix_gamma", "False"}}, "bn");
  h = Apply("Activation", {h}, {{"act_type", "relu"}}, "relu");
  h = Apply("Pooling", {h}, {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}},
            "pool");
  h = Apply("Flatten", {h}, {}, "flat");
  h = Apply("FullyConnected", {h}, {{"num_hidden", "5"}}, "fc");
  return Apply("SoftmaxOutput", {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

// name -> (dtype, input node name) of every amp_cast node.
std::map<std::string, std::pair<std::string, std::string>> Casts(const Symbol& s) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  IndexedGraph g(Graph{s.outputs});
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable() || n.op()->name != "amp_cast") continue;
    out[n.attrs.name] = {n.attrs.dict.at("dtype"), n.inputs[0].node->attrs.name};
  }
  return out;
}

std::map<std::string, NDArray> Params(const Symbol& sym, bool aux) {
  std::map<std::string, NDArray> p;
  IndexedGraph g(Graph{sym.outputs});
  const pass::ShapeResult s =
      pass::InferShape(g, {{"data", Shape{4, 3, 8, 8}}, {"softmax_label", Shape{4}}});
  const auto& nodes = aux ? g.aux_nodes() : g.argument_nodes();
  unsigned seed = aux ? 100 : 1;
  for (uint32_t nid : nodes) {
    const std::string& n = g.node(nid).attrs.name;
    if (n == "data" || n == "softmax_label") continue;
    const bool var = n.find("moving_var") != std::string::npos;
    p[n] = test::RandomArray(s.shapes[g.entry_id(nid, 0)], DType::kFloat32, var ? 0.5 : -0.5,
                             var ? 1.5 : 0.5, seed++);
  }
  return p;
}

TEST(Amp, CastsGoWhereMXNetPutsThem) {
  amp::ConvertOptions o;
  o.target_dtype = DType::kBFloat16;
  const Symbol net = SmallNet();
  const amp::Model m =
      amp::ConvertModel(Runtime::Global().ops(), net, Params(net, false), Params(net, true), o);
  using P = std::pair<std::string, std::string>;
  const std::map<std::string, P> want = {
      {"data_amp_cast_bfloat16", P{"bfloat16", "data"}},
      {"conv_weight_amp_cast_bfloat16", P{"bfloat16", "conv_weight"}},
      {"conv_bias_amp_cast_bfloat16", P{"bfloat16", "conv_bias"}},
      // Flatten is float32-only for bfloat16; Pooling names its output.
      {"pool_output_amp_cast_float32", P{"float32", "pool"}},
      // FullyConnected computes in bfloat16; Flatten does not name outputs.
      {"flat_0_amp_cast_bfloat16", P{"bfloat16", "flat"}},
      {"fc_weight_amp_cast_bfloat16", P{"bfloat16", "fc_weight"}},
      {"fc_bias_amp_cast_bfloat16", P{"bfloat16", "fc_bias"}},
      // SoftmaxOutput is float32-only: the output needs no further cast.
      {"fc_output_amp_cast_float32", P{"float32", "fc"}}};
  EXPECT_EQ(Casts(m.symbol), want);
  // Parameters stay float32 (their casts are in the graph) and say so.
  IndexedGraph g(Graph{m.symbol.outputs});
  for (uint32_t nid : g.input_nodes()) {
    const Node& v = g.node(nid);
    if (v.attrs.name == "data" || v.attrs.name == "softmax_label")
      EXPECT_EQ(v.attrs.dict.count("__dtype__"), 0u) << v.attrs.name;
    else
      EXPECT_EQ(v.attrs.dict.at("__dtype__"), "0") << v.attrs.name;
  }
  for (const auto& [name, a] : m.args) EXPECT_EQ(a.dtype(), DType::kFloat32) << name;
}

TEST(Amp, CastOptionalParamsStoresWeightsInTheTargetDType) {
  amp::ConvertOptions o;
  o.target_dtype = DType::kFloat16;
  o.cast_optional_params = true;
  const Symbol net = SmallNet();
  const amp::Model m =
      amp::ConvertModel(Runtime::Global().ops(), net, Params(net, false), Params(net, true), o);
  const auto casts = Casts(m.symbol);
  EXPECT_EQ(casts.count("conv_weight_amp_cast_float16"), 0u);
  EXPECT_EQ(casts.count("data_amp_cast_float16"), 1u);
  EXPECT_EQ(m.args.at("conv_weight").dtype(), DType::kFloat16);
  EXPECT_EQ(m.args.at("fc_bias").dtype(), DType::kFloat16);
  EXPECT_EQ(m.args.at("bn_gamma").dtype(), DType::kFloat32);  // BatchNorm keeps float32
  EXPECT_EQ(m.aux.at("bn_moving_var").dtype(), DType::kFloat32);
}

class AmpNumbers : public ::testing::TestWithParam<DType> {};

// The converted graph, saved as JSON and loaded again, computes the float32
// graph's probabilities within the target's rounding, bound on the same
// parameters.
TEST_P(AmpNumbers, ConvertedGraphMatchesFloat32) {
  amp::ConvertOptions o;
  o.target_dtype = GetParam();
  const Symbol net = SmallNet();
  const auto args = Params(net, false), aux = Params(net, true);
  const amp::Model m = amp::ConvertModel(Runtime::Global().ops(), net, args, aux, o);
  const Symbol loaded = LoadJSON(SaveJSON(m.symbol), Runtime::Global().ops()).symbol;
  std::vector<NDArray> probs;
  for (const Symbol* s : {&net, &loaded}) {
    std::map<std::string, NDArray> bound = s == &net ? args : m.args;
    bound["data"] = test::RandomArray(Shape{4, 3, 8, 8}, DType::kFloat32, -1, 1, 9);
    bound["softmax_label"] = test::Array(Shape{4}, {0, 1, 2, 3});
    auto ex = Executor::BindByName(&Runtime::Global(), *s, Context::CPU(), bound, {}, {},
                                   s == &net ? aux : m.aux);
    ex->Forward(false);
    probs.push_back(ex->outputs()[0]);
  }
  EXPECT_EQ(probs[1].dtype(), DType::kFloat32);
  const std::vector<double> a = test::Values(probs[1]), b = test::Values(probs[0]);
  const double tol = GetParam() == DType::kBFloat16 ? 0.03 : 0.004;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << i;
}

INSTANTIATE_TEST_SUITE_P(DTypes, AmpNumbers, ::testing::Values(DType::kFloat16, DType::kBFloat16),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(DTypeName(info.param));
                         });

TEST(Amp, ListsAreCheckedAsMXNetChecksThem) {
  const Symbol net = SmallNet();
  const OpRegistry& reg = Runtime::Global().ops();
  amp::ConvertOptions o;
  o.target_dtype = DType::kFloat32;
  test::ExpectError([&] { amp::ConvertSymbol(reg, net, o); }, StatusCode::kDType,
                    {"float32", "expected float16 or bfloat16"});
  o.target_dtype = DType::kBFloat16;
  o.target_dtype_ops = {"Convolution"};
  o.fp32_ops = {"Convolution", "Flatten"};
  test::ExpectError([&] { amp::ConvertSymbol(reg, net, o); }, StatusCode::kInvalidArgument,
                    {"two lists", "Convolution"});
  o.fp32_ops = {"no_such_op"};
  test::ExpectError([&] { amp::ConvertSymbol(reg, net, o); }, StatusCode::kInvalidArgument,
                    {"no AMP list", "no_such_op"});
  // An excluded node stays float32: no cast in front of it.
  amp::ConvertOptions e;
  e.target_dtype = DType::kBFloat16;
  e.excluded_sym_names = {"conv"};
  const auto casts = Casts(amp::ConvertSymbol(reg, net, e));
  EXPECT_EQ(casts.count("data_amp_cast_bfloat16"), 0u);
  EXPECT_EQ(casts.count("fc_weight_amp_cast_bfloat16"), 1u);
}

// elemwise_add takes its inputs' widest dtype: a bfloat16 and a float32
// operand meet in float32 (the bfloat16 side is cast).
TEST(Amp, WidestTypeOpsCastToTheWidestInput) {
  Symbol a = Apply("FullyConnected", {Symbol::CreateVariable("data")}, {{"num_hidden", "4"}}, "fa");
  Symbol b = Apply("Flatten", {Symbol::CreateVariable("data")}, {}, "fb");
  Symbol y = Apply("elemwise_add", {a, b}, {}, "sum");
  amp::ConvertOptions o;
  o.target_dtype = DType::kBFloat16;
  const auto casts = Casts(amp::ConvertSymbol(Runtime::Global().ops(), y, o));
  EXPECT_EQ(casts.count("fa_output_amp_cast_float32"), 1u);
  EXPECT_EQ(casts.count("fb_0_amp_cast_float32"), 0u);  // already float32
}

}  // namespace
}  // namespace weft
