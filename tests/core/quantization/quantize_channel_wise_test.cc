// quant::QuantizeModel with quantize_granularity channel-wise (MXNet
// 1.9.1's quantize_model_mkldnn(..., quantize_granularity='channel-wise')):
// the fully connected layers partitioned into _sg_mkldnn_fully_connected
// nodes, quantized with channel_wise_quantize and their float32 weights,
// the calibrated requantize folded in (and a requantize -> dequantize pair
// as enable_float_output); the int8 model against its float32 one within
// the quantization error bound, and closer than the tensor-wise flow gets
// when the output channels' weights differ in magnitude.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "util/bench_models.h"
#include "util/test_util.h"
#include "weft/data_iter.h"
#include "weft/executor.h"
#include "weft/graph_algorithm.h"
#include "weft/quantize_model.h"

namespace weft {
namespace {

constexpr int64_t kRows = 16, kIn = 8, kHidden = 4, kOut = 3;

// data -> fc1 (4) -> relu1 -> fc2 (3).
Symbol Mlp() {
  const Symbol h = test::bench::Relu(
      test::bench::Fc(Symbol::CreateVariable("data"), static_cast<int>(kHidden), "fc1"), "relu1");
  return test::bench::Fc(h, static_cast<int>(kOut), "fc2");
}

// fc1's output channels differ in magnitude 300-fold, as a network's often do.
std::map<std::string, NDArray> Weights() {
  const double mag[kHidden] = {0.02, 0.3, 1.5, 6};
  std::vector<double> w1(kHidden * kIn), w2(kOut * kHidden);
  for (int64_t c = 0; c < kHidden; ++c)
    for (int64_t j = 0; j < kIn; ++j)
      w1[c * kIn + j] = mag[c] * (static_cast<double>((j * 37 + c * 11) % 17) - 8) / 8;
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = (static_cast<double>(i * 7 % 11) - 5) / 10;
  // fc2 weighs the small channels up, so their error reaches the output.
  for (int64_t c = 0; c < kOut; ++c) w2[c * kHidden] *= 50;
  return {{"fc1_weight", test::Array({kHidden, kIn}, w1)},
          {"fc1_bias", test::Array({kHidden}, {0.1, -0.2, 0.3, 0})},
          {"fc2_weight", test::Array({kOut, kHidden}, w2)},
          {"fc2_bias", test::Array({kOut}, {0.05, -0.1, 0.2})}};
}

const NDArray& Data() {
  static const NDArray x = test::RandomArray({kRows, kIn}, DType::kFloat32, -2, 2, 31);
  return x;
}

quant::QuantizedModel Quantize(const std::string& granularity, const std::string& calib) {
  NDArrayIter it({{"data", Data()}}, {}, static_cast<int>(kRows), false);
  quant::QuantizeOptions qo;
  qo.fuse = true;
  qo.quantize_granularity = granularity;
  quant::CalibOptions co;
  co.calib_mode = calib;
  return quant::QuantizeModel(&Runtime::Global(), Mlp(), Weights(), {}, &it, qo, co);
}

std::vector<double> Output(const Symbol& s, std::map<std::string, NDArray> args) {
  args["data"] = Data();
  auto ex = Executor::BindByName(&Runtime::Global(), s, Context::CPU(), args, {}, {}, {});
  ex->Forward(false);
  return test::Values(ex->outputs()[0]);
}

const Node* Find(const Symbol& s, const std::string& name) {
  for (const NodePtr& n : TopoOrder(s.outputs))
    if (n->attrs.name == name) return n.get();
  ADD_FAILURE() << "no node " << name;
  return nullptr;
}

double Attr(const Node* n, const std::string& key) { return std::stod(n->attrs.dict.at(key)); }

TEST(QuantizeChannelWise, FullyConnectedLayersFuseWithFloatWeights) {
  const quant::QuantizedModel q = Quantize("channel-wise", "naive");
  std::vector<std::string> ops;
  for (const NodePtr& n : TopoOrder(q.symbol.outputs))
    if (!n->is_variable()) ops.push_back(n->attrs.name + ":" + n->op()->name);
  EXPECT_EQ(ops, (std::vector<std::string>{
                     "data_quantize:_contrib_quantize_v2",
                     "quantized_sg_mkldnn_fully_connected_eltwise_0:_sg_mkldnn_fully_connected",
                     "quantized_sg_mkldnn_fully_connected_1:_sg_mkldnn_fully_connected"}));
  const Node* fc1 = Find(q.symbol, "quantized_sg_mkldnn_fully_connected_eltwise_0");
  const Node* fc2 = Find(q.symbol, "quantized_sg_mkldnn_fully_connected_1");
  ASSERT_TRUE(fc1 && fc2);
  for (const Node* n : {fc1, fc2}) {
    EXPECT_EQ(n->attrs.dict.at("channel_wise_quantize"), "True");
    EXPECT_EQ(n->attrs.dict.at("quantized"), "true");
  }
  // fc1 writes uint8 levels of relu1's calibrated range; fc2, read by the
  // float32 output, writes float32.
  EXPECT_EQ(Attr(fc1, "min_calib_range"), 0.0);
  EXPECT_GT(Attr(fc1, "max_calib_range"), 0.0);
  EXPECT_EQ(fc2->attrs.dict.at("enable_float_output"), "True");
  EXPECT_EQ(fc2->attrs.dict.count("min_calib_range"), 0u);
  EXPECT_EQ(q.args.at("fc1_weight").dtype(), DType::kFloat32);
  EXPECT_EQ(q.args.count("fc1_weight_quantize"), 0u);
}

// The float32 reference and the bound of every output: with ld the data's
// level (MaxAbs of its calibrated range / 127.5), lw a channel's weight
// level (MaxAbs / 127.5) and l1 the uint8 level of relu1's range, each
// rounding is half a level, so (relu being 1-Lipschitz)
//   fc1: |dy1| <= sum_j (|w1| ld / 2 + |x| lw1 / 2 + ld lw1 / 4) + ld lw1 / 2 + l1 / 2
//   fc2: |dy2| <= sum_h (|w2| dy1 + (y1 + dy1) lw2 / 2) + l1 lw2 / 2
// (the bias levels round by ld lw1 / 2 and l1 lw2 / 2; fc2 reads fc1's
// uint8 levels, exact in its data scale 255.5 / range).
TEST(QuantizeChannelWise, Int8ModelStaysWithinTheQuantizationBound) {
  const quant::QuantizedModel q = Quantize("channel-wise", "naive");
  const std::vector<double> want = Output(Mlp(), Weights()), got = Output(q.symbol, q.args);
  ASSERT_EQ(got.size(), want.size());
  const Node* dq = Find(q.symbol, "data_quantize");
  const Node* fc1 = Find(q.symbol, "quantized_sg_mkldnn_fully_connected_eltwise_0");
  ASSERT_TRUE(dq && fc1);
  const double ld =
      std::max(std::abs(Attr(dq, "min_calib_range")), std::abs(Attr(dq, "max_calib_range"))) /
      127.5;
  const double l1 = Attr(fc1, "max_calib_range") / 255.5;
  const auto w = Weights();
  const std::vector<double> x = test::Values(Data()), w1 = test::Values(w.at("fc1_weight")),
                            b1 = test::Values(w.at("fc1_bias")),
                            w2 = test::Values(w.at("fc2_weight"));
  auto level = [](const std::vector<double>& m, int64_t c, int64_t n) {
    double top = 0;
    for (int64_t j = 0; j < n; ++j) top = std::max(top, std::abs(m[c * n + j]));
    return top / 127.5;
  };
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kOut; ++c) {
      const double lw2 = level(w2, c, kHidden);
      double bound = l1 * lw2 / 2;
      for (int64_t h = 0; h < kHidden; ++h) {
        const double lw1 = level(w1, h, kIn);
        double y1 = b1[h], dy1 = ld * lw1 / 2 + l1 / 2;
        for (int64_t j = 0; j < kIn; ++j) {
          y1 += x[r * kIn + j] * w1[h * kIn + j];
          dy1 += std::abs(w1[h * kIn + j]) * ld / 2 + std::abs(x[r * kIn + j]) * lw1 / 2 +
                 ld * lw1 / 4;
        }
        bound += std::abs(w2[c * kHidden + h]) * dy1 + (std::max(y1, 0.0) + dy1) * lw2 / 2;
      }
      const size_t i = static_cast<size_t>(r * kOut + c);
      EXPECT_LE(std::abs(got[i] - want[i]), bound + 1e-5) << r << "," << c;
    }
}

// data -> fc1 alone, whose channel 0 has weights 300 times smaller than
// channel 3's. Channel-wise, channel 0 keeps its own weight scale and the
// flow's float32 output; tensor-wise, its weights share the largest
// channel's levels and its output is requantized into int8 levels of the
// whole layer's range, so it loses most of its value.
TEST(QuantizeChannelWise, KeepsASmallChannelThatTensorWiseLoses) {
  const Symbol net =
      test::bench::Fc(Symbol::CreateVariable("data"), static_cast<int>(kHidden), "fc1");
  std::map<std::string, NDArray> w = Weights();
  w.erase("fc2_weight");
  w.erase("fc2_bias");
  const std::vector<double> want = Output(net, w);
  auto channel0 = [&](const std::string& granularity) {
    NDArrayIter it({{"data", Data()}}, {}, static_cast<int>(kRows), false);
    quant::QuantizeOptions qo;
    qo.fuse = true;
    qo.quantize_granularity = granularity;
    quant::CalibOptions co;
    co.calib_mode = "naive";
    const quant::QuantizedModel q =
        quant::QuantizeModel(&Runtime::Global(), net, w, {}, &it, qo, co);
    const std::vector<double> got = Output(q.symbol, q.args);
    double err = 0, top = 0;
    for (int64_t r = 0; r < kRows; ++r) {
      err = std::max(err, std::abs(got[r * kHidden] - want[r * kHidden]));
      top = std::max(top, std::abs(want[r * kHidden]));
    }
    return err / top;
  };
  const double channel = channel0("channel-wise"), tensor = channel0("tensor-wise");
  EXPECT_LT(channel, 0.05);
  EXPECT_GT(tensor, 0.3);
}

TEST(QuantizeChannelWise, BadOptionsAreClearErrors) {
  test::ExpectError([] { Quantize("per-channel", "naive"); }, StatusCode::kInvalidArgument,
                    {"quantize_granularity", "per-channel"});
  test::ExpectError([] { Quantize("channel-wise", "none"); }, StatusCode::kInvalidArgument,
                    {"channel-wise", "calib_mode is none"});
}

}  // namespace
}  // namespace weft
