// F1 and MCC: MXNet's binary classification metrics over true/false
// positive/negative counts (metric.py, _BinaryClassificationMetrics).
#include <cmath>
#include <set>

#include "metric_util.h"
#include "weft/metric.h"
#include "weft/status.h"

namespace weft {

double BinaryCounts::Precision() const {
  return tp + fp > 0 ? static_cast<double>(tp) / static_cast<double>(tp + fp) : 0.0;
}

double BinaryCounts::Recall() const {
  return tp + fn > 0 ? static_cast<double>(tp) / static_cast<double>(tp + fn) : 0.0;
}

double BinaryCounts::FScore() const {
  const double p = Precision(), r = Recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

double BinaryCounts::Matthews() const {
  if (total() == 0) return 0.0;
  const double tpd = static_cast<double>(tp), fpd = static_cast<double>(fp),
               fnd = static_cast<double>(fn), tnd = static_cast<double>(tn);
  double denom = 1;
  for (double t : {tpd + fpd, tpd + fnd, tnd + fpd, tnd + fnd})
    if (t != 0) denom *= t;
  return (tpd * tnd - fpd * fnd) / std::sqrt(denom);
}

BinaryClassificationMetric::BinaryClassificationMetric(std::string name, MetricAverage average)
    : Metric(std::move(name)), average_(average) {}

namespace {

// Adds one (label, pred) pair: pred (N, C) argmax'ed over axis 1, label N
// values taken as int32; 1 is the positive class on both sides.
void CountPair(const std::string& metric, size_t i, const NDArray& label_arr,
               const NDArray& pred_arr, BinaryCounts* c) {
  const std::vector<double> label = metric_util::HostValues(label_arr, metric, "label", i);
  const std::vector<double> pred = metric_util::HostValues(pred_arr, metric, "prediction", i);
  const Shape& ps = pred_arr.shape();
  if (ps.ndim() != 2)
    metric_util::ShapeError(metric, i, label_arr, pred_arr,
                            "expected a prediction of shape (N, classes)");
  const int64_t n = ps[0], classes = ps[1];
  if (static_cast<int64_t>(label.size()) != n)
    metric_util::ShapeError(metric, i, label_arr, pred_arr,
                            StrCat("expected ", n, " labels, one per row"));
  std::set<int32_t> distinct;
  for (double l : label) distinct.insert(static_cast<int32_t>(l));
  if (distinct.size() > 2)
    Fail(StatusCode::kInvalidArgument, "metric ", metric, ": pair ", i, ": labels take ",
         distinct.size(), " distinct values; ", metric,
         " supports binary classification only (at most 2)");
  for (int64_t r = 0; r < n; ++r) {
    const bool pred_pos = metric_util::ArgMax(pred.data() + r * classes, classes) == 1;
    const bool label_pos = static_cast<int32_t>(label[static_cast<size_t>(r)]) == 1;
    if (pred_pos && label_pos) ++c->tp;
    if (pred_pos && !label_pos) ++c->fp;
    if (!pred_pos && label_pos) ++c->fn;
    if (!pred_pos && !label_pos) ++c->tn;
  }
}

}  // namespace

// Macro: each Update call's score is one instance. Micro: the score of the
// counts since Reset, weighted by their number of examples.
void BinaryClassificationMetric::Update(const std::vector<NDArray>& labels,
                                        const std::vector<NDArray>& preds) {
  CheckPairs(labels, preds);
  BinaryCounts c = average_ == MetricAverage::kMicro ? counts_ : BinaryCounts{};
  for (size_t i = 0; i < labels.size(); ++i) CountPair(name_, i, labels[i], preds[i], &c);
  if (average_ == MetricAverage::kMacro) {
    sum_metric_ += Score(c);
    num_inst_ += 1;
    return;
  }
  counts_ = c;
  sum_metric_ = Score(c) * static_cast<double>(c.total());
  num_inst_ = c.total();
}

void BinaryClassificationMetric::Reset() {
  Metric::Reset();
  counts_ = BinaryCounts{};
}

F1::F1(MetricAverage average) : BinaryClassificationMetric("f1", average) {}
MCC::MCC(MetricAverage average) : BinaryClassificationMetric("mcc", average) {}

}  // namespace weft
