// quant::QuantizeSymbol, SetCalibTable, QuantizeParams and the calibration
// statistics (issue 49) against MXNet 1.9.1's rules, read from
// src/operator/quantization/quantize_graph_pass.cc and python/mxnet/
// contrib/quantization.py: node names, where quantize / requantize /
// dequantize nodes go in "smart" and "full" mode, the offline parameter
// variables, the calibration layers' names, and the entropy threshold's
// behaviour on distributions whose answer is known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "util/bench_models.h"
#include "util/test_util.h"
#include "weft/executor.h"
#include "weft/graph_algorithm.h"
#include "weft/initializer.h"
#include "weft/module.h"
#include "weft/pass.h"
#include "weft/quantize_model.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

using quant::QuantizeOptions;

// "name:op" of every operator node, in graph order.
std::vector<std::string> Nodes(const Symbol& s) {
  std::vector<std::string> out;
  for (const NodePtr& n : TopoOrder(s.outputs))
    if (!n->is_variable()) out.push_back(n->attrs.name + ":" + n->op()->name);
  return out;
}

std::set<std::string> Params(const Symbol& s) {
  const auto a = s.ListArguments();
  return {a.begin(), a.end()};
}

quant::QuantizedSymbol QuantizeLeNet(const QuantizeOptions& o) {
  const Symbol net = test::bench::LeNet();
  std::set<std::string> offline;
  for (const std::string& a : net.ListArguments())
    if (a != "data" && a != "softmax_label") offline.insert(a);
  return quant::QuantizeSymbol(Runtime::Global().ops(), net, offline, o);
}

TEST(QuantizeGraph, SmartModeQuantizesLeNetEndToEndWithMXNetsNames) {
  const quant::QuantizedSymbol q = QuantizeLeNet({});
  const std::vector<std::string> want = {"data_quantize:_contrib_quantize_v2",
                                         "quantized_conv1:_contrib_quantized_conv",
                                         "requantize_conv1:_contrib_requantize",
                                         "quantized_relu1:_contrib_quantized_act",
                                         "quantized_pool1:_contrib_quantized_pooling",
                                         "quantized_conv2:_contrib_quantized_conv",
                                         "requantize_conv2:_contrib_requantize",
                                         "quantized_relu2:_contrib_quantized_act",
                                         "quantized_pool2:_contrib_quantized_pooling",
                                         "quantized_flatten:_contrib_quantized_flatten",
                                         "quantized_fc1:_contrib_quantized_fully_connected",
                                         "requantize_fc1:_contrib_requantize",
                                         "quantized_relu3:_contrib_quantized_act",
                                         "quantized_fc2:_contrib_quantized_fully_connected",
                                         "requantize_fc2:_contrib_requantize",
                                         "fc2_dequantize:_contrib_dequantize",
                                         "softmax:SoftmaxOutput"};
  EXPECT_EQ(Nodes(q.symbol), want);
  EXPECT_EQ(q.calib_layers, (std::vector<std::string>{"data", "conv1_output", "conv2_output",
                                                      "fc1_output", "fc2_output"}));
  // Offline parameters: three variables each, in MXNet's argument order.
  const std::vector<std::string> args = q.symbol.ListArguments();
  const std::vector<std::string> head(args.begin(), args.begin() + 7);
  EXPECT_EQ(head,
            (std::vector<std::string>{"data", "conv1_weight_quantize", "conv1_bias_quantize",
                                      "conv1_weight_quantize_min", "conv1_weight_quantize_max",
                                      "conv1_bias_quantize_min", "conv1_bias_quantize_max"}));
  EXPECT_TRUE(Params(q.symbol).count("fc2_bias_quantize_max"));
  EXPECT_FALSE(Params(q.symbol).count("conv1_weight"));
}

TEST(QuantizeGraph, AnExcludedLayerStaysFloatAndSmartModeStopsBeforeIt) {
  QuantizeOptions o;
  o.excluded_sym_names = {"fc2"};
  std::vector<std::string> nodes = Nodes(QuantizeLeNet(o).symbol);
  const std::vector<std::string> tail(nodes.end() - 5, nodes.end());
  // relu3 sits between fc1 and a float reader: "smart" leaves it float.
  EXPECT_EQ(tail, (std::vector<std::string>{
                      "requantize_fc1:_contrib_requantize", "fc1_dequantize:_contrib_dequantize",
                      "relu3:Activation", "fc2:FullyConnected", "softmax:SoftmaxOutput"}));
  o.quantize_mode = "full";
  nodes = Nodes(QuantizeLeNet(o).symbol);
  const std::vector<std::string> full(nodes.end() - 4, nodes.end());
  EXPECT_EQ(full, (std::vector<std::string>{"quantized_relu3:_contrib_quantized_act",
                                            "relu3_dequantize:_contrib_dequantize",
                                            "fc2:FullyConnected", "softmax:SoftmaxOutput"}));
  o.excluded_op_names = {"Convolution"};
  o.excluded_sym_names.clear();
  o.quantize_mode = "smart";
  const std::vector<std::string> no_conv = Nodes(QuantizeLeNet(o).symbol);
  EXPECT_EQ(no_conv[0], "conv1:Convolution");
  EXPECT_EQ(std::count(no_conv.begin(), no_conv.end(),
                       "quantized_fc1:_contrib_quantized_fully_connected"),
            1);
}

TEST(QuantizeGraph, BadOptionsAreClearErrors) {
  QuantizeOptions o;
  o.quantized_dtype = "int4";
  EXPECT_THROW(QuantizeLeNet(o), Error);
  o = {};
  o.quantize_mode = "fast";
  EXPECT_THROW(QuantizeLeNet(o), Error);
  o = {};
  o.excluded_sym_names = {"conv9"};
  try {
    QuantizeLeNet(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv9"), std::string::npos) << e.what();
  }
}

TEST(QuantizeGraph, CalibrationRangesLandOnTheirNodesAndSurviveJson) {
  const quant::QuantizedSymbol q = QuantizeLeNet({});
  const quant::CalibTable table = {
      {"data", {0.f, 1.f}}, {"conv1_output", {-2.5f, 3.25f}}, {"fc2_output", {-7.f, 1e-5f}}};
  const Symbol cal = quant::SetCalibTable(q.symbol, table);
  const Symbol back = LoadJSON(SaveJSON(cal), Runtime::Global().ops()).symbol;
  int set = 0;
  for (const NodePtr& n : TopoOrder(back.outputs)) {
    if (n->is_variable() || !n->attrs.dict.count("min_calib_range")) continue;
    ++set;
    const float lo = std::stof(n->attrs.dict.at("min_calib_range"));
    const float hi = std::stof(n->attrs.dict.at("max_calib_range"));
    const std::map<std::string, std::string> layer = {{"data_quantize", "data"},
                                                      {"requantize_conv1", "conv1_output"},
                                                      {"requantize_fc2", "fc2_output"}};
    ASSERT_TRUE(layer.count(n->attrs.name)) << n->attrs.name;
    EXPECT_EQ(std::make_pair(lo, hi), table.at(layer.at(n->attrs.name))) << n->attrs.name;
  }
  EXPECT_EQ(set, 3);
  EXPECT_FALSE(q.symbol.outputs[0].node->inputs[0].node->attrs.dict.count("min_calib_range"))
      << "SetCalibTable must not edit its input";
}

TEST(QuantizeGraph, ParametersBecomeInt8OverTheirOwnRange) {
  Runtime* rt = &Runtime::Global();
  const quant::QuantizedSymbol q = QuantizeLeNet({});
  std::map<std::string, NDArray> params;
  for (const std::string& a : test::bench::LeNet().ListArguments())
    if (a != "data" && a != "softmax_label") params[a] = NDArray();
  // Only conv1's parameters are inspected; the others get small arrays.
  const NDArray w = test::RandomArray(Shape{20, 1, 5, 5}, DType::kFloat32, -0.3, 0.7, 3);
  for (auto& [name, arr] : params)
    arr = name == "conv1_weight" ? w : test::RandomArray(Shape{4}, DType::kFloat32, -1, 1, 4);
  const auto out = quant::QuantizeParams(rt, q.symbol, params);
  const std::vector<double> wv = test::Values(w);
  double amax = 0;
  for (double v : wv) amax = std::max(amax, std::fabs(v));
  const NDArray qw = out.at("conv1_weight_quantize");
  ASSERT_EQ(qw.dtype(), DType::kInt8);
  const std::vector<double> qv = test::Values(qw);
  for (size_t i = 0; i < wv.size(); ++i) {
    // MXNet's _contrib_quantize: sign(x) * min(|x| * 127 / MaxAbs + 0.5, 127), truncated.
    const double want = std::copysign(std::floor(std::fabs(wv[i]) * 127 / amax + 0.5), wv[i]);
    EXPECT_EQ(qv[i], want) << i;
  }
  EXPECT_NEAR(test::Values(out.at("conv1_weight_quantize_min"))[0], -amax, 1e-7);
  EXPECT_NEAR(test::Values(out.at("conv1_weight_quantize_max"))[0], amax, 1e-7);
  EXPECT_FALSE(out.count("conv1_weight"));
}

std::vector<float> Edges(size_t n, double th) {
  std::vector<float> e(n + 1);
  for (size_t i = 0; i <= n; ++i) e[i] = static_cast<float>(-th + 2 * th * i / n);
  return e;
}

TEST(QuantizeCalibration, EntropyKeepsTheWholeRangeOfAUniformDistribution) {
  const std::vector<double> hist(8001, 10.0);
  EXPECT_EQ(quant::EntropyThreshold(hist, Edges(8001, 4.0), 255), 4.0f);
}

TEST(QuantizeCalibration, EntropyClipsAFarOutlier) {
  std::mt19937 gen(5);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> values(200000);
  for (float& v : values) v = normal(gen);
  values[17] = 60.f;  // one outlier at 60 sigma
  quant::LayerStats stats;
  stats.Collect("x", values);
  const auto naive = stats.MinMax().at("x");
  EXPECT_EQ(naive.second, 60.f);
  const auto ent = stats.Entropy("int8").at("x");
  EXPECT_EQ(ent.first, -ent.second);
  // The optimum clips the outlier and keeps the bulk (|x| < 4.5 sigma here).
  EXPECT_GT(ent.second, 2.f);
  EXPECT_LT(ent.second, 8.f);
}

TEST(QuantizeCalibration, HistogramsOfBatchesWithGrowingRangesCombine) {
  quant::LayerStats stats(11);
  stats.Collect("y", {0.f, 1.f, 2.f});
  stats.Collect("y", {-5.f, 0.5f});  // widens by whole bins on each side
  const auto mm = stats.MinMax().at("y");
  EXPECT_EQ(mm, std::make_pair(-5.f, 2.f));
  // Non-negative layers calibrate to (0, t) for uint8 / auto only.
  quant::LayerStats pos(1001);
  pos.Collect("r", {0.f, 0.5f, 1.f, 3.f});
  EXPECT_EQ(pos.Entropy("auto").at("r").first, 0.f);
  EXPECT_LT(pos.Entropy("int8").at("r").first, 0.f);
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// MXNet's MKLDNN_QUANTIZE partitioning of ResNet-18: one fused node per
// convolution (20), named by what it fuses, with the residual add and its
// relu inside the block's second convolution; the partitioned float32 graph
// computes what the original does.
TEST(QuantizePartition, ResNet18ConvolutionsFuseWithBatchNormReluAndTheSum) {
  const Symbol net = test::bench::ResNet18();
  const quant::Partitioned p = quant::PartitionConv(Runtime::Global().ops(), net);
  std::map<std::string, int> kinds;
  for (const NodePtr& n : TopoOrder(p.symbol.outputs)) {
    if (n->is_variable()) continue;
    EXPECT_NE(n->op()->name, "Convolution");
    EXPECT_NE(n->op()->name, "BatchNorm");
    if (n->op()->name != "_sg_mkldnn_conv") continue;
    const std::string& name = n->attrs.name;
    ++kinds[name.substr(0, name.find_last_of('_'))];
  }
  EXPECT_EQ(kinds["sg_mkldnn_conv_bn_act"], 9);      // conv0 and each block's first
  EXPECT_EQ(kinds["sg_mkldnn_conv_bn_add_act"], 8);  // each block's second, with the sum
  EXPECT_EQ(kinds["sg_mkldnn_conv_bn"], 3);          // the projection shortcuts
  EXPECT_EQ(p.alias.at("sg_mkldnn_conv_bn_act_0_output"), "relu0_output");
  // Saved and loaded as MXNet's JSON, it runs to the original's outputs.
  const Symbol back = LoadJSON(SaveJSON(p.symbol), Runtime::Global().ops()).symbol;
  Runtime* rt = &Runtime::Global();
  Module mod(rt, net);
  mod.Bind({{"data", Shape{2, 3, 32, 32}}}, {{"softmax_label", Shape{2}}}, false);
  auto init = Initializer::Create("xavier", {{"magnitude", "2"}}, 11);
  mod.InitParams(init.get());
  const NDArray x = test::RandomArray(Shape{2, 3, 32, 32}, DType::kFloat32, -1, 1, 5);
  auto run = [&](const Symbol& s) {
    std::map<std::string, NDArray> args = mod.arg_params();
    args["data"] = x;
    args["softmax_label"] = NDArray(Shape{2}, Context::CPU(), DType::kFloat32, rt);
    auto ex = Executor::BindByName(rt, s, Context::CPU(), args, {}, {}, mod.aux_params());
    ex->Forward(false);
    return test::Values(ex->outputs()[0]);
  };
  const std::vector<double> want = run(net), got = run(back);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// `net` with seeded (Xavier, `magnitude`) parameters for input `x`, and
// its fused int8 form (MXNet's quantize_model_mkldnn, uint8 where data is
// non-negative) calibrated naively on `x`.
struct SeededInt8 {
  std::map<std::string, NDArray> args, aux;
  quant::QuantizedModel q;
};
SeededInt8 QuantizeSeeded(const Symbol& net, const NDArray& x, const char* magnitude) {
  Runtime* rt = &Runtime::Global();
  const int64_t n = x.shape()[0];
  Module mod(rt, net);
  mod.Bind({{"data", x.shape()}}, {{"softmax_label", Shape{n}}}, false);
  auto init = Initializer::Create("xavier", {{"magnitude", magnitude}}, 11);
  mod.InitParams(init.get());
  NDArrayIter calib({{"data", x}}, {}, static_cast<int>(n), false);
  quant::CalibOptions co;
  co.calib_mode = "naive";
  quant::QuantizeOptions qo;
  qo.fuse = true;
  qo.quantized_dtype = "auto";
  SeededInt8 out;
  out.args = mod.arg_params();
  out.aux = mod.aux_params();
  out.q = quant::QuantizeModel(rt, net, out.args, out.aux, &calib, qo, co);
  return out;
}

// MobileNet's block: Convolution -> BatchNorm -> clip(0, 6) fuses into one
// int8 convolution writing uint8 (ReLU6 never goes negative); quantized with
// calibration it follows the float32 graph within a few levels of its range.
TEST(QuantizePartition, ReLU6FusesAndRunsInInt8) {
  Runtime* rt = &Runtime::Global();
  using test::bench::Apply;
  Symbol h = test::bench::Bn(
      test::bench::Conv(Symbol::CreateVariable("data"), 16, 3, 1, false, "c1"), "b1");
  h = Apply("clip", {h}, {{"a_min", "0"}, {"a_max", "6"}}, "relu6");
  h = test::bench::Bn(test::bench::Conv(h, 8, 1, 1, false, "c2"), "b2");
  const Symbol net =
      test::bench::Softmax(test::bench::Fc(Apply("Flatten", {h}, {}, "flat"), 10, "fc"));
  const quant::Partitioned p = quant::PartitionConv(rt->ops(), net);
  std::vector<std::string> fused;
  for (const NodePtr& n : TopoOrder(p.symbol.outputs))
    if (!n->is_variable() && n->op()->name == "_sg_mkldnn_conv") fused.push_back(n->attrs.name);
  EXPECT_EQ(fused, (std::vector<std::string>{"sg_mkldnn_conv_bn_act_0", "sg_mkldnn_conv_bn_1"}));
  EXPECT_EQ(p.alias.at("sg_mkldnn_conv_bn_act_0_output"), "relu6_output");

  const NDArray x = test::RandomArray(Shape{8, 3, 12, 12}, DType::kFloat32, -2, 2, 9);
  const SeededInt8 m = QuantizeSeeded(net, x, "3");
  const quant::QuantizedModel& q = m.q;
  auto run = [&](const Symbol& s, const std::map<std::string, NDArray>& a,
                 const std::map<std::string, NDArray>& aux) {
    std::map<std::string, NDArray> args = a;
    args["data"] = x;
    args["softmax_label"] = NDArray(Shape{8}, Context::CPU(), DType::kFloat32, rt);
    auto ex = Executor::BindByName(rt, s, Context::CPU(), args, {}, {}, aux);
    ex->Forward(false);
    return test::Values(ex->outputs()[0]);
  };
  const std::vector<double> want = run(net, m.args, m.aux);
  const std::vector<double> got = run(q.symbol, q.args, q.aux);
  ASSERT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
  EXPECT_LT(worst, 0.05) << "softmax probabilities of the int8 graph vs float32";
  EXPECT_GT(worst, 0.0) << "the int8 graph computes exactly the float32 one: nothing quantized?";
  bool uint8_conv = false;
  for (const NodePtr& n : TopoOrder(q.symbol.outputs))
    if (!n->is_variable() && n->attrs.name == "quantized_sg_mkldnn_conv_bn_act_0") {
      uint8_conv = true;
      EXPECT_TRUE(n->attrs.dict.count("min_calib_range"));
    }
  EXPECT_TRUE(uint8_conv);
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// The int8 ResNet-18 of the fused flow runs the same with the inference
// passes (pass::Int8ChannelsLast keeps the bytes between its convolutions
// channels-last where oneDNN runs them) as without.
TEST(QuantizeChannelsLast, OptimizedInt8ResNet18EqualsUnoptimized) {
  Runtime* rt = &Runtime::Global();
  const Symbol net = test::bench::ResNet18();
  const NDArray x = test::RandomArray(Shape{2, 3, 32, 32}, DType::kFloat32, -1, 1, 5);
  const quant::QuantizedModel q = QuantizeSeeded(net, x, "2").q;
  auto run = [&](bool optimize, std::string* passes) {
    std::map<std::string, NDArray> args = q.args;
    args["data"] = x;
    args["softmax_label"] = NDArray(Shape{2}, Context::CPU(), DType::kFloat32, rt);
    ExecutorOptions o;
    o.optimize_inference = optimize;
    auto ex = Executor::BindByName(rt, q.symbol, Context::CPU(), args, {}, {}, q.aux, o);
    ex->Forward(false);
    if (passes) *passes = ex->DebugString();
    return test::Values(ex->outputs()[0]);
  };
  std::string passes;
  const std::vector<double> on = run(true, &passes), off = run(false, nullptr);
  ASSERT_EQ(on.size(), off.size());
  for (size_t i = 0; i < on.size(); ++i) EXPECT_NEAR(on[i], off[i], 1e-6) << i;
#if WEFT_USE_DNNL
  EXPECT_NE(passes.find("Int8ChannelsLast"), std::string::npos) << passes.substr(0, 400);
#endif
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// With a pooling that reads NHWC (oneDNN's int8 pooling), the int8
// ResNet-18's max pooling between its first convolutions keeps its data and
// output channels-last, and its global average pooling reads the last
// convolution's bytes as they are (its output feeds a flatten: plain);
// without, the poolings stay plain and so do the convolutions around them.
TEST(QuantizeChannelsLast, PoolingsJoinTheChannelsLastChain) {
  const NDArray x = test::RandomArray(Shape{2, 3, 32, 32}, DType::kFloat32, -1, 1, 5);
  const quant::QuantizedModel q = QuantizeSeeded(test::bench::ResNet18(), x, "2").q;
  Graph g;
  g.outputs = q.symbol.outputs;
  auto layouts = [&](bool pooling) {
    const Graph marked = pass::Int8ChannelsLast(Runtime::Global().ops(), g, pooling).graph;
    std::map<std::string, std::string> out;
    for (const NodePtr& n : TopoOrder(marked.outputs)) {
      if (n->is_variable() || n->op()->name != "_contrib_quantized_pooling") continue;
      std::string& l = out[n->attrs.params.GetBool("global_pool") ? "global" : "max"];
      for (const char* key : {"__data_layout__", "__out_layout__"}) {
        auto it = n->attrs.dict.find(key);
        l += it == n->attrs.dict.end() ? "-" : it->second;
        l += ' ';
      }
    }
    return out;
  };
  const std::map<std::string, std::string> with = layouts(true), without = layouts(false);
  ASSERT_EQ(with.size(), 2u) << "the int8 ResNet-18 has a quantized max and global pooling";
  EXPECT_EQ(with.at("max"), "nhwc nhwc ");
  EXPECT_EQ(with.at("global"), "nhwc - ");
  EXPECT_EQ(without.at("max"), "- - ");
  EXPECT_EQ(without.at("global"), "- - ");
}

}  // namespace
}  // namespace weft
