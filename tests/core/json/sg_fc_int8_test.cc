// A quantized _sg_mkldnn_fully_connected (quantized=true, with_eltwise relu)
// in MXNet 1.9.1's layout: data -> _contrib_quantize_v2 -> the int8 fully
// connected layer (int8 weight and bias with their ranges, as quantize_model
// stores them) -> _contrib_dequantize, against its definition computed here
// in double precision (SgMKLDNNFCOp, tensor-wise: the bias brought into the
// sums' levels, the real result relu'd and scaled into uint8 levels); and the
// enable_float_output form, whose float32 output is the real result itself.
// The channel-wise form (channel_wise_quantize) against the same definition
// with MXNet's per-channel weight scales, and against its float32 graph
// within the quantization error bound derived below (on oneDNN's inner
// product when it is built).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/json/json_test_util.h"
#include "core/pass/inference_test_util.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

std::string Var(const std::string& name) {
  return R"js({"op": "null", "name": ")js" + name + R"js(", "inputs": []})js";
}

// data (0), quantize (1), weight, bias and their ranges (2-7), the fully
// connected layer (8), dequantize (9) unless the output is float.
std::string Json(bool float_out) {
  const std::string sub =
      R"js({"nodes": [)js" + Var("d") + "," + Var("w") + "," + Var("b") +
      R"js(, {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "5"},
      "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
      {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]}],
      "arg_nodes": [0, 1, 2], "heads": [[4, 0, 0]]})js";
  const std::string attrs = float_out ? R"js("enable_float_output": "true")js"
                                      : R"js("min_calib_range": "0", "max_calib_range": "6")js";
  std::string j = R"js({"nodes": [)js" + Var("data") +
                  R"js(, {"op": "_contrib_quantize_v2", "name": "data_quantize",
      "attrs": {"out_type": "int8", "min_calib_range": "-2", "max_calib_range": "2"},
      "inputs": [[0, 0, 0]]}, )js" +
                  Var("fc_weight_quantize") + "," + Var("fc_bias_quantize") + "," +
                  Var("fc_weight_quantize_min") + "," + Var("fc_weight_quantize_max") + "," +
                  Var("fc_bias_quantize_min") + "," + Var("fc_bias_quantize_max") +
                  R"js(, {"op": "_sg_mkldnn_fully_connected", "name": "quantized_sg_fc",
      "attrs": {"quantized": "true", "with_eltwise": "true", )js" +
                  attrs + R"js(},
      "inputs": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [1, 1, 0], [1, 2, 0], [4, 0, 0], [5, 0, 0],
                 [6, 0, 0], [7, 0, 0]], "subgraphs": [)js" +
                  sub + "]}";
  if (!float_out)
    j +=
        R"js(, {"op": "_contrib_dequantize", "name": "deq", "inputs": [[8, 0, 0], [8, 1, 0], [8, 2, 0]]})js";
  j += R"js(], "arg_nodes": [0, 2, 3, 4, 5, 6, 7], "heads": [[)js" +
       std::string(float_out ? "8" : "9") + R"js(, 0, 0]]})js";
  return j;
}

void Set(Executor* ex, const std::string& name, const std::vector<double>& v) {
  for (size_t i = 0; i < ex->arg_names().size(); ++i)
    if (ex->arg_names()[i] == name) {
      NDArray dst = ex->arg_arrays()[i];
      test::Array(dst.shape(), v, dst.dtype()).CopyTo(&dst);
      return;
    }
  ADD_FAILURE() << "no argument " << name;
}

double Rne(double v) { return std::nearbyint(v); }

TEST(SgFcInt8, ReluIntoUint8AndFloatOutputFollowTheDefinition) {
  const int64_t rows = 3, k = 8, hidden = 5;
  const std::vector<double> x =
      test::Values(test::RandomArray(Shape{rows, k}, DType::kFloat32, -2, 2, 4));
  std::vector<double> w(hidden * k), b(hidden);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>((i * 37) % 255) - 127;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(i * 29 % 200) - 100;
  const double wr = 0.5, br = 0.25;  // the weight's range (-wr, wr), the bias's (-br, br)
  // The definition, in double.
  const double ds = 127.5 / 2, ws = 127.5 / wr, bs = 127.5 / br;
  const double rescale = ds * ws / bs;
  std::vector<double> real(rows * hidden);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t h = 0; h < hidden; ++h) {
      double acc = std::round(b[h] * rescale);
      for (int64_t j = 0; j < k; ++j)
        acc += std::clamp(Rne(x[r * k + j] * ds), -128.0, 127.0) * w[h * k + j];
      real[r * hidden + h] = std::max(acc / (ds * ws), 0.0);
    }
  for (bool float_out : {false, true}) {
    const Symbol sym = LoadJSON(Json(float_out), Runtime::Global().ops()).symbol;
    auto ex = test::BindInference(sym, {{"data", Shape{rows, k}}}, true);
    Set(ex.get(), "data", x);
    Set(ex.get(), "fc_weight_quantize", w);
    Set(ex.get(), "fc_bias_quantize", b);
    Set(ex.get(), "fc_weight_quantize_min", {-wr});
    Set(ex.get(), "fc_weight_quantize_max", {wr});
    Set(ex.get(), "fc_bias_quantize_min", {-br});
    Set(ex.get(), "fc_bias_quantize_max", {br});
    ex->Forward(false);
    const std::vector<double> got = test::Values(ex->outputs()[0]);
    ASSERT_EQ(got.size(), real.size());
    for (size_t i = 0; i < real.size(); ++i) {
      // uint8 levels of (0, 6): 255.5 / 6 per unit, dequantized back.
      const double want =
          float_out ? real[i] : std::min(Rne(real[i] * 255.5 / 6), 255.0) * 6 / 255.5;
      EXPECT_NEAR(got[i], want, float_out ? 1e-5 * (1 + real[i]) : 6 / 255.5 + 1e-6)
          << (float_out ? "float" : "uint8") << " output " << i;
    }
  }
}

// Channel-wise: data (0), quantize (1, range +-2), the float32 weight and
// bias (2, 3), the layer (4) taking the data's range only, then dequantize
// (5) unless the output is float32. `relu`: an Activation is fused;
// `attrs`: more attributes ("key": "value" pairs, or empty).
std::string ChannelWiseJson(const std::string& attrs, bool relu, bool float_out, int hidden) {
  std::string sub = R"js({"nodes": [)js" + Var("d") + "," + Var("w") + "," + Var("b") +
                    R"js(, {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": ")js" +
                    std::to_string(hidden) +
                    R"js("}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]})js";
  if (relu)
    sub += R"js(, {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"},
        "inputs": [[3, 0, 0]]})js";
  sub +=
      R"js(], "arg_nodes": [0, 1, 2], "heads": [[)js" + std::string(relu ? "4" : "3") + ", 0, 0]]}";
  std::string j = R"js({"nodes": [)js" + Var("data") +
                  R"js(, {"op": "_contrib_quantize_v2", "name": "data_quantize",
      "attrs": {"out_type": "int8", "min_calib_range": "-2", "max_calib_range": "2"},
      "inputs": [[0, 0, 0]]}, )js" +
                  Var("fc_weight") + "," + Var("fc_bias") +
                  R"js(, {"op": "_sg_mkldnn_fully_connected", "name": "quantized_sg_fc",
      "attrs": {"quantized": "true", "channel_wise_quantize": "True", "with_eltwise": ")js" +
                  std::string(relu ? "true" : "false") + "\"" + (attrs.empty() ? "" : ", ") +
                  attrs + R"js(},
      "inputs": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [1, 1, 0], [1, 2, 0]], "subgraphs": [)js" +
                  sub + "]}";
  if (!float_out)
    j +=
        R"js(, {"op": "_contrib_dequantize", "name": "deq", "inputs": [[4, 0, 0], [4, 1, 0], [4, 2, 0]]})js";
  j += R"js(], "arg_nodes": [0, 2, 3], "heads": [[)js" + std::string(float_out ? "4" : "5") +
       R"js(, 0, 0]]})js";
  return j;
}

// MXNet's channel-wise layer computed here: per output channel c the scale
// 127.5 / MaxAbs(channel's weights), lowered to INT32_MAX / 2 / b[c] /
// data_scale for a bias that would pass it (float arithmetic, as MXNet's);
// int8 weights and int32 bias levels rounded half to even; the real result
// acc / (data_scale * scale[c]).
struct ChannelWiseRef {
  std::vector<double> scale, real;
};

ChannelWiseRef ChannelWiseDefinition(const std::vector<double>& x, const std::vector<double>& w,
                                     const std::vector<double>& b, int64_t rows, int64_t k,
                                     int64_t hidden, bool relu) {
  const float ds = 127.5f / 2;
  ChannelWiseRef r;
  for (int64_t c = 0; c < hidden; ++c) {
    double m = 0;
    for (int64_t j = 0; j < k; ++j) m = std::max(m, std::abs(w[c * k + j]));
    float s = 127.5f / static_cast<float>(m);
    if (b[c] != 0) {
      const float lim = b[c] > 0 ? 2147483648.0f : -2147483648.0f;
      s = std::min(s, lim / 2 / static_cast<float>(b[c]) / ds);
    }
    r.scale.push_back(s);
  }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < hidden; ++c) {
      const float s = static_cast<float>(r.scale[c]);
      double acc =
          std::clamp(Rne(static_cast<float>(b[c]) * (s * ds)), -2147483648.0, 2147483647.0);
      for (int64_t j = 0; j < k; ++j)
        acc += std::clamp(Rne(static_cast<float>(x[i * k + j]) * ds), -128.0, 127.0) *
               std::clamp(Rne(static_cast<float>(w[c * k + j]) * s), -128.0, 127.0);
      const double v = acc / (static_cast<double>(ds) * s);
      r.real.push_back(relu ? std::max(v, 0.0) : v);
    }
  return r;
}

std::unique_ptr<Executor> BindChannelWise(const std::string& json, int64_t rows, int64_t k) {
  return test::BindInference(LoadJSON(json, Runtime::Global().ops()).symbol,
                             {{"data", Shape{rows, k}}}, true);
}

// Weights of very different magnitudes per output channel, a bias with a
// zero channel.
std::vector<double> SpreadWeights(int64_t hidden, int64_t k, unsigned salt) {
  const double mag[] = {0.02, 0.3, 1.5, 6};
  std::vector<double> w(hidden * k);
  for (int64_t c = 0; c < hidden; ++c)
    for (int64_t j = 0; j < k; ++j)
      w[c * k + j] = mag[c % 4] * (static_cast<double>((j * 37 + c * 11 + salt) % 17) - 8) / 8;
  return w;
}

// The channel-wise tests here run the preferred kernel: oneDNN's int8 inner
// product when it is built (DnnlKernels.TableChannelWiseFullyConnectedRunsOneDnn
// shows it takes their geometry without falling back), else the reference.
TEST(SgFcInt8, ChannelWiseRunsOneDnnWhenBuilt) {
  const Kernel* k =
      Runtime::Global().kernels().Find("_sg_mkldnn_fully_connected", DeviceType::kCPU);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->backend, WEFT_USE_DNNL ? "dnnl" : "cpu");
}

TEST(SgFcInt8, ChannelWiseFollowsTheDefinitionForEveryOutputForm) {
  const int64_t rows = 3, k = 8, hidden = 4;
  const std::vector<double> x =
      test::Values(test::RandomArray(Shape{rows, k}, DType::kFloat32, -2, 2, 5));
  const std::vector<double> w = SpreadWeights(hidden, k, 0), b = {0.3, -1.2, 0, 2.5};
  struct Form {
    const char* name;
    std::string attrs;
    bool relu, float_out;
    double levels;  // levels per unit of the output's range (0: float32)
  };
  const Form forms[] = {{"float32", R"js("enable_float_output": "True")js", false, true, 0},
                        {"float32 relu", R"js("enable_float_output": "True")js", true, true, 0},
                        {"int8", R"js("min_calib_range": "-20", "max_calib_range": "30")js", false,
                         false, 127.5 / 30},
                        {"uint8 relu", R"js("min_calib_range": "0", "max_calib_range": "30")js",
                         true, false, 255.5 / 30}};
  for (const Form& f : forms) {
    auto ex = BindChannelWise(ChannelWiseJson(f.attrs, f.relu, f.float_out, hidden), rows, k);
    Set(ex.get(), "data", x);
    Set(ex.get(), "fc_weight", w);
    Set(ex.get(), "fc_bias", b);
    ex->Forward(false);
    const std::vector<double> got = test::Values(ex->outputs()[0]);
    const ChannelWiseRef ref = ChannelWiseDefinition(x, w, b, rows, k, hidden, f.relu);
    ASSERT_EQ(got.size(), ref.real.size()) << f.name;
    for (size_t i = 0; i < got.size(); ++i) {
      const double r = ref.real[i];
      const double lo = f.relu ? 0 : -128, hi = f.relu ? 255 : 127;
      const double want = f.float_out ? r : std::clamp(Rne(r * f.levels), lo, hi) / f.levels;
      EXPECT_NEAR(got[i], want, f.float_out ? 1e-5 * (1 + std::abs(r)) : 1 / f.levels + 1e-6)
          << f.name << " output " << i;
    }
  }
}

// A bias whose levels would pass INT32_MAX / 2 at the channel's own scale
// lowers that scale (MXNet's rule); the channels beside it keep theirs.
TEST(SgFcInt8, ChannelWiseBiasThatWouldOverflowLowersItsChannelsScale) {
  const int64_t rows = 2, k = 8, hidden = 4;
  const std::vector<double> x =
      test::Values(test::RandomArray(Shape{rows, k}, DType::kFloat32, -2, 2, 6));
  const std::vector<double> w = SpreadWeights(hidden, k, 3), b = {0.5, 2e5, -6e5, 0};
  const ChannelWiseRef ref = ChannelWiseDefinition(x, w, b, rows, k, hidden, false);
  std::vector<double> own(hidden);  // each channel's scale without the cap
  for (int64_t c = 0; c < hidden; ++c) {
    double m = 0;
    for (int64_t j = 0; j < k; ++j) m = std::max(m, std::abs(w[c * k + j]));
    own[c] = static_cast<float>(127.5f / static_cast<float>(m));
  }
  // The case exercises the cap: channels 1 and 2 are lowered, and at their
  // own scales their bias levels would pass the int32 range (saturate, and
  // the result would be off by far more than the tolerance below).
  EXPECT_EQ(ref.scale[0], own[0]);
  EXPECT_EQ(ref.scale[3], own[3]);
  for (int64_t c : {1, 2}) {
    EXPECT_LT(ref.scale[c], own[c]) << c;
    EXPECT_GT(std::abs(b[c]) * own[c] * 127.5 / 2, 2147483647.0) << c;
  }
  auto ex = BindChannelWise(
      ChannelWiseJson(R"js("enable_float_output": "True")js", false, true, hidden), rows, k);
  Set(ex.get(), "data", x);
  Set(ex.get(), "fc_weight", w);
  Set(ex.get(), "fc_bias", b);
  ex->Forward(false);
  const std::vector<double> got = test::Values(ex->outputs()[0]);
  ASSERT_EQ(got.size(), ref.real.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], ref.real[i], 1e-5 * (1 + std::abs(ref.real[i]))) << i;
}

// The derived weights follow the parameters: new weight values (a new
// version of the argument) change the next run's result.
TEST(SgFcInt8, ChannelWiseWeightsFollowTheirUpdates) {
  const int64_t rows = 2, k = 8, hidden = 4;
  const std::vector<double> x =
      test::Values(test::RandomArray(Shape{rows, k}, DType::kFloat32, -2, 2, 9));
  const std::vector<double> b = {0.1, 0.2, -0.3, 0.4};
  auto ex = BindChannelWise(
      ChannelWiseJson(R"js("enable_float_output": "True")js", false, true, hidden), rows, k);
  Set(ex.get(), "data", x);
  Set(ex.get(), "fc_bias", b);
  for (unsigned salt : {0u, 5u, 0u}) {
    const std::vector<double> w = SpreadWeights(hidden, k, salt);
    Set(ex.get(), "fc_weight", w);
    ex->Forward(false);
    const std::vector<double> got = test::Values(ex->outputs()[0]);
    const ChannelWiseRef ref = ChannelWiseDefinition(x, w, b, rows, k, hidden, false);
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], ref.real[i], 1e-5 * (1 + std::abs(ref.real[i]))) << salt << " " << i;
  }
}

TEST(SgFcInt8, ChannelWiseNeedsACalibratedOrFloatOutput) {
  test::ExpectWeftError([] { BindChannelWise(ChannelWiseJson("", false, false, 4), 2, 8); },
                        StatusCode::kNotImplemented,
                        {"quantized_sg_fc", "channel_wise_quantize", "enable_float_output"});
  test::ExpectWeftError(
      [] {
        BindChannelWise(ChannelWiseJson(R"js("enable_float_output": "True", "min_calib_range": "0",
                "max_calib_range": "1")js",
                                        false, true, 4),
                        2, 8);
      },
      StatusCode::kNotImplemented, {"quantized_sg_fc", "enable_float_output", "min/max_calib"});
}

// End to end: fc1 (relu) -> fc2 in float32 against its channel-wise int8
// form (fc1 calibrated into uint8 levels of its output's range, fc2 with a
// float32 output). With ld = 2 / 127.5 the data's level, lw a channel's
// weight level (MaxAbs / 127.5) and l1 the uint8 level of fc1's range, each
// rounding is at most half a level, so (relu being 1-Lipschitz)
//   fc1: |dy1| <= sum_j (|w1| ld / 2 + |x| lw1 / 2 + ld lw1 / 4) + ld lw1 / 2 + l1 / 2
//   fc2: |dy2| <= sum_h (|w2| dy1 + (y1 + dy1) lw2 / 2) + l1 lw2 / 2
// (ld lw / 2 and l1 lw2 / 2: the bias levels' rounding; fc2's data are
// fc1's uint8 levels, exact in fc2's data scale 255.5 / range).
TEST(SgFcInt8, ChannelWiseTwoLayersStayWithinTheQuantizationBound) {
  const int64_t rows = 4, k = 8, h1 = 4, h2 = 3;
  const std::vector<double> x =
      test::Values(test::RandomArray(Shape{rows, k}, DType::kFloat32, -2, 2, 11));
  const std::vector<double> w1 = SpreadWeights(h1, k, 1), b1 = {0.1, -0.2, 0.3, 0};
  std::vector<double> w2(h2 * h1), b2 = {0.05, -0.1, 0.2};
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = (static_cast<double>(i * 7 % 11) - 5) / 10;
  // The float32 reference and fc1's output range.
  std::vector<double> y1(rows * h1), y2(rows * h2);
  double top = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < h1; ++c) {
      double v = b1[c];
      for (int64_t j = 0; j < k; ++j) v += x[r * k + j] * w1[c * k + j];
      y1[r * h1 + c] = std::max(v, 0.0);
      top = std::max(top, v);
    }
    for (int64_t c = 0; c < h2; ++c) {
      double v = b2[c];
      for (int64_t j = 0; j < h1; ++j) v += y1[r * h1 + j] * w2[c * h1 + j];
      y2[r * h2 + c] = v;
    }
  }
  ASSERT_GT(top, 1.0);
  const double range = top * 1.01;
  auto sub = [](const std::string& name, int64_t hidden, bool relu) {
    std::string s = R"js({"nodes": [)js" + Var("d") + "," + Var("w") + "," + Var("b") +
                    R"js(, {"op": "FullyConnected", "name": ")js" + name +
                    R"js(", "attrs": {"num_hidden": ")js" + std::to_string(hidden) +
                    R"js("}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]})js";
    if (relu)
      s += R"js(, {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"},
          "inputs": [[3, 0, 0]]})js";
    return s + R"js(], "arg_nodes": [0, 1, 2], "heads": [[)js" + (relu ? "4" : "3") + ", 0, 0]]}";
  };
  const std::string json =
      R"js({"nodes": [)js" + Var("data") +
      R"js(, {"op": "_contrib_quantize_v2", "name": "data_quantize",
      "attrs": {"out_type": "int8", "min_calib_range": "-2", "max_calib_range": "2"},
      "inputs": [[0, 0, 0]]}, )js" +
      Var("fc1_weight") + "," + Var("fc1_bias") +
      R"js(, {"op": "_sg_mkldnn_fully_connected", "name": "quantized_sg_fc1",
      "attrs": {"quantized": "true", "channel_wise_quantize": "True", "with_eltwise": "true",
        "min_calib_range": "0", "max_calib_range": ")js" +
      std::to_string(range) + R"js("},
      "inputs": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [1, 1, 0], [1, 2, 0]], "subgraphs": [)js" +
      sub("fc1", h1, true) + "]}, " + Var("fc2_weight") + "," + Var("fc2_bias") +
      R"js(, {"op": "_sg_mkldnn_fully_connected", "name": "quantized_sg_fc2",
      "attrs": {"quantized": "true", "channel_wise_quantize": "True",
        "enable_float_output": "true"},
      "inputs": [[4, 0, 0], [5, 0, 0], [6, 0, 0], [4, 1, 0], [4, 2, 0]], "subgraphs": [)js" +
      sub("fc2", h2, false) + R"js(]}], "arg_nodes": [0, 2, 3, 5, 6], "heads": [[7, 0, 0]]})js";
  auto ex = BindChannelWise(json, rows, k);
  Set(ex.get(), "data", x);
  Set(ex.get(), "fc1_weight", w1);
  Set(ex.get(), "fc1_bias", b1);
  Set(ex.get(), "fc2_weight", w2);
  Set(ex.get(), "fc2_bias", b2);
  ex->Forward(false);
  const std::vector<double> got = test::Values(ex->outputs()[0]);
  ASSERT_EQ(got.size(), y2.size());
  const double ld = 2 / 127.5, l1 = range / 255.5;
  auto level = [](const std::vector<double>& w, int64_t c, int64_t n) {
    double m = 0;
    for (int64_t j = 0; j < n; ++j) m = std::max(m, std::abs(w[c * n + j]));
    return m / 127.5;
  };
  double worst = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < h2; ++c) {
      const double lw2 = level(w2, c, h1);
      double bound = l1 * lw2 / 2;
      for (int64_t h = 0; h < h1; ++h) {
        const double lw1 = level(w1, h, k);
        double dy1 = ld * lw1 / 2 + l1 / 2;
        for (int64_t j = 0; j < k; ++j)
          dy1 += std::abs(w1[h * k + j]) * ld / 2 + std::abs(x[r * k + j]) * lw1 / 2 + ld * lw1 / 4;
        bound += std::abs(w2[c * h1 + h]) * dy1 + (y1[r * h1 + h] + dy1) * lw2 / 2;
      }
      const double err = std::abs(got[r * h2 + c] - y2[r * h2 + c]);
      EXPECT_LE(err, bound + 1e-5) << r << "," << c;
      worst = std::max(worst, err);
    }
  // The int8 path ran: float32 arithmetic alone would be off by ~1e-6.
  EXPECT_GT(worst, 1e-4);
}

}  // namespace
}  // namespace weft
