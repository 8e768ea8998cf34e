// ONNX export of the detection outputs (_contrib_box_nms over any batch,
// _contrib_MultiBoxDetection): every configuration through onnx::checker
// and strict shape inference at opsets 11, 13 and 17, and the structure
// that carries MXNet's semantics (TopK windows, NonMaxSuppression's
// thresholds and class axis). Their outputs are compared with Weft's
// kernels in ONNX Runtime by bench/bench_onnx_export.sh (the detection row):
// libonnx has no runtime, and the importer has no NonMaxSuppression.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "onnx/onnx_export_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

Symbol Op(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
          const std::string& name) {
  return Symbol::Apply(Runtime::Global().ops(), op, in, p, name);
}

// box_nms's output (its second output, the record, has no ONNX form).
Symbol BoxNms(const Symbol& data, const StringMap& p) {
  return Op("_contrib_box_nms", {data}, p, "nms").GetOutput(0);
}

test::Exported Export(const Symbol& s, const pass::ShapeMap& shapes, int opset,
                      bool dynamic = false) {
  OnnxExportOptions o;
  o.opset = opset;
  o.input_shapes = shapes;
  o.dynamic_batch = dynamic;
  return test::ExportChecked(s, {}, {}, o);
}

// The first value of the initializer a node reads at input `i`.
double InputValue(const onnx::ModelProto& m, const onnx::NodeProto& n, int i) {
  const std::vector<double> v = test::InitValues(m, n.input(i));
  return v.empty() ? std::nan("") : v[0];
}

std::vector<int64_t> OutputDims(const onnx::ModelProto& m) {
  std::vector<int64_t> d;
  for (const auto& x : m.graph().output(0).type().tensor_type().shape().dim())
    d.push_back(x.dim_value());
  return d;
}

struct NmsCase {
  Shape shape;
  StringMap params;
  int64_t window;  // the candidates NonMaxSuppression sees (topk or N)
};

TEST(OnnxExportDetect, BoxNmsOverBatchesExportsAndChecks) {
  const NmsCase cases[] = {
      {Shape{3, 20, 6}, {{"id_index", "0"}, {"topk", "8"}, {"valid_thresh", "0.2"}}, 8},
      {Shape{2, 2, 16, 6},
       {{"id_index", "0"}, {"force_suppress", "True"}, {"out_format", "center"}},
       16},
      {Shape{3, 20, 5},
       {{"score_index", "0"},
        {"coord_start", "1"},
        {"in_format", "center"},
        {"out_format", "center"},
        {"overlap_thresh", "0.3"}},
       20},
      {Shape{12, 7},
       {{"id_index", "5"}, {"score_index", "4"}, {"coord_start", "0"}, {"topk", "30"}},
       12},
      {Shape{1, 20, 6}, {{"id_index", "0"}, {"background_id", "1"}, {"overlap_thresh", "2"}}, 20},
  };
  for (const NmsCase& c : cases) {
    SCOPED_TRACE(c.shape.ToString());
    Symbol s = BoxNms(Var("data"), c.params);
    for (int opset : {11, 13, 17}) {
      SCOPED_TRACE(opset);
      test::Exported e = Export(s, {{"data", c.shape}}, opset);
      std::vector<int64_t> dims;
      for (int i = 0; i < c.shape.ndim(); ++i) dims.push_back(c.shape[i]);
      EXPECT_EQ(OutputDims(e.model), dims);
      auto nms = test::NodesOf(e.model, "NonMaxSuppression");
      auto top = test::NodesOf(e.model, "TopK");
      ASSERT_EQ(nms.size(), 1u);
      ASSERT_EQ(top.size(), 1u);
      EXPECT_EQ(InputValue(e.model, *top[0], 1), c.window);
      EXPECT_EQ(InputValue(e.model, *nms[0], 2), c.window);
      // The ranks are the scores: every candidate is above 0, the others -1.
      EXPECT_EQ(InputValue(e.model, *nms[0], 4), 0);
      const auto o = c.params.find("overlap_thresh");
      const double overlap = o == c.params.end() ? 0.5 : std::stod(o->second);
      EXPECT_FLOAT_EQ(InputValue(e.model, *nms[0], 3), std::min(overlap, 1.0));
      EXPECT_EQ(test::NodesOf(e.model, "ScatterND").size(), 2u);  // the kept mask, the rows
    }
  }
}

TEST(OnnxExportDetect, BoxNmsWithADynamicBatchWritesNoBatchExtent) {
  Symbol s = BoxNms(Var("data"), {{"id_index", "0"}, {"topk", "5"}});
  test::Exported e = Export(s, {{"data", Shape{1, 10, 6}}}, 13, true);
  EXPECT_EQ(e.model.graph().output(0).type().tensor_type().shape().dim(0).dim_param(), "batch");
  for (const auto* r : test::NodesOf(e.model, "Reshape")) {  // a constant target, or Shape(data)
    if (test::HasInit(e.model, r->input(1))) {
      EXPECT_EQ(test::InitValues(e.model, r->input(1))[0], -1) << r->name();
    }
  }
}

TEST(OnnxExportDetect, BoxNmsTopkZeroPassesTheDataThrough) {
  Symbol s = BoxNms(Var("data"), {{"topk", "0"}});
  test::Exported e = Export(s, {{"data", Shape{2, 6, 6}}}, 13);
  EXPECT_EQ(test::NodesOf(e.model, "Identity").size(), 1u);
  EXPECT_TRUE(test::NodesOf(e.model, "NonMaxSuppression").empty());
}

TEST(OnnxExportDetect, BoxNmsInFloat64SelectsInFloat64) {
  Symbol s = BoxNms(Op("Cast", {Var("data")}, {{"dtype", "float64"}}, "c"), {{"id_index", "0"}});
  test::Exported e = Export(s, {{"data", Shape{2, 9, 6}}}, 13);
  EXPECT_EQ(e.model.graph().output(0).type().tensor_type().elem_type(), onnx::TensorProto::DOUBLE);
  ASSERT_EQ(test::NodesOf(e.model, "NonMaxSuppression").size(), 1u);
}

TEST(OnnxExportDetect, BoxNmsRefusesANegativeOverlap) {
  Symbol s = BoxNms(Var("data"), {{"overlap_thresh", "-0.1"}});
  test::ExpectError(
      [&] {
        Export(s, {{"data", Shape{2, 6, 6}}}, 13);
      },
      StatusCode::kNotImplemented, {"node 'nms': overlap_thresh < 0"});
}

Symbol Detection(const StringMap& p) {
  return Op("_contrib_MultiBoxDetection", {Var("cls_prob"), Var("loc_pred"), Var("anchor")}, p,
            "det");
}

pass::ShapeMap DetectionShapes(int64_t b, int64_t c, int64_t a) {
  return {{"cls_prob", Shape{b, c, a}}, {"loc_pred", Shape{b, a * 4}}, {"anchor", Shape{1, a, 4}}};
}

TEST(OnnxExportDetect, MultiBoxDetectionExportsAndChecks) {
  struct Case {
    StringMap params;
    int nms, top_k;  // NonMaxSuppression and TopK nodes
    int64_t nms_classes;
  };
  const Case cases[] = {
      {{}, 1, 1, 3},                                      // nms_topk -1: one sort
      {{{"nms_topk", "5"}, {"clip", "False"}}, 1, 2, 3},  // the rest in anchor order
      {{{"force_suppress", "True"}, {"nms_topk", "40"}}, 1, 1, 1},
      {{{"nms_threshold", "0"}}, 0, 1, 0},  // no sort, no suppression
      {{{"nms_threshold", "1.5"}, {"threshold", "0.3"}}, 0, 1, 0},
  };
  for (const Case& c : cases) {
    for (int opset : {11, 13, 17}) {
      SCOPED_TRACE(opset);
      test::Exported e = Export(Detection(c.params), DetectionShapes(3, 4, 12), opset);
      EXPECT_EQ(OutputDims(e.model), (std::vector<int64_t>{3, 12, 6}));
      auto nms = test::NodesOf(e.model, "NonMaxSuppression");
      ASSERT_EQ(static_cast<int>(nms.size()), c.nms);
      EXPECT_EQ(static_cast<int>(test::NodesOf(e.model, "TopK").size()), c.top_k);
      if (nms.empty()) continue;
      // MXNet suppresses at IoU >= t: ONNX's strict threshold is the float below t.
      EXPECT_EQ(static_cast<float>(InputValue(e.model, *nms[0], 3)),
                std::nextafter(0.5f, -std::numeric_limits<float>::infinity()));
      // Per class: one score row per non-background class.
      EXPECT_EQ(test::NodesOf(e.model, "Equal").size(), c.nms_classes > 1 ? 1u : 0u);
    }
  }
}

TEST(OnnxExportDetect, MultiBoxDetectionWithADynamicBatch) {
  test::Exported e = Export(Detection({{"nms_topk", "4"}}), DetectionShapes(1, 3, 10), 13, true);
  EXPECT_EQ(e.model.graph().output(0).type().tensor_type().shape().dim(0).dim_param(), "batch");
  EXPECT_EQ(test::NodesOf(e.model, "NonMaxSuppression").size(), 1u);
}

TEST(OnnxExportDetect, MultiBoxDetectionNeedsAForegroundClass) {
  test::ExpectError([&] { Export(Detection({}), DetectionShapes(2, 1, 8), 13); },
                    StatusCode::kNotImplemented, {"node 'det': a single class"});
}

}  // namespace
}  // namespace weft
