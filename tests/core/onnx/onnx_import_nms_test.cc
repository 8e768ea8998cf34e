// ONNX NonMaxSuppression: the _onnx_NonMaxSuppression operator on the ONNX
// specification's own cases (onnx/backend/test/case/node/nonmaxsuppression.py:
// inputs and expected selections as published there), its data-dependent
// output shape (weft/dynamic_shape.h: imperative calls, a CachedOp and a
// Predictor run it, a bound executor refuses it), and a torchvision
// detection head imported and run through a CachedOp against PyTorch's
// stored outputs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/onnx/nms_head_util.h"
#include "util/test_util.h"
#include "weft/cached_op.h"
#include "weft/executor.h"
#include "weft/imperative.h"
#include "weft/npy.h"
#include "weft/onnx_import.h"
#include "weft/predictor.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using Rows = std::vector<std::vector<double>>;

const std::vector<double> kBoxes = {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                                    0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101};
const std::vector<double> kScores = {0.9, 0.75, 0.6, 0.95, 0.5, 0.3};

// The selected rows of NMS over boxes (B, N, 4) and scores (B, C, N).
Rows Select(const std::vector<double>& boxes, const std::vector<double>& scores, int64_t batches,
            int64_t classes, const StringMap& params) {
  const int64_t n = static_cast<int64_t>(boxes.size()) / 4 / batches;
  const std::vector<NDArray> out = Invoke(
      &Runtime::Global(), "_onnx_NonMaxSuppression",
      {test::Array({batches, n, 4}, boxes), test::Array({batches, classes, n}, scores)}, params);
  EXPECT_EQ(out[0].dtype(), DType::kInt64);
  EXPECT_EQ(out[0].shape().ndim(), 2);
  const std::vector<double> v = test::Values(out[0]);
  Rows rows;
  for (size_t i = 0; i + 2 < v.size(); i += 3) rows.push_back({v[i], v[i + 1], v[i + 2]});
  return rows;
}

StringMap Params(int64_t max_out, double iou, const char* score = nullptr, int center = 0) {
  StringMap p{{"max_output_boxes_per_class", std::to_string(max_out)},
              {"iou_threshold", std::to_string(iou)},
              {"center_point_box", std::to_string(center)}};
  if (score) p["score_threshold"] = score, p["use_score_threshold"] = "True";
  return p;
}

std::vector<double> Twice(const std::vector<double>& v) {
  std::vector<double> r = v;
  r.insert(r.end(), v.begin(), v.end());
  return r;
}

TEST(OnnxNms, SpecificationCases) {
  const Rows three = {{0, 0, 3}, {0, 0, 0}, {0, 0, 5}};
  EXPECT_EQ(Select(kBoxes, kScores, 1, 1, Params(3, 0.5, "0.0")), three);  // suppress_by_IOU
  const std::vector<double> centers = {0.5, 0.5,  1, 1, 0.5, 0.6,  1, 1, 0.5, 0.4,   1, 1,
                                       0.5, 10.5, 1, 1, 0.5, 10.6, 1, 1, 0.5, 100.5, 1, 1};
  EXPECT_EQ(Select(centers, kScores, 1, 1, Params(3, 0.5, "0.0", 1)), three);
  const std::vector<double> flipped = {1, 1,  0, 0,  0, 0.1,  1, 1.1,  0, 0.9, 1, -0.1,
                                       0, 10, 1, 11, 1, 10.1, 0, 11.1, 1, 101, 0, 100};
  EXPECT_EQ(Select(flipped, kScores, 1, 1, Params(3, 0.5, "0.0")), three);
  std::vector<double> same, same_scores(10, 0.9);
  for (int i = 0; i < 10; ++i) same.insert(same.end(), {0, 0, 1, 1});
  EXPECT_EQ(Select(same, same_scores, 1, 1, Params(3, 0.5, "0.0")), (Rows{{0, 0, 0}}));
  const Rows two = {{0, 0, 3}, {0, 0, 0}};
  EXPECT_EQ(Select(kBoxes, kScores, 1, 1, Params(2, 0.5, "0.0")), two);  // limit_output_size
  EXPECT_EQ(Select({0, 0, 1, 1}, {0.9}, 1, 1, Params(3, 0.5, "0.0")), (Rows{{0, 0, 0}}));
  EXPECT_EQ(Select(kBoxes, kScores, 1, 1, Params(3, 0.5, "0.4")), two);  // and scores
  EXPECT_EQ(Select(Twice(kBoxes), Twice(kScores), 2, 1, Params(2, 0.5, "0.0")),
            (Rows{{0, 0, 3}, {0, 0, 0}, {1, 0, 3}, {1, 0, 0}}));
  EXPECT_EQ(Select(kBoxes, Twice(kScores), 1, 2, Params(2, 0.5, "0.0")),
            (Rows{{0, 0, 3}, {0, 0, 0}, {0, 1, 3}, {0, 1, 0}}));
  // No score threshold input: every box is a candidate; none wanted: no rows.
  EXPECT_EQ(Select(kBoxes, kScores, 1, 1, Params(6, 0.5)), (Rows{{0, 0, 3}, {0, 0, 0}, {0, 0, 5}}));
}

// A selection of no box is an output of no row, (0, 3), as ONNX Runtime
// gives it (weft/shape.h: a run's arrays may have a zero extent).
TEST(OnnxNms, NoSelectedBoxIsAnEmptyResult) {
  for (const StringMap& p : {Params(0, 0.5), Params(3, 0.5, "0.99")}) {
    const std::vector<NDArray> out =
        Invoke(&Runtime::Global(), "_onnx_NonMaxSuppression",
               {test::Array({1, 6, 4}, kBoxes), test::Array({1, 1, 6}, kScores)}, p);
    EXPECT_EQ(out[0].shape(), Shape({0, 3}));
    EXPECT_EQ(out[0].Size(), 0);
    EXPECT_TRUE(test::Values(out[0]).empty());
  }
  // No box to choose from: no row either.
  const std::vector<NDArray> none =
      Invoke(&Runtime::Global(), "_onnx_NonMaxSuppression",
             {test::Array({1, 0, 4}, {}), test::Array({1, 1, 0}, {})}, Params(3, 0.5));
  EXPECT_EQ(none[0].shape(), Shape({0, 3}));
}

TEST(OnnxNms, BadInputsAreClearErrors) {
  Runtime* rt = &Runtime::Global();
  try {
    Invoke(rt, "_onnx_NonMaxSuppression",
           {test::Array({1, 2, 3}, std::vector<double>(6, 0)), test::Array({1, 1, 2}, {1, 2})},
           Params(1, 0.5));
    ADD_FAILURE() << "boxes of 3 coordinates accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'boxes' must be (batches, boxes, 4)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Invoke(rt, "_onnx_NonMaxSuppression",
                      {test::Array({1, 6, 4}, kBoxes), test::Array({1, 1, 5}, {1, 2, 3, 4, 5})},
                      Params(1, 0.5)),
               Error);
  EXPECT_THROW(Select(kBoxes, kScores, 1, 1, Params(3, 1.5)), Error);  // IoU outside [0, 1]
}

// An executor plans every array before it runs: a graph with the dynamic
// operator is refused at bind, naming the node; a CachedOp runs it.
TEST(OnnxNms, ExecutorRefusesCachedOpRuns) {
  Runtime* rt = &Runtime::Global();
  const Symbol nms =
      Symbol::Apply(rt->ops(), "_onnx_NonMaxSuppression",
                    {Symbol::CreateVariable("boxes"), Symbol::CreateVariable("scores")},
                    Params(3, 0.5, "0.0"), "nms0");
  const std::map<std::string, NDArray> args = {{"boxes", test::Array({1, 6, 4}, kBoxes)},
                                               {"scores", test::Array({1, 1, 6}, kScores)}};
  try {
    Executor::BindByName(rt, nms, Context::CPU(), args, {}, {}, {});
    ADD_FAILURE() << "an executor bound a graph of data-dependent shape";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'nms0' (_onnx_NonMaxSuppression) has output "
                                         "shapes that depend on the input values"),
              std::string::npos)
        << e.what();
  }
  CachedOp op(rt, nms);
  const std::vector<NDArray> out = op.Forward({args.at("boxes"), args.at("scores")});
  EXPECT_EQ(out[0].shape(), Shape({3, 3}));
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

std::string DataPath(const std::string& file) { return test::TestDataDir() + "/onnx/" + file; }

// The CachedOp's inputs for model `m`: features and anchors for input0 and
// input1, the model's weights for the rest.
std::vector<NDArray> HeadInputs(const CachedOp& op, const OnnxModel& m, const NDArray& feats,
                                const NDArray& anchors) {
  std::vector<NDArray> in;
  for (const std::string& name : op.input_names())
    in.push_back(name == "input0" ? feats : name == "input1" ? anchors : m.args.at(name));
  return in;
}

// Expects `out` to be PyTorch's stored outputs of the head.
void ExpectStoredOutputs(const std::vector<NDArray>& out, Runtime* rt) {
  ASSERT_EQ(out.size(), 2u);
  for (size_t k = 0; k < out.size(); ++k) {
    const NDArray ref = LoadNpyFile(DataPath("nms_head.output" + std::to_string(k) + ".npy"), rt);
    ASSERT_EQ(out[k].shape(), ref.shape()) << "output " << k;
    const std::vector<double> w = test::Values(out[k]), t = test::Values(ref);
    for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(w[i], t[i], 1e-5) << k << ": " << i;
  }
}

// torchvision's nms in a small detection head (scripts/make_onnx_import_models.py):
// NonMaxSuppression with the Unsqueeze / Gather / Squeeze around it and the
// kept boxes and scores gathered; PyTorch's outputs stored once.
TEST(OnnxImportModels, NmsHeadThroughACachedOp) {
  Runtime* rt = &Runtime::Global();
  const OnnxModel m = ImportOnnxFile(DataPath("nms_head.onnx"), rt);
  CachedOp op(rt, m.symbol);
  const std::vector<NDArray> out =
      op.Forward(HeadInputs(op, m, LoadNpyFile(DataPath("nms_head.input0.npy"), rt),
                            LoadNpyFile(DataPath("nms_head.input1.npy"), rt)));
  ExpectStoredOutputs(out, rt);
  // Fewer boxes than the graph holds survive (the test's point).
  EXPECT_LT(out[0].shape()[0], 16);
  // A Predictor serves it too, node by node (predictor_dynamic_test.cc).
  std::vector<std::pair<std::string, Shape>> shapes;
  for (const auto& i : m.inputs)
    shapes.emplace_back(i.first, Shape{16, i.first == "input0" ? 8 : 4});
  EXPECT_TRUE(Predictor::Create(rt, m.symbol, ParamMaps{m.args, m.aux}, shapes, Context::CPU())
                  ->dynamic_shapes());
}

// The head with a score threshold (nms_head_util.h) on features whose every
// score is below it: NonMaxSuppression keeps no box, and the gathers and
// squeeze after it give outputs of no row, (0, 4) and (0,), as PyTorch and
// ONNX Runtime do. The same CachedOp then gives PyTorch's stored outputs
// for the stored input, and no row again: no state kept from a call.
TEST(OnnxImportModels, NmsHeadKeepingNoBoxGivesNoRows) {
  Runtime* rt = &Runtime::Global();
  const OnnxModel m = test::ImportThresholdedNmsHead(rt);
  CachedOp op(rt, m.symbol);
  const NDArray anchors = LoadNpyFile(DataPath("nms_head.input1.npy"), rt);
  const std::vector<float> f = test::FeaturesScoringNothing(m);
  const NDArray nothing = test::Array({16, 8}, std::vector<double>(f.begin(), f.end()));
  const NDArray feats = LoadNpyFile(DataPath("nms_head.input0.npy"), rt);
  for (int round = 0; round < 2; ++round) {
    const std::vector<NDArray> empty = op.Forward(HeadInputs(op, m, nothing, anchors));
    ASSERT_EQ(empty.size(), 2u);
    EXPECT_EQ(empty[0].shape(), Shape({0, 4}));
    EXPECT_EQ(empty[1].shape(), Shape({0}));
    EXPECT_EQ(empty[0].dtype(), DType::kFloat32);
    EXPECT_TRUE(test::Values(empty[0]).empty());
    ExpectStoredOutputs(op.Forward(HeadInputs(op, m, feats, anchors)), rt);
  }
}

}  // namespace
}  // namespace weft
