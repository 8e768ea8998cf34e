// A quantized _sg_mkldnn_fully_connected (quantized=true, with_eltwise relu)
// in MXNet 1.9.1's layout: data -> _contrib_quantize_v2 -> the int8 fully
// connected layer (int8 weight and bias with their ranges, as quantize_model
// stores them) -> _contrib_dequantize, against its definition computed here
// in double precision (SgMKLDNNFCOp, tensor-wise: the bias brought into the
// sums' levels, the real result relu'd and scaled into uint8 levels); and the
// enable_float_output form, whose float32 output is the real result itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

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

}  // namespace
}  // namespace weft
