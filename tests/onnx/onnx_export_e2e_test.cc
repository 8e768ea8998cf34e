// ONNX export of the end-to-end models of tests/data/e2e (graphs that
// follow real MXNet exports node for node, with their weights): every one
// exports through onnx::checker and strict shape inference. Their outputs
// are compared with ONNX Runtime's in bench/bench_onnx_export.sh.
#include <gtest/gtest.h>

#include "onnx/onnx_export_test_util.h"
#include "util/test_util.h"
#include "weft/graph.h"
#include "weft/ndarray_io.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

struct Model {
  Symbol symbol;
  ParamMaps params;
};

Model Load(const std::string& symbol, const std::string& params) {
  Runtime& rt = Runtime::Global();
  const std::string dir = test::TestDataDir() + "/e2e/";
  Model m;
  m.symbol = LoadJSONFile(dir + symbol, rt.ops()).symbol;
  const std::vector<std::string> aux = m.symbol.ListAuxiliaryStates();
  m.params = SplitParams(LoadNDArraysFile(dir + params, &rt), &aux);
  return m;
}

struct Case {
  const char* symbol;
  const char* params;
  pass::ShapeMap inputs;
  // ONNX op type -> the MXNet operator each of whose nodes gives one.
  std::map<std::string, std::string> one_per;
};

int CountOp(const Symbol& s, const std::string& op) {
  IndexedGraph g(s.outputs);
  int n = 0;
  for (uint32_t i = 0; i < g.num_nodes(); ++i)
    n += !g.node(i).is_variable() && g.node(i).op()->name == op;
  return n;
}

TEST(OnnxExportE2E, ModelsWithAnOnnxFormExportAndCheck) {
  const Case cases[] = {
      {"retinaface_fpn/symbol.json",
       "retinaface_fpn/model.params",
       {{"data", Shape{1, 3, 44, 52}}},
       {{"Resize", "UpSampling"}, {"Slice", "Crop"}, {"Conv", "Convolution"}}},
      {"mobilefacenet/symbol.json",
       "mobilefacenet/model.params",
       {{"data", Shape{2, 3, 32, 32}}},
       {{"Max", "_maximum_scalar"}, {"Min", "_minimum_scalar"}, {"Gemm", "FullyConnected"}}},
      {"lightcnn/symbol.json",
       "lightcnn/model.params",
       {{"data", Shape{2, 1, 32, 32}}},
       {{"Split", "SliceChannel"}, {"Max", "_maximum"}}},
      {"lstm_lm/lstm_lm-symbol.json",
       "lstm_lm/lstm_lm-0000.params",
       {{"data", Shape{3, 5}}},
       {{"Gather", "Embedding"}}},
      {"lstm_lm/lstm_lm-gluon-symbol.json",
       "lstm_lm/lstm_lm-gluon-0000.params",
       {{"data0", Shape{5, 3}}, {"data1", Shape{2, 3, 12}}, {"data2", Shape{2, 3, 12}}},
       {{"Gather", "Embedding"}}},
      {"transformer/transformer-symbol.json",
       "transformer/transformer-0000.params",
       {{"data", Shape{2, 6, 16}}, {"valid_length", Shape{2}}},
       {}},
      {"gluoncv_ssd/symbol.json",
       "gluoncv_ssd/model.params",
       {{"data", Shape{1, 3, 12, 16}}},
       {{"NonMaxSuppression", "_contrib_box_nms"}, {"TopK", "_contrib_box_nms"}}},
      {"mxnet_ssd/symbol.json",
       "mxnet_ssd/model.params",
       {{"data", Shape{1, 3, 16, 24}}},
       {{"NonMaxSuppression", "_contrib_MultiBoxDetection"}}},
      {"transformer/transformer-interleaved-symbol.json",
       "transformer/transformer-interleaved-0000.params",
       {{"data", Shape{2, 6, 16}}, {"valid_length", Shape{2}}},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.symbol);
    Model m = Load(c.symbol, c.params);
    for (int opset : {11, 13, 17}) {
      SCOPED_TRACE(opset);
      OnnxExportOptions o;
      o.opset = opset;
      o.input_shapes = c.inputs;
      test::Exported e = test::ExportChecked(m.symbol, m.params.args, m.params.aux, o);
      for (const auto& [op, mx] : c.one_per) {
        const int want = CountOp(m.symbol, mx);
        EXPECT_GT(want, 0) << mx;
        EXPECT_EQ(static_cast<int>(test::NodesOf(e.model, op).size()), want) << op;
      }
      // Every LayerNorm is one ONNX node from opset 17, else two ReduceMeans.
      const int ln = CountOp(m.symbol, "LayerNorm");
      EXPECT_EQ(static_cast<int>(test::NodesOf(e.model, "LayerNormalization").size()),
                opset >= 17 ? ln : 0);
      EXPECT_EQ(static_cast<int>(test::NodesOf(e.model, "ReduceMean").size()),
                opset >= 17 ? 0 : 2 * ln);
      EXPECT_EQ(e.model.graph().input_size(), static_cast<int>(c.inputs.size()));
    }
  }
}

}  // namespace
}  // namespace weft
