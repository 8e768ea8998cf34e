// GluonCV's int8 model zoo symbols (tests/data/gluoncv_int8, SOURCES.md):
// resnet50_v1_int8 and mobilenet1.0_int8 load, infer shapes at 224x224,
// run with seeded float32 parameters (the int8 convolutions quantize them per
// output channel) to finite outputs, and saved and loaded again run to
// identical outputs. With the calibration ranges measured on the float32
// graph the file quantizes (quantize/dequantize dropped, quantized=false),
// the int8 graph's logits follow the float32 ones within 2 % of their spread (MXNet's naive
// calibration: the min/max of each fused layer's output on the inputs run).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "core/json/json_test_util.h"
#include "core/pass/inference_test_util.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

const OpRegistry& Reg() { return Runtime::Global().ops(); }

std::string ReadModel(const std::string& file) {
  std::string text;
  EXPECT_TRUE(test::ReadTextFile(test::TestDataDir() + "/gluoncv_int8/" + file, &text)) << file;
  return text;
}

Symbol LoadModel(const std::string& file) { return LoadJSON(ReadModel(file), Reg()).symbol; }

// The float32 graph a quantized file was made from: quantize/dequantize as
// identity, quantized pooling as Pooling, the int8 convolutions float32
// again (their range inputs dropped).
nlohmann::json FloatGraph(nlohmann::json j) {
  for (auto& n : j["nodes"]) {
    const std::string op = n["op"];
    auto& in = n["inputs"];
    if (op == "_contrib_quantize_v2" || op == "_contrib_dequantize") {
      n["op"] = "identity";
      n.erase("attrs");
      in = nlohmann::json::array({in[0]});
    } else if (op == "_contrib_quantized_pooling") {
      n["op"] = "Pooling";
      in = nlohmann::json::array({in[0]});
    } else if (op == "_sg_mkldnn_conv") {
      auto& a = n["attrs"];
      const size_t extra = a.value("with_sum", "false") == "true" ? 4 : 2;
      in.erase(in.end() - static_cast<std::ptrdiff_t>(extra), in.end());
      a.erase("min_calib_range");
      a.erase("max_calib_range");
      a["quantized"] = "false";
    }
  }
  j.erase("node_row_ptr");
  return j;
}

// The largest |logit| difference relative to the float32 logits' spread.
double RelativeError(const std::vector<double>& a, const std::vector<double>& b) {
  double err = 0, lo = b[0], hi = b[0];
  for (size_t i = 0; i < a.size(); ++i) {
    err = std::max(err, std::abs(a[i] - b[i]));
    lo = std::min(lo, b[i]);
    hi = std::max(hi, b[i]);
  }
  return err / (hi - lo);
}

class GluonCVInt8 : public ::testing::TestWithParam<const char*> {};

TEST_P(GluonCVInt8, LoadsInfersRunsAndRoundTrips) {
  const Symbol s = LoadModel(GetParam());
  {
    auto full = test::BindInference(s, {{"data", Shape{1, 3, 224, 224}}}, true);
    ASSERT_EQ(full->outputs().size(), 1u);
    EXPECT_EQ(full->outputs()[0].shape(), Shape({1, 1000}));
  }
  const pass::ShapeMap small = {{"data", Shape{1, 3, 64, 64}}};
  auto ex = test::BindInference(s, small, true);
  test::FillRandom(ex.get(), 11);
  ex->Forward(false);
  const std::vector<double> out = test::Values(ex->outputs()[0]);
  ASSERT_EQ(out.size(), 1000u);
  double lo = out[0], hi = out[0];
  for (double v : out) {
    ASSERT_TRUE(std::isfinite(v));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GT(hi - lo, 1e-3) << "the logits are not all equal";

  const Symbol again = LoadJSON(SaveJSON(s), Reg()).symbol;
  auto ex2 = test::BindInference(again, small, true);
  test::CopyArrays(*ex, ex2.get());
  ex2->Forward(false);
  EXPECT_EQ(test::Values(ex2->outputs()[0]), out);
}

TEST_P(GluonCVInt8, CalibratedOnTheFloatGraphFollowsIt) {
  const nlohmann::json q = nlohmann::json::parse(ReadModel(GetParam()));
  const Symbol f = LoadJSON(FloatGraph(q).dump(), Reg()).symbol;
  // The float32 run, with every fused layer's output.
  std::vector<Symbol> heads = {f};
  std::vector<std::string> layers;
  const Symbol internals = f.GetInternals();
  const std::vector<std::string> names = internals.ListOutputs();
  for (const auto& n : q["nodes"]) {
    if (n["op"] != "_sg_mkldnn_conv") continue;
    const std::string name = n["name"];
    const auto it = std::find(names.begin(), names.end(), name + "_output");
    ASSERT_NE(it, names.end()) << name;
    heads.push_back(internals.GetOutput(static_cast<uint32_t>(it - names.begin())));
    layers.push_back(name);
  }
  const pass::ShapeMap shapes = {{"data", Shape{2, 3, 64, 64}}};
  auto ref = test::BindInference(Symbol::Group(heads), shapes, false);
  test::FillRandom(ref.get(), 23);
  ref->Forward(false);
  // Naive calibration: each layer's observed range.
  nlohmann::json calibrated = q;
  for (auto& n : calibrated["nodes"]) {
    if (n["op"] != "_sg_mkldnn_conv") continue;
    const size_t k = static_cast<size_t>(
        std::find(layers.begin(), layers.end(), n["name"].get<std::string>()) - layers.begin());
    const std::vector<double> v = test::Values(ref->outputs()[k + 1]);
    const double lo = *std::min_element(v.begin(), v.end());
    const double hi = *std::max_element(v.begin(), v.end());
    n["attrs"]["min_calib_range"] = std::to_string(lo);
    n["attrs"]["max_calib_range"] = std::to_string(hi);
  }
  auto ex = test::BindInference(LoadJSON(calibrated.dump(), Reg()).symbol, shapes, true);
  auto copy = [](const std::vector<std::string>& fn, const std::vector<NDArray>& fa,
                 const std::vector<std::string>& tn, const std::vector<NDArray>& ta) {
    for (size_t i = 0; i < tn.size(); ++i) {
      const auto it = std::find(fn.begin(), fn.end(), tn[i]);
      ASSERT_NE(it, fn.end()) << tn[i];
      NDArray dst = ta[i];
      fa[static_cast<size_t>(it - fn.begin())].CopyTo(&dst);
    }
  };
  copy(ref->arg_names(), ref->arg_arrays(), ex->arg_names(), ex->arg_arrays());
  copy(ref->aux_names(), ref->aux_arrays(), ex->aux_names(), ex->aux_arrays());
  ex->Forward(false);
  const std::vector<double> got = test::Values(ex->outputs()[0]);
  const std::vector<double> want = test::Values(ref->outputs()[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t b = 0; b < 2; ++b) {
    const std::vector<double> g(got.begin() + b * 1000, got.begin() + (b + 1) * 1000);
    const std::vector<double> w(want.begin() + b * 1000, want.begin() + (b + 1) * 1000);
    const double err = RelativeError(g, w);
    EXPECT_LT(err, 0.02) << "sample " << b;  // measured: 0.4 % (ResNet), 0.14 % (MobileNet)
    EXPECT_EQ(std::max_element(g.begin(), g.end()) - g.begin(),
              std::max_element(w.begin(), w.end()) - w.begin())
        << "sample " << b << ", logits off by " << err << " of their spread";
  }
}

INSTANTIATE_TEST_SUITE_P(Files, GluonCVInt8,
                         ::testing::Values("resnet50_v1_int8-symbol.json",
                                           "mobilenet1.0_int8-symbol.json"));

}  // namespace
}  // namespace weft
