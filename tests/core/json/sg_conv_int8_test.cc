// A quantized _sg_mkldnn_conv (quantized=true, with_bn, with_act) in MXNet
// 1.9.1's layout: data -> _contrib_quantize_v2 -> _sg_mkldnn_conv (int8
// weights derived from the float32 ones, per output channel) ->
// _contrib_dequantize, against its float32 graph Convolution -> BatchNorm ->
// relu within the quantization error bound derived below; and the same file
// saved and loaded again runs to identical outputs.
//
// Bound for output channel c: with data levels Ld = A / 127.5 (|x| <= A),
// the BatchNorm-folded weight w' = w * gamma / sqrt(var + eps) quantized with
// levels Lw = max|w'_c| / 127.5, every product of the K = C * kh * kw terms
// is off by at most |w'| Ld / 2 + |x| Lw / 2 + Ld Lw / 4, the int32 bias by
// Ld Lw / 2, and the uint8 output by half its level Lo = M / 255.5; relu
// does not widen the error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/pass/inference_test_util.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

const OpRegistry& Reg() { return Runtime::Global().ops(); }

std::string Var(const std::string& name) {
  return R"js({"op": "null", "name": ")js" + name + R"js(", "inputs": []})js";
}

std::string Params() {
  return Var("conv0_weight") + "," + Var("conv0_bias") + "," + Var("bn0_gamma") + "," +
         Var("bn0_beta") + "," + Var("bn0_moving_mean") + "," + Var("bn0_moving_var");
}

const char* kLayers = R"js(
  {"op": "Convolution", "name": "conv0", "attrs": {"kernel": "(3, 3)", "num_filter": "4",
   "pad": "(1, 1)"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
  {"op": "BatchNorm", "name": "bn0", "attrs": {"eps": "1e-05", "fix_gamma": "False"},
   "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0], [7, 0, 0]]},
  {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"}, "inputs": [[8, 0, 0]]})js";

// data, weight, bias, conv, gamma, beta, mean, var, bn, relu (nodes 0-9).
std::string PlainJson() {
  const std::string layers = kLayers;
  const size_t bn = layers.find(R"js(  {"op": "BatchNorm")js");
  return R"js({"nodes": [)js" + Var("data") + "," + Var("conv0_weight") + "," + Var("conv0_bias") +
         "," + layers.substr(0, bn) + Var("bn0_gamma") + "," + Var("bn0_beta") + "," +
         Var("bn0_moving_mean") + "," + Var("bn0_moving_var") + "," + layers.substr(bn) +
         R"js(], "arg_nodes": [0, 1, 2, 4, 5, 6, 7], "heads": [[9, 0, 0]]})js";
}

// data -> quantize_v2 (range +-a) -> quantized _sg_mkldnn_conv (output range
// (0, m)) -> dequantize. The subgraph lists its nodes as MXNet does.
std::string QuantizedJson(double a, double m) {
  const std::string layers = kLayers;
  const size_t bn = layers.find(R"js(  {"op": "BatchNorm")js");
  const std::string sub = R"js({"nodes": [)js" + Var("data0") + "," + Var("conv0_weight0") + "," +
                          Var("conv0_bias0") + "," + layers.substr(0, bn) + Var("g0") + "," +
                          Var("b0") + "," + Var("m0") + "," + Var("v0") + "," + layers.substr(bn) +
                          R"js(], "arg_nodes": [0, 1, 2, 4, 5, 6, 7], "heads": [[9, 0, 0]]})js";
  const std::string sa = std::to_string(a), sm = std::to_string(m);
  return R"js({"nodes": [)js" + Var("data") +
         R"js(, {"op": "_contrib_quantize_v2", "name": "quantize0", "attrs": {"out_type": "int8",
         "min_calib_range": "-)js" +
         sa + R"js(", "max_calib_range": ")js" + sa + R"js("}, "inputs": [[0, 0, 0]]},)js" +
         Params() +
         R"js(, {"op": "_sg_mkldnn_conv", "name": "sg0", "attrs": {"quantized": "true",
         "with_bn": "true", "with_relu": "true", "min_calib_range": "0",
         "max_calib_range": ")js" +
         sm +
         R"js("}, "inputs": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0],
         [7, 0, 0], [1, 1, 0], [1, 2, 0]], "subgraphs": [)js" +
         sub +
         R"js(]}, {"op": "_contrib_dequantize", "name": "dequantize0",
         "inputs": [[8, 0, 0], [8, 1, 0], [8, 2, 0]]}],
         "arg_nodes": [0, 2, 3, 4, 5, 6, 7], "heads": [[9, 0, 0]],
         "attrs": {"mxnet_version": ["int", 10901]}})js";
}

const pass::ShapeMap kShapes = {{"data", Shape{2, 3, 6, 6}}};

// Copies arrays between executors by name.
void CopyByName(const Executor& from, Executor* to) {
  auto copy = [](const std::vector<std::string>& fn, const std::vector<NDArray>& fa,
                 const std::vector<std::string>& tn, const std::vector<NDArray>& ta) {
    for (size_t i = 0; i < tn.size(); ++i) {
      const auto it = std::find(fn.begin(), fn.end(), tn[i]);
      ASSERT_NE(it, fn.end()) << tn[i];
      NDArray dst = ta[i];
      fa[static_cast<size_t>(it - fn.begin())].CopyTo(&dst);
    }
  };
  copy(from.arg_names(), from.arg_arrays(), to->arg_names(), to->arg_arrays());
  copy(from.aux_names(), from.aux_arrays(), to->aux_names(), to->aux_arrays());
}

std::vector<double> Named(const Executor& ex, const std::string& name) {
  for (size_t i = 0; i < ex.arg_names().size(); ++i)
    if (ex.arg_names()[i] == name) return test::Values(ex.arg_arrays()[i]);
  for (size_t i = 0; i < ex.aux_names().size(); ++i)
    if (ex.aux_names()[i] == name) return test::Values(ex.aux_arrays()[i]);
  ADD_FAILURE() << "no array " << name;
  return {};
}

TEST(SgConvInt8, QuantizedConvBnReluWithinTheQuantizationBound) {
  auto ref = test::BindInference(LoadJSON(PlainJson(), Reg()).symbol, kShapes, false);
  test::FillRandom(ref.get(), 7);
  const double a = 1;
  NDArray data = ref->arg_arrays()[0];
  test::RandomArray(data.shape(), DType::kFloat32, -a, a, 8).CopyTo(&data);
  ref->Forward(false);
  const std::vector<double> want = test::Values(ref->outputs()[0]);
  double top = 0;
  for (double v : want) top = std::max(top, v);
  ASSERT_GT(top, 0.1);
  const double m = top * 1.05;
  const Symbol q = LoadJSON(QuantizedJson(a, m), Reg()).symbol;
  auto ex = test::BindInference(q, kShapes, true);
  CopyByName(*ref, ex.get());
  ex->Forward(false);
  const std::vector<double> got = test::Values(ex->outputs()[0]);
  ASSERT_EQ(got.size(), want.size());

  const std::vector<double> w = Named(*ref, "conv0_weight"), g = Named(*ref, "bn0_gamma"),
                            v = Named(*ref, "bn0_moving_var");
  const int64_t k = 3 * 9, plane = 36;
  const double ld = a / 127.5, lo = m / 255.5;
  double mean_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const int64_t c = (static_cast<int64_t>(i) / plane) % 4;
    double wmax = 0;
    for (int64_t j = 0; j < k; ++j) wmax = std::max(wmax, std::abs(w[c * k + j]));
    wmax *= std::abs(g[c]) / std::sqrt(v[c] + 1e-5);
    const double lw = wmax / 127.5;
    const double bound = k * (wmax * ld / 2 + a * lw / 2 + ld * lw / 4) + ld * lw / 2 + lo / 2;
    EXPECT_LE(std::abs(got[i] - want[i]), bound + 1e-5) << i;
    mean_err += std::abs(got[i] - want[i]) / static_cast<double>(got.size());
  }
  EXPECT_LT(mean_err, 2 * lo);  // typical errors are far inside the bound

  // Saved and loaded again: the same file, the same outputs.
  const Symbol again = LoadJSON(SaveJSON(q), Reg()).symbol;
  EXPECT_EQ(SaveJSON(again), SaveJSON(q));
  auto ex2 = test::BindInference(again, kShapes, true);
  CopyByName(*ref, ex2.get());
  ex2->Forward(false);
  EXPECT_EQ(test::Values(ex2->outputs()[0]), got);
}

// conv_a + bn_a (the shortcut, x1) and relu(conv_b + bn_b + x1), float32.
std::string SumPlainJson() {
  auto conv = [](const std::string& name, int d, int w, int b) {
    return R"js({"op": "Convolution", "name": ")js" + name +
           R"js(", "attrs": {"kernel": "(3, 3)", "num_filter": "4", "pad": "(1, 1)"},
           "inputs": [[)js" +
           std::to_string(d) + ", 0, 0], [" + std::to_string(w) + ", 0, 0], [" + std::to_string(b) +
           ", 0, 0]]}";
  };
  auto bn = [](const std::string& name, int x, int first) {
    std::string in = "[" + std::to_string(x) + ", 0, 0]";
    for (int i = 0; i < 4; ++i) in += ", [" + std::to_string(first + i) + ", 0, 0]";
    return R"js({"op": "BatchNorm", "name": ")js" + name +
           R"js(", "attrs": {"eps": "1e-05", "fix_gamma": "False"}, "inputs": [)js" + in + "]}";
  };
  auto bn_vars = [](const std::string& p) {
    return Var(p + "_gamma") + "," + Var(p + "_beta") + "," + Var(p + "_moving_mean") + "," +
           Var(p + "_moving_var");
  };
  return R"js({"nodes": [)js" + Var("data") + "," + Var("conva_weight") + "," + Var("conva_bias") +
         "," + conv("conva", 0, 1, 2) + "," + bn_vars("bna") + "," + bn("bna", 3, 4) + "," +
         Var("convb_weight") + "," + Var("convb_bias") + "," + conv("convb", 0, 9, 10) + "," +
         bn_vars("bnb") + "," + bn("bnb", 11, 12) +
         R"js(, {"op": "elemwise_add", "name": "add0", "inputs": [[16, 0, 0], [8, 0, 0]]},
         {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"},
          "inputs": [[17, 0, 0]]}],
         "arg_nodes": [0, 1, 2, 4, 5, 6, 7, 9, 10, 12, 13, 14, 15], "heads": [[18, 0, 0]]})js";
}

// The same quantized as MXNet writes it: quantize -> sg_a (int8 out, range
// +-r1) and sg_b (with_sum: sg_a's output, postsum relu, range (0, m)).
std::string SumQuantizedJson(double a, double r1, double m) {
  const std::string layers = kLayers;
  const size_t bn = layers.find(R"js(  {"op": "BatchNorm")js");
  const size_t relu = layers.find(R"js(  {"op": "Activation")js");
  const std::string conv_bn = layers.substr(0, bn) + Var("g0") + "," + Var("b0") + "," + Var("m0") +
                              "," + Var("v0") + "," + layers.substr(bn, relu - bn);
  const std::string head = conv_bn.substr(0, conv_bn.find_last_of(','));
  const std::string sub_a = R"js({"nodes": [)js" + Var("d0") + "," + Var("w0") + "," + Var("c0") +
                            "," + head +
                            R"js(], "arg_nodes": [0, 1, 2, 4, 5, 6, 7], "heads": [[8, 0, 0]]})js";
  const std::string sub_b =
      R"js({"nodes": [)js" + Var("d0") + "," + Var("w0") + "," + Var("c0") + "," + conv_bn +
      Var("s0") + R"js(, {"op": "elemwise_add", "name": "add0", "inputs": [[8, 0, 0], [9, 0, 0]]},
      {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"}, "inputs": [[10, 0, 0]]}],
      "arg_nodes": [0, 1, 2, 4, 5, 6, 7, 9], "heads": [[11, 0, 0]]})js";
  auto params = [](const std::string& c, const std::string& b) {
    return Var(c + "_weight") + "," + Var(c + "_bias") + "," + Var(b + "_gamma") + "," +
           Var(b + "_beta") + "," + Var(b + "_moving_mean") + "," + Var(b + "_moving_var");
  };
  return R"js({"nodes": [)js" + Var("data") +
         R"js(, {"op": "_contrib_quantize_v2", "name": "quantize0", "attrs": {"out_type": "int8",
         "min_calib_range": "-)js" +
         std::to_string(a) + R"js(", "max_calib_range": ")js" + std::to_string(a) +
         R"js("}, "inputs": [[0, 0, 0]]},)js" + params("conva", "bna") +
         R"js(, {"op": "_sg_mkldnn_conv", "name": "sg_a", "attrs": {"quantized": "true",
         "with_bn": "true", "min_calib_range": "-)js" +
         std::to_string(r1) + R"js(", "max_calib_range": ")js" + std::to_string(r1) +
         R"js("}, "inputs": [[1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0],
         [7, 0, 0], [1, 1, 0], [1, 2, 0]], "subgraphs": [)js" +
         sub_a + "]}," + params("convb", "bnb") +
         R"js(, {"op": "_sg_mkldnn_conv", "name": "sg_b", "attrs": {"quantized": "true",
         "with_bn": "true", "with_sum": "true", "with_postsum_relu": "true",
         "min_calib_range": "0", "max_calib_range": ")js" +
         std::to_string(m) +
         R"js("}, "inputs": [[1, 0, 0], [9, 0, 0], [10, 0, 0], [11, 0, 0], [12, 0, 0], [13, 0, 0],
         [14, 0, 0], [8, 0, 0], [1, 1, 0], [1, 2, 0], [8, 1, 0], [8, 2, 0]],
         "subgraphs": [)js" +
         sub_b + R"js(]}, {"op": "_contrib_dequantize", "name": "deq0",
         "inputs": [[15, 0, 0], [15, 1, 0], [15, 2, 0]]}],
         "arg_nodes": [0, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14], "heads": [[16, 0, 0]]})js";
}

// The conv + BatchNorm part of the bound above (without the output's
// rounding) for channel c of `prefix`'s layers.
double ConvBound(const Executor& ex, const std::string& conv, const std::string& bn, int64_t c,
                 double a) {
  const std::vector<double> w = Named(ex, conv + "_weight"), g = Named(ex, bn + "_gamma"),
                            v = Named(ex, bn + "_moving_var");
  const int64_t k = 3 * 9;
  double wmax = 0;
  for (int64_t j = 0; j < k; ++j) wmax = std::max(wmax, std::abs(w[c * k + j]));
  wmax *= std::abs(g[c]) / std::sqrt(v[c] + 1e-5);
  const double ld = a / 127.5, lw = wmax / 127.5;
  return k * (wmax * ld / 2 + a * lw / 2 + ld * lw / 4) + ld * lw / 2;
}

TEST(SgConvInt8, WithSumAndPostSumReluWithinTheBound) {
  const Symbol plain = LoadJSON(SumPlainJson(), Reg()).symbol;
  const Symbol internals = plain.GetInternals();
  const std::vector<std::string> names = internals.ListOutputs();
  const auto at = std::find(names.begin(), names.end(), "bna_output");
  ASSERT_NE(at, names.end());
  const Symbol shortcut = internals[static_cast<size_t>(at - names.begin())];
  auto ref = test::BindInference(Symbol::Group({plain, shortcut}), kShapes, false);
  test::FillRandom(ref.get(), 17);
  const double a = 1;
  NDArray data = ref->arg_arrays()[0];
  test::RandomArray(data.shape(), DType::kFloat32, -a, a, 18).CopyTo(&data);
  ref->Forward(false);
  const std::vector<double> want = test::Values(ref->outputs()[0]);
  const std::vector<double> x1 = test::Values(ref->outputs()[1]);
  double top = 0, r1 = 0;
  for (double v : want) top = std::max(top, v);
  for (double v : x1) r1 = std::max(r1, std::abs(v));
  ASSERT_GT(top, 0.1);
  const double m = top * 1.05;
  r1 *= 1.05;
  auto ex = test::BindInference(LoadJSON(SumQuantizedJson(a, r1, m), Reg()).symbol, kShapes, true);
  CopyByName(*ref, ex.get());
  ex->Forward(false);
  const std::vector<double> got = test::Values(ex->outputs()[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const int64_t c = (static_cast<int64_t>(i) / 36) % 4;
    // Both convolutions' errors, the shortcut's int8 rounding and the
    // output's uint8 rounding; the sum is rescaled exactly (no rounding).
    const double bound = ConvBound(*ref, "conva", "bna", c, a) +
                         ConvBound(*ref, "convb", "bnb", c, a) + r1 / 127.5 / 2 + m / 255.5 / 2;
    EXPECT_LE(std::abs(got[i] - want[i]), bound + 1e-5) << i;
  }
}

TEST(SgConvInt8, ActivationsOtherThanReluOrClipAreAClearError) {
  std::string text = QuantizedJson(1, 2);
  const std::string relu = R"js("act_type": "relu")js";
  size_t at = 0;
  while ((at = text.find(relu, at)) != std::string::npos)
    text.replace(at, relu.size(), R"js("act_type": "sigmoid")js");
  auto ex = test::BindInference(LoadJSON(text, Reg()).symbol, kShapes, true);
  test::ExpectError(
      [&] {
        ex->Forward(false);
        test::Values(ex->outputs()[0]);
      },
      StatusCode::kNotImplemented, {"sg0", "relu0", "int8 runs relu, and clip before the sum"});
}

TEST(SgConvInt8, ListsMXNetsInputAndOutputNames) {
  const Symbol q = LoadJSON(QuantizedJson(1, 2), Reg()).symbol;
  Symbol internals = q.GetInternals();
  const std::vector<std::string> outs = internals.ListOutputs();
  EXPECT_NE(std::find(outs.begin(), outs.end(), "sg0_output_min"), outs.end());
  EXPECT_NE(std::find(outs.begin(), outs.end(), "sg0_output_max"), outs.end());
  const std::vector<std::string> aux = q.ListAuxiliaryStates();
  EXPECT_EQ(aux, (std::vector<std::string>{"bn0_moving_mean", "bn0_moving_var"}));
}

}  // namespace
}  // namespace weft
