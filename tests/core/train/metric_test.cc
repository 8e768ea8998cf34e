// Metrics: values computed by hand (closed forms), accumulation over
// Update calls and Reset as MXNet's EvalMetric, creation by name, and
// shape/dtype/parameter errors.
#include <gtest/gtest.h>

#include <cmath>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/metric.h"

namespace weft {
namespace {

using test::Array;

using test::ExpectError;

double Value(const Metric& m) {
  auto v = m.Get();
  EXPECT_EQ(v.size(), 1u);
  return v.at(0).second;
}

TEST(MetricTest, AccuracyArgmaxAccumulatesAcrossUpdates) {
  Accuracy acc;
  EXPECT_TRUE(std::isnan(Value(acc)));  // no instance yet
  // argmax rows: 1, 0, 0 (a tie takes the first maximum) vs labels 1, 1, 0.
  acc.Update({Array(Shape{3}, {1, 1, 0})}, {Array(Shape{3, 2}, {0.3, 0.7, 0.6, 0.4, 0.5, 0.5})});
  EXPECT_DOUBLE_EQ(Value(acc), 2.0 / 3.0);
  acc.Update({Array(Shape{2}, {1, 0}, DType::kInt32)},
             {Array(Shape{2, 2}, {0.1, 0.9, 0.8, 0.2}, DType::kFloat64)});
  EXPECT_EQ(acc.Get()[0].first, "accuracy");
  EXPECT_DOUBLE_EQ(acc.sum_metric(), 4);
  EXPECT_EQ(acc.num_inst(), 5);
  EXPECT_DOUBLE_EQ(Value(acc), 0.8);
  acc.Reset();
  EXPECT_TRUE(std::isnan(Value(acc)));
  // Label-shaped predictions are compared directly (as integers).
  acc.Update({Array(Shape{3}, {1, 2, 0})}, {Array(Shape{3}, {1, 2.7, 3})});
  EXPECT_DOUBLE_EQ(Value(acc), 2.0 / 3.0);
}

TEST(MetricTest, AccuracyOverAnAxisOfHigherRankPredictions) {
  // pred (1, 2 classes, 2 positions): position 0 -> class 0, position 1 -> class 1.
  Accuracy acc;
  acc.Update({Array(Shape{1, 2}, {0, 0})}, {Array(Shape{1, 2, 2}, {0.9, 0.2, 0.1, 0.8})});
  EXPECT_DOUBLE_EQ(Value(acc), 0.5);
  Accuracy last(-1);
  last.Update({Array(Shape{2}, {2, 0})}, {Array(Shape{2, 3}, {0, 1, 5, 4, 3, 2})});
  EXPECT_DOUBLE_EQ(Value(last), 1.0);
}

TEST(MetricTest, TopKAccuracy) {
  TopKAccuracy top2(2);
  EXPECT_EQ(top2.name(), "top_k_accuracy_2");
  // Row 0: label 2 is second (hit). Row 1: label 2 ties class 1 and ranks
  // after it: fourth (miss for k=2, hit for k=4).
  const NDArray pred = Array(Shape{2, 4}, {0.1, 0.4, 0.3, 0.2, 0.5, 0.1, 0.1, 0.3});
  const NDArray label = Array(Shape{2}, {2, 2});
  top2.Update({label}, {pred});
  EXPECT_DOUBLE_EQ(Value(top2), 0.5);
  TopKAccuracy top3(3), top4(4), top9(9);
  top3.Update({label}, {pred});
  top4.Update({label}, {pred});
  top9.Update({label}, {pred});
  EXPECT_DOUBLE_EQ(Value(top3), 0.5);
  EXPECT_DOUBLE_EQ(Value(top4), 1.0);
  EXPECT_DOUBLE_EQ(Value(top9), 1.0);
  TopKAccuracy top1(1);
  top1.Update({label}, {pred});
  EXPECT_DOUBLE_EQ(Value(top1), 0.0);
  ExpectError([] { TopKAccuracy(0); }, StatusCode::kInvalidArgument,
              {"top_k must be at least 1, given 0"});
  ExpectError(
      [&] {
        top2.Update({label}, {Array(Shape{1, 2, 4}, std::vector<double>(8, 0))});
      },
      StatusCode::kShape, {"top_k_accuracy_2", "(1,2,4)"});
}

TEST(MetricTest, CrossEntropyIsTheMeanNegativeLogLikelihood) {
  CrossEntropy ce;
  ce.Update({Array(Shape{2}, {1, 1})}, {Array(Shape{2, 2}, {0.2, 0.8, 0.6, 0.4})});
  EXPECT_NEAR(Value(ce), (-std::log(0.8) - std::log(0.4)) / 2, 1e-7);
  ce.Update({Array(Shape{1}, {0})}, {Array(Shape{1, 2}, {0, 1})});  // p = 0: -log(eps)
  EXPECT_NEAR(Value(ce), (-std::log(0.8) - std::log(0.4) - std::log(1e-12)) / 3, 1e-6);
  EXPECT_EQ(ce.Get()[0].first, "cross-entropy");
  ExpectError(
      [&] {
        ce.Update({Array(Shape{1}, {2})}, {Array(Shape{1, 2}, {0.5, 0.5})});
      },
      StatusCode::kInvalidArgument, {"label 2 of row 0 is outside [0, 2)"});
  ExpectError(
      [&] {
        ce.Update({Array(Shape{3}, {0, 0, 0})}, {Array(Shape{2, 2}, {0.5, 0.5, 0.5, 0.5})});
      },
      StatusCode::kShape, {"label shape (3,)", "prediction shape (2,2)", "expected 2 labels"});
}

TEST(MetricTest, MSEAveragesPerUpdateAsMXNet) {
  MSE mse;
  mse.Update({Array(Shape{2}, {1, 2})}, {Array(Shape{2, 1}, {1.5, 1.0})});  // (0.25 + 1) / 2
  EXPECT_DOUBLE_EQ(Value(mse), 0.625);
  mse.Update({Array(Shape{1}, {0})}, {Array(Shape{1}, {2})});  // 4
  EXPECT_DOUBLE_EQ(Value(mse), (0.625 + 4) / 2);
  EXPECT_EQ(mse.num_inst(), 2);
  ExpectError(
      [&] {
        mse.Update({Array(Shape{2}, {1, 2})}, {Array(Shape{3}, {1, 2, 3})});
      },
      StatusCode::kShape, {"metric mse: pair 0", "(2,)", "(3,)"});
}

TEST(MetricTest, CompositeAndCreateByName) {
  auto comp = Metric::Create("composite");
  auto* c = dynamic_cast<CompositeMetric*>(comp.get());
  ASSERT_NE(c, nullptr);
  c->Add(Metric::Create("acc"));
  c->Add(Metric::Create("ce"));
  c->Add(Metric::Create("top_k_accuracy", {{"top_k", "2"}}));
  c->Update({Array(Shape{2}, {1, 0})}, {Array(Shape{2, 3}, {0.2, 0.5, 0.3, 0.1, 0.3, 0.6})});
  auto v = c->Get();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].first, "accuracy");
  EXPECT_DOUBLE_EQ(v[0].second, 0.5);
  EXPECT_EQ(v[1].first, "cross-entropy");
  EXPECT_NEAR(v[1].second, (-std::log(0.5) - std::log(0.1)) / 2, 1e-7);
  EXPECT_EQ(v[2].first, "top_k_accuracy_2");
  EXPECT_DOUBLE_EQ(v[2].second, 0.5);
  c->Reset();
  for (auto& kv : c->Get()) EXPECT_TRUE(std::isnan(kv.second)) << kv.first;

  EXPECT_EQ(Metric::Create("accuracy")->name(), "accuracy");
  EXPECT_EQ(Metric::Create("cross-entropy")->name(), "cross-entropy");
  EXPECT_EQ(Metric::Create("mse")->name(), "mse");
  EXPECT_EQ(Metric::Create("top_k_acc", {{"top_k", "5"}})->name(), "top_k_accuracy_5");
  ExpectError([] { Metric::Create("auc"); }, StatusCode::kInvalidArgument,
              {"unknown name 'auc'", "cross-entropy"});
  ExpectError(
      [] {
        Metric::Create("acc", {{"top_k", "2"}});
      },
      StatusCode::kInvalidArgument, {"unknown parameter 'top_k'", "valid: axis"});
  ExpectError(
      [] {
        Metric::Create("ce", {{"eps", "tiny"}});
      },
      StatusCode::kInvalidArgument, {"eps: expected a number, given 'tiny'"});
  ExpectError(
      [] {
        Metric::Create("top_k_accuracy", {{"top_k", "1.5"}});
      },
      StatusCode::kInvalidArgument, {"expected an integer"});
  ExpectError([&] { c->Add(nullptr); }, StatusCode::kInvalidArgument, {"null metric"});
}

TEST(MetricTest, ShapeAndDtypeErrors) {
  Accuracy acc;
  ExpectError(
      [&] {
        acc.Update({Array(Shape{2}, {0, 1})}, {});
      },
      StatusCode::kShape, {"1 labels but 0 predictions"});
  ExpectError(
      [&] {
        acc.Update({Array(Shape{2}, {0, 1})}, {Array(Shape{3, 2}, std::vector<double>(6, 0))});
      },
      StatusCode::kShape,
      {"metric accuracy: pair 0", "label shape (2,)", "(3,2)", "has 3 elements"});
  ExpectError(
      [&] {
        acc.Update({Array(Shape{2}, {0, 1})}, {NDArray()});
      },
      StatusCode::kInvalidArgument, {"prediction 0 is an empty"});
  EXPECT_EQ(acc.num_inst(), 0);  // failed updates added nothing
  // float16 and bfloat16 predictions are read as their values.
  acc.Update({Array(Shape{2}, {0, 1})}, {Array(Shape{2}, {0, 0}, DType::kFloat16)});
  acc.Update({Array(Shape{2}, {0, 1})}, {Array(Shape{2}, {0, 1}, DType::kBFloat16)});
  EXPECT_EQ(acc.num_inst(), 4);
  EXPECT_DOUBLE_EQ(acc.Get()[0].second, 0.75);
}

}  // namespace
}  // namespace weft
