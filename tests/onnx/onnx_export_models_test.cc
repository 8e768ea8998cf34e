// ONNX export of every real MXNet file in ../shared/testdata/mxnet-models
// that Weft runs: each exports at opsets 11, 13 and 17 and with a dynamic
// batch, passes onnx::checker and ONNX's strict shape inference (whose
// output shapes must agree with Weft's), and keeps what the file holds:
// one ONNX node of each kind per MXNet layer, fix_gamma as ones.
#include <gtest/gtest.h>

#include <fstream>

#include "onnx/onnx_export_test_util.h"
#include "util/test_util.h"
#include "weft/ndarray_io.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

std::string ModelPath(const std::string& file) {
  return test::SharedTestDataDir() + "/mxnet-models/" + file;
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

struct Case {
  const char* file;
  Shape data;
  // ONNX op type -> expected count in the exported graph.
  std::map<std::string, int> counts;
};

const Case kCases[] = {
    {"apache__save_000800.json",  // MXNet 0.8 format: FC, BN, relu, softmax
     Shape{5, 200},
     {{"Gemm", 3}, {"BatchNormalization", 1}, {"Relu", 2}, {"Softmax", 1}}},
    {"apache__test_mkldnn_test_mkldnn_model_model1.json",
     Shape{1, 3, 224, 224},
     {{"Conv", 16}, {"MaxPool", 5}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Softmax", 1}}},
    {"deepinsight__det1-symbol.json", Shape{1, 3, 12, 12}, {{"Conv", 5}, {"PRelu", 3}}},
    {"deepinsight__det4-symbol.json",
     Shape{1, 15, 24, 24},
     {{"Split", 1}, {"Conv", 15}, {"PRelu", 21}, {"MaxPool", 10}, {"Concat", 1}, {"Gemm", 11}}},
    {"deepinsight__model-symbol.json",
     Shape{1, 3, 112, 112},
     {{"Conv", 27}, {"BatchNormalization", 29}, {"Sub", 1}, {"Mul", 1}, {"Gemm", 1}}},
    {"miaow1988__model-symbol.json",
     Shape{1, 3, 227, 227},
     {{"Conv", 26}, {"Concat", 8}, {"MaxPool", 3}, {"AveragePool", 1}, {"Identity", 1}}},
    {"pathak-ashutosh__resnet-50-symbol.json",
     Shape{1, 3, 224, 224},
     {{"Conv", 53}, {"BatchNormalization", 51}, {"Add", 16}, {"Gemm", 1}}},
};

void CheckFile(const Case& c, const std::map<std::string, NDArray>& args,
               const std::map<std::string, NDArray>& aux, const Symbol& sym) {
  for (int opset : {11, 13, 17}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    OnnxExportOptions o;
    o.opset = opset;
    o.input_shapes = {{"data", c.data}};
    test::Exported e = test::ExportChecked(sym, args, aux, o);
    for (const auto& [op, count] : c.counts)
      EXPECT_EQ(static_cast<int>(test::NodesOf(e.model, op).size()), count) << op;
    ASSERT_EQ(e.model.graph().input_size(), 1);  // data; labels dropped, weights initializers
    EXPECT_EQ(e.model.graph().input(0).name(), "data");
    EXPECT_EQ(e.model.opset_import(0).version(), opset);
    IndexedGraph g(sym.outputs);
    EXPECT_EQ(e.model.graph().output_size(), static_cast<int>(g.outputs().size()));
  }
  OnnxExportOptions dyn;
  dyn.dynamic_batch = true;
  dyn.input_shapes = {{"data", c.data}};
  test::Exported d = test::ExportChecked(sym, args, aux, dyn);
  EXPECT_EQ(d.model.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), "batch");
}

TEST(OnnxExportModels, EveryRealFileExportsAndChecks) {
  Runtime& rt = Runtime::Global();
  int checked = 0;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.file);
    if (!Exists(ModelPath(c.file))) continue;
    LoadedSymbol l = LoadJSONFile(ModelPath(c.file), rt.ops());
    std::map<std::string, NDArray> args, aux;
    test::RandomParams(l.symbol, {{"data", c.data}}, &args, &aux);
    CheckFile(c, args, aux, l.symbol);
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no shared model files";
  EXPECT_EQ(checked, 7);
}

// The one file with its real weights (MXNet 0.8-era .params): every
// parameter becomes an initializer holding the file's values.
TEST(OnnxExportModels, Det1WithItsParamsKeepsTheWeights) {
  const std::string sym_path = ModelPath("deepinsight__det1-symbol.json");
  const std::string params_path = ModelPath("deepinsight__det1-0001.params");
  if (!Exists(sym_path) || !Exists(params_path)) GTEST_SKIP() << "no det1 files";
  Runtime& rt = Runtime::Global();
  LoadedSymbol l = LoadJSONFile(sym_path, rt.ops());
  const std::vector<std::string> aux_names = l.symbol.ListAuxiliaryStates();
  ParamMaps p = SplitParams(LoadNDArraysFile(params_path, &rt), &aux_names);
  OnnxExportOptions o;
  o.input_shapes = {{"data", Shape{1, 3, 12, 12}}};
  test::Exported e = test::ExportChecked(l.symbol, p.args, p.aux, o);
  for (const auto& [name, a] : p.args) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(test::HasInit(e.model, name));
    const std::vector<double> want = test::Values(a);
    const std::vector<double> got = test::InitValues(e.model, name);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(static_cast<float>(want[i]), got[i]);
  }
  // det1's PReLU slopes (C,) are reshaped to (C, 1, 1) to broadcast on axis 1.
  EXPECT_EQ(test::NodesOf(e.model, "PRelu").size(), 3u);
  EXPECT_EQ(e.model.graph().output_size(), 2);
}

// model-symbol.json's BatchNorms have fix_gamma=True (MXNet's default): the
// exported scale is ones whatever the stored gamma, except the one layer
// with fix_gamma=False, which keeps its gamma.
TEST(OnnxExportModels, FixGammaBatchNormsScaleByOnes) {
  const std::string path = ModelPath("deepinsight__model-symbol.json");
  if (!Exists(path)) GTEST_SKIP() << "no model-symbol.json";
  LoadedSymbol l = LoadJSONFile(path, Runtime::Global().ops());
  std::map<std::string, NDArray> args, aux;
  test::RandomParams(l.symbol, {{"data", Shape{1, 3, 112, 112}}}, &args, &aux);
  OnnxExportOptions o;
  o.input_shapes = {{"data", Shape{1, 3, 112, 112}}};
  test::Exported e = test::ExportChecked(l.symbol, args, aux, o);
  int ones = 0, kept = 0;
  for (const onnx::NodeProto* bn : test::NodesOf(e.model, "BatchNormalization")) {
    const std::string& scale = bn->input(1);
    const std::vector<double> v = test::InitValues(e.model, scale);
    if (args.count(scale)) {
      ++kept;
      EXPECT_EQ(v, test::Values(args.at(scale)));
    } else {
      ++ones;
      for (double x : v) ASSERT_EQ(x, 1.0) << scale;
    }
  }
  EXPECT_EQ(ones, 28);
  EXPECT_EQ(kept, 1);
}

}  // namespace
}  // namespace weft
