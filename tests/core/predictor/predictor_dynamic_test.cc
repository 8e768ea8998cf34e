// The Predictor on a model of data-dependent output shape (weft/dynamic_shape.h):
// the torchvision detection head of onnx_import_nms_test.cc (NonMaxSuppression
// between a dense head and the gathers of the kept boxes) run node by node
// against PyTorch's stored outputs, each call's rows reported, the outputs'
// upper bounds, concurrent callers whose inputs keep different numbers of
// boxes, calls that keep no box (outputs of no row, alone and among others
// on several threads), an NMS on weights alone (not frozen), and what is
// refused: dynamic batching, monitors, buffers of the wrong size without
// the shape.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/onnx/nms_head_util.h"
#include "core/predictor/predictor_test_util.h"
#include "weft/cached_op.h"
#include "weft/npy.h"
#include "weft/onnx_import.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::predictor::Floats;
using test::predictor::In;
using test::predictor::Out;

std::string DataPath(const std::string& file) { return test::TestDataDir() + "/onnx/" + file; }

std::vector<float> Npy(const std::string& file) {
  return Floats(LoadNpyFile(DataPath(file), &Runtime::Global()));
}

// Anchors 100 apart: no two boxes overlap, NMS keeps all 16.
std::vector<float> SpreadAnchors() {
  std::vector<float> a;
  for (int i = 0; i < 16; ++i) a.insert(a.end(), {100.f * i, 0.f, 100.f * i + 4, 4.f});
  return a;
}

struct NmsHead {
  // The head as exported, or with a score threshold (nms_head_util.h).
  explicit NmsHead(bool thresholded = false)
      : m(thresholded ? test::ImportThresholdedNmsHead(rt)
                      : ImportOnnxFile(DataPath("nms_head.onnx"), rt)) {}
  Runtime* rt = &Runtime::Global();
  OnnxModel m;
  std::vector<float> feats = Npy("nms_head.input0.npy");    // (16, 8)
  std::vector<float> anchors = Npy("nms_head.input1.npy");  // (16, 4)

  std::unique_ptr<Predictor> Make(const PredictorOptions& o = {}) const {
    return Predictor::Create(rt, m.symbol, ParamMaps{m.args, m.aux},
                             {{"input0", Shape{16, 8}}, {"input1", Shape{16, 4}}}, Context::CPU(),
                             o);
  }
  // The CachedOp's outputs (the path onnx_import_nms_test.cc checks against PyTorch).
  std::vector<std::vector<float>> Reference(const std::vector<float>& a) const {
    CachedOp op(rt, m.symbol);
    std::vector<NDArray> in;
    for (const std::string& name : op.input_names()) {
      if (name == "input0") {
        in.push_back(test::Array({16, 8}, std::vector<double>(feats.begin(), feats.end())));
      } else if (name == "input1") {
        in.push_back(test::Array({16, 4}, std::vector<double>(a.begin(), a.end())));
      } else {
        in.push_back(m.args.at(name));
      }
    }
    std::vector<std::vector<float>> out;
    for (const NDArray& o : op.Forward(in)) out.push_back(Floats(o));
    return out;
  }
};

// One call with buffers of the outputs' upper bounds (boxes (16, 4), scores
// (16)); the outputs cut to the rows the call reports.
struct NmsRun {
  std::vector<Shape> shapes{2};
  std::vector<std::vector<float>> out{std::vector<float>(64, -7.f), std::vector<float>(16, -7.f)};
  NmsRun(Predictor* p, const std::vector<float>& feats, const std::vector<float>& anchors) {
    std::vector<HostOutput> outs = {Out(&out[0]), Out(&out[1])};
    for (size_t j = 0; j < 2; ++j) outs[j].shape = &shapes[j];
    p->Predict({In(feats, {16, 8}), In(anchors, {16, 4})}, outs);
    for (size_t j = 0; j < 2; ++j) out[j].resize(static_cast<size_t>(shapes[j].Size()));
  }
};

// Runs `call(alternate)` 12 times on each of 4 threads (`alternate` flips
// between consecutive calls and between threads); expects no call to throw
// or to return false (a mismatch), and no slot left in use.
void CallFromFourThreads(Predictor* p, const std::function<bool(bool alternate)>& call) {
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 12; ++i) {
        try {
          if (!call((t + i) % 2 == 0)) ++mismatches;
        } catch (const Error&) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(p->stats().in_use, 0u);
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(PredictorDynamic, NmsHeadEqualsPyTorchAndReportsTheRows) {
  NmsHead h;
  auto p = h.Make();
  EXPECT_TRUE(p->dynamic_shapes());
  EXPECT_EQ(p->output_dtypes(), (std::vector<DType>{DType::kFloat32, DType::kFloat32}));
  EXPECT_EQ(p->OutputShapes({{16, 8}, {16, 4}}), (std::vector<Shape>{{16, 4}, {16}}));
  const std::vector<float> boxes = Npy("nms_head.output0.npy"),
                           scores = Npy("nms_head.output1.npy");
  const int64_t rows = static_cast<int64_t>(scores.size());
  ASSERT_LT(rows, 16);  // NMS dropped some: the rows differ from the bound
  const NmsRun r(p.get(), h.feats, h.anchors);
  EXPECT_EQ(r.shapes[0], Shape({rows, 4}));
  EXPECT_EQ(r.shapes[1], Shape({rows}));
  ExpectNear(r.out[0], boxes);
  ExpectNear(r.out[1], scores);

  // Buffers of exactly this call's sizes need no shape.
  std::vector<float> b(boxes.size()), s(scores.size());
  p->Predict({In(h.feats, {16, 8}), In(h.anchors, {16, 4})}, {Out(&b), Out(&s)});
  ExpectNear(b, boxes);
  ExpectNear(s, scores);
  // The bound's buffers without the shape would hide the row count: refused.
  std::vector<float> big(64), big_s(16);
  try {
    p->Predict({In(h.feats, {16, 8}), In(h.anchors, {16, 4})}, {Out(&big), Out(&big_s)});
    ADD_FAILURE() << "a buffer larger than the output taken without its shape";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    for (const char* part : {"output '", "needs a buffer of", "depend on the input values",
                             "_onnx_NonMaxSuppression", "HostOutput::shape"})
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
  // With the shape, a buffer smaller than this call's rows is named.
  std::vector<float> small(4);
  Shape got;
  HostOutput tiny = Out(&small);
  tiny.shape = &got;
  try {
    p->Predict({In(h.feats, {16, 8}), In(h.anchors, {16, 4})}, {tiny, Out(&s)});
    ADD_FAILURE() << "a buffer of one box took " << rows << " boxes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a buffer of at least"), std::string::npos)
        << e.what();
  }

  const PredictorStats st = p->stats();
  EXPECT_GE(st.executors, 1u);  // node-by-node slots
  EXPECT_EQ(st.plans, 0u);
  EXPECT_EQ(st.activation_bytes, 0u);
  EXPECT_EQ(st.in_use, 0u);
  EXPECT_EQ(st.inputs_lent, 0u);
  EXPECT_GT(st.inputs_copied, 0u);
  p->Close();
  EXPECT_THROW(NmsRun(p.get(), h.feats, h.anchors), Error);
}

// Calls whose inputs keep 9 and 16 boxes, from several threads through two
// slots: each call gets its own rows, equal to the CachedOp's.
TEST(PredictorDynamic, ConcurrentCallersGetTheirOwnRows) {
  NmsHead h;
  const std::vector<float> spread = SpreadAnchors();
  const std::vector<std::vector<float>> want_near = h.Reference(h.anchors),
                                        want_spread = h.Reference(spread);
  ASSERT_EQ(want_spread[1].size(), 16u);
  ASSERT_LT(want_near[1].size(), 16u);
  PredictorOptions o;
  o.max_executors = 2;
  auto p = h.Make(o);
  CallFromFourThreads(p.get(), [&](bool near) {
    const NmsRun r(p.get(), h.feats, near ? h.anchors : spread);
    const auto& want = near ? want_near : want_spread;
    for (size_t j = 0; j < 2; ++j)
      if (r.out[j].size() != want[j].size() ||
          test::predictor::MaxAbsDiff(r.out[j], want[j]) > 1e-6)
        return false;
    return true;
  });
  const PredictorStats st = p->stats();
  EXPECT_LE(st.executors, 2u);
}

// The thresholded head on features no box of which scores above the
// threshold: the shaped call reports outputs of no row, (0, 4) and (0,),
// and copies nothing; buffers of this call's size (none) need no shape. The
// stored input then gives PyTorch's stored outputs on the same predictor.
TEST(PredictorDynamic, NoBoxKeptGivesZeroRows) {
  NmsHead h(true);
  auto p = h.Make();
  const std::vector<float> nothing = test::FeaturesScoringNothing(h.m);
  const NmsRun r(p.get(), nothing, h.anchors);
  EXPECT_EQ(r.shapes[0], Shape({0, 4}));
  EXPECT_EQ(r.shapes[1], Shape({0}));
  EXPECT_TRUE(r.out[0].empty() && r.out[1].empty());
  std::vector<float> b(64, -7.f), s(16, -7.f);
  std::vector<Shape> shapes(2);
  std::vector<HostOutput> outs = {Out(&b), Out(&s)};
  for (size_t j = 0; j < 2; ++j) outs[j].shape = &shapes[j];
  p->Predict({In(nothing, {16, 8}), In(h.anchors, {16, 4})}, outs);
  EXPECT_EQ(shapes[0], Shape({0, 4}));
  EXPECT_EQ(b, std::vector<float>(64, -7.f));  // nothing copied
  EXPECT_EQ(s, std::vector<float>(16, -7.f));
  std::vector<float> none_b, none_s;
  p->Predict({In(nothing, {16, 8}), In(h.anchors, {16, 4})}, {Out(&none_b), Out(&none_s)});
  const NmsRun kept(p.get(), h.feats, h.anchors);
  ExpectNear(kept.out[0], Npy("nms_head.output0.npy"));
  ExpectNear(kept.out[1], Npy("nms_head.output1.npy"));
}

// Calls keeping no box and calls keeping some, alternating on several
// threads through two slots: each gets its own rows, none another's.
TEST(PredictorDynamic, ConcurrentEmptyAndNonEmptyCalls) {
  NmsHead h(true);
  const std::vector<float> nothing = test::FeaturesScoringNothing(h.m);
  const std::vector<float> want_b = Npy("nms_head.output0.npy"),
                           want_s = Npy("nms_head.output1.npy");
  PredictorOptions o;
  o.max_executors = 2;
  auto p = h.Make(o);
  CallFromFourThreads(p.get(), [&](bool empty) {
    const NmsRun r(p.get(), empty ? nothing : h.feats, h.anchors);
    if (empty) return r.out[0].empty() && r.out[1].empty() && r.shapes[0] == Shape({0, 4});
    return r.out[0].size() == want_b.size() && r.out[1].size() == want_s.size() &&
           test::predictor::MaxAbsDiff(r.out[0], want_b) <= 1e-5 &&
           test::predictor::MaxAbsDiff(r.out[1], want_s) <= 1e-5;
  });
}

TEST(PredictorDynamic, BatchingAndMonitorsAreRefused) {
  NmsHead h;
  PredictorOptions o;
  o.max_batch = 4;
  try {
    h.Make(o);
    ADD_FAILURE() << "dynamic batching accepted for outputs of data-dependent rows";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot split outputs whose rows depend on the input"),
              std::string::npos)
        << e.what();
  }
  auto p = h.Make();
  try {
    p->SetMonitorCallback([](const std::string&, const NDArray&) {});
    ADD_FAILURE() << "a monitor set on a node-by-node model";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kNotImplemented);
    EXPECT_NE(std::string(e.what()).find("runs node by node"), std::string::npos) << e.what();
  }
  p->SetMonitorCallback(nullptr);  // removing none is fine
}

// NMS over weights alone is not frozen into a weight (no executor can
// compute it once): it runs with every call, next to an output of the input.
TEST(PredictorDynamic, NmsOnWeightsRunsWithEachCall) {
  Runtime* rt = &Runtime::Global();
  const Symbol nms = Symbol::Apply(
      rt->ops(), "_onnx_NonMaxSuppression",
      {Symbol::CreateVariable("boxes"), Symbol::CreateVariable("scores")},
      {{"max_output_boxes_per_class", "3"}, {"iou_threshold", "0.5"}, {"center_point_box", "0"}},
      "nms0");
  const Symbol twice = Symbol::Apply(rt->ops(), "_mul_scalar", {Symbol::CreateVariable("data")},
                                     {{"scalar", "2"}}, "twice");
  ParamMaps params;
  params.args["boxes"] = test::Array({1, 6, 4}, {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                                                 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101});
  params.args["scores"] = test::Array({1, 1, 6}, {0.9, 0.75, 0.6, 0.95, 0.5, 0.3});
  auto p = Predictor::Create(rt, Symbol::Group({nms, twice}), params, {{"data", Shape{2}}},
                             Context::CPU());
  EXPECT_TRUE(p->dynamic_shapes());
  std::vector<int64_t> sel(18, -1);
  std::vector<float> data = {1, 2}, out(2);
  Shape sel_shape;
  HostOutput sel_out(sel.data(), sel.size() * sizeof(int64_t));
  sel_out.shape = &sel_shape;
  p->Predict({In(data, {2})}, {sel_out, Out(&out)});
  EXPECT_EQ(sel_shape, Shape({3, 3}));
  EXPECT_EQ(std::vector<int64_t>(sel.begin(), sel.begin() + 9),
            (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  EXPECT_EQ(out, (std::vector<float>{2, 4}));
}

}  // namespace
}  // namespace weft
