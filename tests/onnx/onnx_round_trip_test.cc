// MXNet -> ONNX -> Weft: every real MXNet file in
// ../shared/testdata/mxnet-models that Weft runs, with random parameters
// (det1 also with its real ones), exported at opset 13, imported back and
// run by a predictor, gives the original's outputs on the same random input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "onnx/onnx_export_test_util.h"
#include "util/test_util.h"
#include "weft/ndarray_io.h"
#include "weft/onnx_import.h"
#include "weft/predictor.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

struct RealFile {
  const char* file;
  Shape data;
};

const RealFile kFiles[] = {
    {"apache__save_000800.json", Shape{5, 200}},
    {"apache__test_mkldnn_test_mkldnn_model_model1.json", Shape{1, 3, 224, 224}},
    {"deepinsight__det1-symbol.json", Shape{1, 3, 12, 12}},
    {"deepinsight__det4-symbol.json", Shape{1, 15, 24, 24}},
    {"deepinsight__model-symbol.json", Shape{1, 3, 112, 112}},
    {"miaow1988__model-symbol.json", Shape{1, 3, 227, 227}},
    {"pathak-ashutosh__resnet-50-symbol.json", Shape{1, 3, 224, 224}},
};

// The outputs of `sym` with `params` on `input` (a predictor: inference).
std::vector<std::vector<float>> Run(const Symbol& sym, const ParamMaps& params,
                                    const std::vector<float>& input, const Shape& shape) {
  Runtime* rt = &Runtime::Global();
  auto pred = Predictor::Create(rt, sym, params, {{"data", shape}}, Context::CPU());
  const std::vector<Shape> out_shapes = pred->OutputShapes({shape});
  std::vector<std::vector<float>> out(out_shapes.size());
  std::vector<HostOutput> host_out;
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].resize(static_cast<size_t>(out_shapes[k].Size()));
    host_out.emplace_back(out[k].data(), out[k].size() * sizeof(float));
  }
  pred->Predict({HostInput(input.data(), input.size() * sizeof(float), shape)}, host_out);
  return out;
}

// |imported - original| <= 1e-5 * max|original| for every output.
void ExpectSameOutputs(const std::vector<std::vector<float>>& got,
                       const std::vector<std::vector<float>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got[k].size(), want[k].size()) << "output " << k;
    double scale = 0, worst = 0;
    for (float v : want[k]) scale = std::max(scale, std::fabs(double(v)));
    for (size_t i = 0; i < want[k].size(); ++i)
      worst = std::max(worst, std::fabs(double(got[k][i]) - want[k][i]));
    EXPECT_LE(worst, 1e-5 * std::max(scale, 1e-30))
        << "output " << k << " (max |x| " << scale << ")";
  }
}

void RoundTrip(const Symbol& sym, const std::map<std::string, NDArray>& args,
               const std::map<std::string, NDArray>& aux, const Shape& data) {
  OnnxExportOptions o;
  o.opset = 13;
  o.input_shapes = {{"data", data}};
  const test::Exported e = test::ExportChecked(sym, args, aux, o);
  const std::string bytes = e.model.SerializeAsString();
  const OnnxModel m = ImportOnnx(bytes.data(), bytes.size(), "<exported>", "", &Runtime::Global());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> input(static_cast<size_t>(data.Size()));
  for (float& v : input) v = u(rng);
  ExpectSameOutputs(Run(m.symbol, ParamMaps{m.args, m.aux}, input, data),
                    Run(sym, ParamMaps{args, aux}, input, data));
}

// Attention written with _npi_einsum (per-head projections, scores, the
// weighted values, an implicit-mode output projection) exported as Einsum
// and imported back.
TEST(OnnxRoundTrip, EinsumAttention) {
  const OpRegistry& reg = Runtime::Global().ops();
  auto einsum = [&](const std::vector<Symbol>& in, const std::string& sub) {
    return Symbol::Apply(reg, "_npi_einsum", in,
                         {{"subscripts", sub}, {"num_args", std::to_string(in.size())}});
  };
  Symbol x = Symbol::CreateVariable("data"), w = Symbol::CreateVariable("w"),
         wo = Symbol::CreateVariable("wo");
  Symbol q = einsum({x, w}, "bsd,hde->bhse");
  Symbol att = Symbol::Apply(reg, "softmax", {einsum({q, q}, "bhqe,bhke->bhqk")}, {});
  Symbol out = einsum({einsum({att, q}, "bhqk,bhke->bhqe"), wo}, "bhse,hed");
  std::map<std::string, NDArray> args = {
      {"w", test::RandomArray({2, 8, 4}, DType::kFloat32, -0.5, 0.5, 1)},
      {"wo", test::RandomArray({2, 4, 8}, DType::kFloat32, -0.5, 0.5, 2)}};
  RoundTrip(out, args, {}, Shape{2, 5, 8});
}

TEST(OnnxRoundTrip, EveryRealFileEqualsTheOriginal) {
  Runtime& rt = Runtime::Global();
  int checked = 0;
  for (const RealFile& f : kFiles) {
    SCOPED_TRACE(f.file);
    const std::string path = test::SharedTestDataDir() + "/mxnet-models/" + f.file;
    if (!std::filesystem::exists(path)) continue;
    const LoadedSymbol l = LoadJSONFile(path, rt.ops());
    std::map<std::string, NDArray> args, aux;
    test::RandomParams(l.symbol, {{"data", f.data}}, &args, &aux);
    RoundTrip(l.symbol, args, aux, f.data);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no shared model files";
  EXPECT_EQ(checked, 7);
}

}  // namespace
}  // namespace weft
