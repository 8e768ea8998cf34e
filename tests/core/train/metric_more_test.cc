// Tests of core/src/train/metric_binary.cc, metric_regression.cc,
// metric_loss.cc and metric_create.cc: F1, MCC, Perplexity, MAE, RMSE,
// NegativeLogLikelihood, PearsonCorrelation and Loss on hand-made batches
// against closed forms (and the values MXNet 1.9.1's docstrings print),
// accumulation across Update calls (macro and micro), Reset, the names Get
// reports, creation by name, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/metric.h"

namespace weft {
namespace {

using test::Array;
using test::ExpectError;

// A float64 array, so closed forms in double hold to rounding.
NDArray D(const Shape& shape, const std::vector<double>& values) {
  return Array(shape, values, DType::kFloat64);
}

double Value(const Metric& m) {
  auto v = m.Get();
  EXPECT_EQ(v.size(), 1u);
  EXPECT_EQ(v.at(0).first, m.name());
  return v.at(0).second;
}

// MXNet's docstring batch: argmax 1, 1, 1 against labels 0, 1, 1.
// float64, so the closed forms below hold to rounding; MXNet's figures came
// from float32 arrays and hold to 1e-7.
NDArray DocPred() { return Array(Shape{3, 2}, {0.3, 0.7, 0.0, 1.0, 0.4, 0.6}, DType::kFloat64); }
NDArray DocLabel() { return Array(Shape{3}, {0, 1, 1}); }

double FScore(double tp, double fp, double fn) {
  const double p = tp / (tp + fp), r = tp / (tp + fn);
  return 2 * p * r / (p + r);
}

TEST(BinaryMetrics, F1MacroAveragesEachUpdateMicroPoolsTheCounts) {
  F1 macro, micro(MetricAverage::kMicro);
  EXPECT_EQ(macro.name(), "f1");
  EXPECT_TRUE(std::isnan(Value(macro)));
  for (F1* m : {&macro, &micro}) m->Update({DocLabel()}, {DocPred()});
  EXPECT_DOUBLE_EQ(Value(macro), 0.8);  // tp 2, fp 1, fn 0: MXNet's docstring value
  EXPECT_DOUBLE_EQ(Value(micro), 0.8);
  // Second call, two pairs counted together: argmax 0, 1, 1 vs labels 1, 1, 0:
  // tp 1, fp 1, fn 1, tn 0.
  const std::vector<NDArray> labels = {Array(Shape{2}, {1, 1}), Array(Shape{1}, {0})};
  const std::vector<NDArray> preds = {Array(Shape{2, 2}, {0.9, 0.1, 0.2, 0.8}),
                                      Array(Shape{1, 2}, {0.4, 0.6}, DType::kFloat64)};
  for (F1* m : {&macro, &micro}) m->Update(labels, preds);
  EXPECT_DOUBLE_EQ(Value(macro), (0.8 + FScore(1, 1, 1)) / 2);
  EXPECT_EQ(macro.num_inst(), 2);  // one per Update call
  EXPECT_DOUBLE_EQ(Value(micro), FScore(3, 2, 1));
  EXPECT_EQ(micro.num_inst(), 6);  // one per example
  EXPECT_EQ(micro.counts().tp, 3);
  EXPECT_EQ(micro.counts().fp, 2);
  // No positive predicted or labelled: precision and recall 0, F1 0.
  F1 none;
  none.Update({Array(Shape{2}, {0, 0})}, {Array(Shape{2, 2}, {0.9, 0.1, 0.8, 0.2})});
  EXPECT_DOUBLE_EQ(Value(none), 0.0);
  micro.Reset();
  EXPECT_TRUE(std::isnan(Value(micro)));
  EXPECT_EQ(micro.counts().total(), 0);
}

double Matthews(double tp, double fp, double fn, double tn) {
  double d = 1;
  for (double t : {tp + fp, tp + fn, tn + fp, tn + fn})
    if (t != 0) d *= t;
  return (tp * tn - fp * fn) / std::sqrt(d);
}

TEST(BinaryMetrics, MCCMatchesMXNetsDocstringAndAverages) {
  // MXNet's example: 1000 false positives, 1 true negative, 1 false negative,
  // 10000 true positives give MCC 0.01917751877733392 and F1 0.9523356030665205.
  std::vector<double> pred, label;
  auto add = [&](int count, bool pred_pos, bool label_pos) {
    for (int k = 0; k < count; ++k) {
      pred.push_back(pred_pos ? 0.3 : 0.7);
      pred.push_back(pred_pos ? 0.7 : 0.3);
      label.push_back(label_pos ? 1 : 0);
    }
  };
  add(1000, true, false);
  add(1, false, false);
  add(1, false, true);
  add(10000, true, true);
  const int64_t n = static_cast<int64_t>(label.size());
  MCC mcc;
  F1 f1;
  mcc.Update({Array(Shape{n}, label)}, {Array(Shape{n, 2}, pred)});
  f1.Update({Array(Shape{n}, label)}, {Array(Shape{n, 2}, pred)});
  EXPECT_NEAR(Value(mcc), 0.01917751877733392, 1e-15);
  EXPECT_NEAR(Value(f1), 0.9523356030665205, 1e-15);
  EXPECT_EQ(mcc.name(), "mcc");
  // Macro vs micro: argmax 0, 1, 1, 1, 0 vs labels 0, 0, 1, 1, 1 (tp 2, fp 1,
  // fn 1, tn 1: MCC 1/6), then argmax 0, 1 vs labels 0, 1 (MCC 1).
  MCC macro, micro(MetricAverage::kMicro);
  for (MCC* m : {&macro, &micro}) {
    m->Update({Array(Shape{5}, {0, 0, 1, 1, 1})},
              {Array(Shape{5, 2}, {0.9, 0.1, 0.2, 0.8, 0.3, 0.7, 0.4, 0.6, 0.6, 0.4})});
    m->Update({Array(Shape{2}, {0, 1})}, {Array(Shape{2, 2}, {0.8, 0.2, 0.1, 0.9})});
  }
  EXPECT_DOUBLE_EQ(Matthews(2, 1, 1, 1), 1.0 / 6);
  EXPECT_DOUBLE_EQ(Value(macro), (1.0 / 6 + 1.0) / 2);
  EXPECT_DOUBLE_EQ(Value(micro), 5.0 / 12);  // tp 3, fp 1, fn 1, tn 2
  EXPECT_EQ(micro.num_inst(), 7);
  // All positive: the zero marginals leave the denominator, MCC 0 (not NaN).
  MCC pos;
  pos.Update({Array(Shape{2}, {1, 1})}, {Array(Shape{2, 2}, {0.1, 0.9, 0.2, 0.8})});
  EXPECT_DOUBLE_EQ(Value(pos), 0.0);
}

TEST(BinaryMetrics, Errors) {
  F1 f1;
  ExpectError(
      [&] {
        f1.Update({Array(Shape{3}, {0, 1, 2})}, {DocPred()});
      },
      StatusCode::kInvalidArgument, {"metric f1: pair 0", "3 distinct", "binary"});
  ExpectError(
      [&] {
        f1.Update({DocLabel()}, {Array(Shape{3}, {0, 1, 1})});
      },
      StatusCode::kShape, {"(N, classes)"});
  ExpectError(
      [&] {
        f1.Update({Array(Shape{2}, {0, 1})}, {DocPred()});
      },
      StatusCode::kShape, {"expected 3 labels"});
  EXPECT_EQ(f1.num_inst(), 0);
  EXPECT_EQ(f1.counts().total(), 0);
}

TEST(LikelihoodMetrics, PerplexityIgnoresAndClipsLabels) {
  // MXNet's docstring: ignore_label None gives exp(-(log .3 + log 1 + log .6) / 3).
  Perplexity all(std::nullopt);
  EXPECT_EQ(all.name(), "perplexity");
  all.Update({DocLabel()}, {DocPred()});
  const double doc = std::exp(-(std::log(0.3) + std::log(1.0) + std::log(0.6)) / 3);
  EXPECT_NEAR(Value(all), doc, 1e-12);
  EXPECT_NEAR(Value(all), 1.7710976285155853, 1e-7);  // MXNet's float32 figure
  // ignore_label 1 leaves the first row only; a second update accumulates.
  Perplexity ign(1);
  ign.Update({DocLabel()}, {DocPred()});
  EXPECT_NEAR(Value(ign), 1 / 0.3, 1e-12);
  EXPECT_EQ(ign.num_inst(), 1);
  ign.Update({D(Shape{2}, {1, 0})}, {D(Shape{2, 2}, {0.5, 0.5, 0.8, 0.2})});
  EXPECT_NEAR(Value(ign), std::exp(-(std::log(0.3) + std::log(0.8)) / 2), 1e-12);
  // Default ignore_label -1; labels past the classes clip to the last class,
  // zero probabilities are floored at 1e-10.
  Perplexity def;
  def.Update({D(Shape{3}, {-1, 7, 0})}, {D(Shape{3, 2}, {0.1, 0.9, 0.2, 0.8, 0.0, 1.0})});
  EXPECT_NEAR(Value(def), std::exp(-(std::log(0.8) + std::log(1e-10)) / 2), 1e-6);
  // The class on axis 1 of (N, C, T): label (N, T).
  Perplexity seq(std::nullopt, 1);
  seq.Update({D(Shape{1, 2}, {1, 0})}, {D(Shape{1, 2, 2}, {0.4, 0.25, 0.6, 0.75})});
  EXPECT_NEAR(Value(seq), std::exp(-(std::log(0.6) + std::log(0.25)) / 2), 1e-12);
  ExpectError(
      [&] {
        seq.Update({D(Shape{2}, {0, 0})}, {DocPred()});
      },
      StatusCode::kShape, {"expected 3 labels"});
  Perplexity bad_axis(-1, 2);
  ExpectError([&] { bad_axis.Update({DocLabel()}, {DocPred()}); }, StatusCode::kShape, {"axis 2"});
  seq.Reset();
  EXPECT_TRUE(std::isnan(Value(seq)));
}

TEST(LikelihoodMetrics, NegativeLogLikelihoodIsCrossEntropyNamedNllLoss) {
  NegativeLogLikelihood nll;
  nll.Update({DocLabel()}, {DocPred()});
  EXPECT_EQ(nll.Get()[0].first, "nll-loss");
  const double want = -(std::log(0.3 + 1e-12) + std::log(1 + 1e-12) + std::log(0.6 + 1e-12)) / 3;
  EXPECT_NEAR(Value(nll), want, 1e-12);
  EXPECT_NEAR(Value(nll), 0.57159948348999023, 1e-7);  // MXNet's docstring
  EXPECT_EQ(nll.num_inst(), 3);
}

TEST(LikelihoodMetrics, LossIsTheMeanOfTheOutputs) {
  Loss loss;
  EXPECT_EQ(loss.name(), "loss");
  // Labels are ignored, even a mismatching number of them.
  loss.Update({}, {Array(Shape{3}, {1, 2, 3}), Array(Shape{2, 1}, {4, 5}, DType::kFloat64)});
  EXPECT_DOUBLE_EQ(Value(loss), 3.0);
  loss.Update({DocLabel()}, {Array(Shape{1}, {-15})});
  EXPECT_DOUBLE_EQ(Value(loss), 0.0);
  EXPECT_EQ(loss.num_inst(), 6);
}

TEST(RegressionMetrics, MAEAndRMSEPerPairAsMXNet) {
  // MXNet's docstring: pred (3, -0.5, 2, 7), label (2.5, 0, 2, 8): MAE 0.5, RMSE sqrt(0.375).
  const NDArray pred = Array(Shape{4, 1}, {3, -0.5, 2, 7});
  const NDArray label = Array(Shape{4}, {2.5, 0, 2, 8});
  MAE mae;
  RMSE rmse;
  mae.Update({label}, {pred});
  rmse.Update({label}, {pred});
  EXPECT_DOUBLE_EQ(Value(mae), 0.5);
  EXPECT_DOUBLE_EQ(Value(rmse), std::sqrt(0.375));
  // A second pair counts once more: the mean of per-pair values.
  mae.Update({Array(Shape{2}, {1, 1})}, {Array(Shape{2}, {4, 0})});
  rmse.Update({Array(Shape{2}, {1, 1})}, {Array(Shape{2}, {4, 0})});
  EXPECT_DOUBLE_EQ(Value(mae), (0.5 + 2.0) / 2);
  EXPECT_DOUBLE_EQ(Value(rmse), (std::sqrt(0.375) + std::sqrt(5.0)) / 2);
  EXPECT_EQ(rmse.num_inst(), 2);
  ExpectError(
      [&] {
        mae.Update({label}, {Array(Shape{3}, {1, 2, 3})});
      },
      StatusCode::kShape, {"metric mae: pair 0", "equal sizes"});
  EXPECT_EQ(mae.num_inst(), 2);
}

// Pearson's r of two equal-length vectors by the textbook formula.
double R(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    sx += x[k];
    sy += y[k];
    sxx += x[k] * x[k];
    syy += y[k] * y[k];
    sxy += x[k] * y[k];
  }
  return (n * sxy - sx * sy) / std::sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
}

TEST(RegressionMetrics, PearsonMacroAndMicro) {
  // MXNet's docstring value for its example.
  PearsonCorrelation doc;
  EXPECT_EQ(doc.name(), "pearsonr");
  doc.Update({D(Shape{3, 2}, {1, 0, 0, 1, 0, 1})}, {DocPred()});
  EXPECT_NEAR(Value(doc), R({0.3, 0.7, 0, 1, 0.4, 0.6}, {1, 0, 0, 1, 0, 1}), 1e-12);
  EXPECT_NEAR(Value(doc), 0.42163704544016178, 1e-7);
  const std::vector<double> l1 = {1, 2, 3, 4}, p1 = {1.5, 1.9, 3.7, 3.1};
  const std::vector<double> l2 = {-2, 0, 5}, p2 = {0.5, -1, 4};
  PearsonCorrelation macro, micro(MetricAverage::kMicro);
  for (PearsonCorrelation* m : {&macro, &micro}) {
    m->Update({D(Shape{4}, l1)}, {D(Shape{4}, p1)});
    m->Update({D(Shape{3}, l2)}, {D(Shape{3}, p2)});
  }
  EXPECT_NEAR(Value(macro), (R(l1, p1) + R(l2, p2)) / 2, 1e-12);
  std::vector<double> l = l1, p = p1;
  l.insert(l.end(), l2.begin(), l2.end());
  p.insert(p.end(), p2.begin(), p2.end());
  EXPECT_NEAR(Value(micro), R(l, p), 1e-12);  // one correlation of all seven points
  EXPECT_EQ(micro.num_inst(), 2);
  micro.Reset();
  EXPECT_TRUE(std::isnan(Value(micro)));
  micro.Update({D(Shape{3}, l2)}, {D(Shape{3}, p2)});
  EXPECT_NEAR(Value(micro), R(l2, p2), 1e-12);
  // A constant side has no correlation (numpy gives NaN).
  PearsonCorrelation flat;
  flat.Update({D(Shape{3}, {1, 1, 1})}, {D(Shape{3}, {1, 2, 3})});
  EXPECT_TRUE(std::isnan(Value(flat)));
  ExpectError(
      [&] {
        flat.Update({D(Shape{3}, {1, 2, 3})}, {D(Shape{3, 1}, {1, 2, 3})});
      },
      StatusCode::kShape, {"equal shapes"});
}

TEST(MetricCreate, NewNamesAndParameters) {
  struct Want {
    std::string name;
    StringMap params;
    std::string reported;
  };
  const std::vector<Want> wants = {
      {"f1", {}, "f1"},
      {"F1", {{"average", "'micro'"}}, "f1"},
      {"mcc", {{"average", "micro"}}, "mcc"},
      {"Perplexity", {{"ignore_label", "None"}, {"axis", "-1"}}, "perplexity"},
      {"perplexity", {}, "perplexity"},
      {"mae", {}, "mae"},
      {"RMSE", {}, "rmse"},
      {"nll_loss", {{"eps", "1e-8"}}, "nll-loss"},
      {"NegativeLogLikelihood", {}, "nll-loss"},
      {"pearsonr", {{"average", "micro"}}, "pearsonr"},
      {"PearsonCorrelation", {}, "pearsonr"},
      {"loss", {}, "loss"},
      {"CrossEntropy", {}, "cross-entropy"},
      {"TopKAccuracy", {{"top_k", "3"}}, "top_k_accuracy_3"},
      {"Accuracy", {}, "accuracy"},
  };
  for (const Want& w : wants) EXPECT_EQ(Metric::Create(w.name, w.params)->name(), w.reported);
  auto micro = Metric::Create("f1", {{"average", "micro"}});
  EXPECT_EQ(dynamic_cast<F1&>(*micro).average(), MetricAverage::kMicro);
  // ignore_label None counts every entry; the default -1 leaves label -1 out.
  auto none = Metric::Create("perplexity", {{"ignore_label", "None"}});
  auto def = Metric::Create("perplexity");
  for (auto* m : {none.get(), def.get()})
    m->Update({Array(Shape{2}, {-1, 1})}, {Array(Shape{2, 2}, {0.5, 0.5, 0.2, 0.8})});
  EXPECT_EQ(none->num_inst(), 2);
  EXPECT_EQ(def->num_inst(), 1);
  const auto bad = StatusCode::kInvalidArgument;
  ExpectError(
      [] {
        Metric::Create("f1", {{"average", "weighted"}});
      },
      bad, {"metric f1", "average", "weighted", "macro"});
  ExpectError(
      [] {
        Metric::Create("pearsonr", {{"eps", "1"}});
      },
      bad, {"unknown parameter 'eps'", "valid: average"});
  ExpectError(
      [] {
        Metric::Create("perplexity", {{"ignore_label", "x"}});
      },
      bad, {"ignore_label", "'x'"});
  ExpectError([] { Metric::Create("loss", {{"axis", "1"}}); }, bad, {"valid: none"});
  ExpectError([] { Metric::Create("auc"); }, bad, {"unknown name 'auc'", "pearsonr", "loss"});
}

}  // namespace
}  // namespace weft
