// Regression metrics: MAE, RMSE (MSE is in metric.cc) and PearsonCorrelation
// with MXNet's macro and micro averages (metric.py).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "metric_util.h"
#include "weft/metric.h"
#include "weft/status.h"

namespace weft {

namespace {

using Values = std::vector<double>;

// For each pair of equal sizes, adds error(label, pred) to `sum` and one to
// `num`. Throws before adding anything when a pair does not match.
void AddPairErrors(const std::string& metric, const std::vector<NDArray>& labels,
                   const std::vector<NDArray>& preds,
                   const std::function<double(const Values&, const Values&)>& error, double* sum,
                   int64_t* num) {
  std::vector<double> errors;
  for (size_t i = 0; i < labels.size(); ++i) {
    const Values label = metric_util::HostValues(labels[i], metric, "label", i);
    const Values pred = metric_util::HostValues(preds[i], metric, "prediction", i);
    if (label.size() != pred.size())
      metric_util::ShapeError(metric, i, labels[i], preds[i], "expected equal sizes");
    errors.push_back(error(label, pred));
  }
  for (double e : errors) *sum += e;
  *num += static_cast<int64_t>(errors.size());
}

double MeanAbs(const Values& l, const Values& p) {
  double s = 0;
  for (size_t k = 0; k < l.size(); ++k) s += std::fabs(l[k] - p[k]);
  return s / static_cast<double>(l.size());
}

double RootMeanSquare(const Values& l, const Values& p) {
  double s = 0;
  for (size_t k = 0; k < l.size(); ++k) s += (l[k] - p[k]) * (l[k] - p[k]);
  return std::sqrt(s / static_cast<double>(l.size()));
}

// numpy.corrcoef(x, y)[0, 1]: centred sums, clipped into [-1, 1]; NaN when
// either side is constant.
double Correlation(const Values& x, const Values& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    mx += x[k];
    my += y[k];
  }
  mx /= n;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    sxy += (x[k] - mx) * (y[k] - my);
    sxx += (x[k] - mx) * (x[k] - mx);
    syy += (y[k] - my) * (y[k] - my);
  }
  const double r = sxy / std::sqrt(sxx * syy);
  return std::isnan(r) ? r : std::min(1.0, std::max(-1.0, r));
}

// MXNet's batched Welford update of one side's mean and squared deviations
// (n0 values seen before `v`).
void AddValues(const Values& v, int64_t n0, double* mean, double* sse) {
  const double before = *mean;
  const double count = static_cast<double>(n0) + static_cast<double>(v.size());
  double m = before;
  for (double x : v) m += (x - before) / count;
  for (double x : v) *sse += (x - before) * (x - m);
  *mean = m;
}

}  // namespace

MAE::MAE() : Metric("mae") {}

void MAE::Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckPairs(labels, preds);
  AddPairErrors(name_, labels, preds, MeanAbs, &sum_metric_, &num_inst_);
}

RMSE::RMSE() : Metric("rmse") {}

void RMSE::Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckPairs(labels, preds);
  AddPairErrors(name_, labels, preds, RootMeanSquare, &sum_metric_, &num_inst_);
}

PearsonCorrelation::PearsonCorrelation(MetricAverage average)
    : Metric("pearsonr"), average_(average) {}

// Each pair counts one instance in both averages. Micro accumulates, as
// MXNet, the label's moments first, then the co-moment against the new
// label mean and the old prediction mean, then the prediction's moments:
// exactly the co-moment of every element seen.
void PearsonCorrelation::Update(const std::vector<NDArray>& labels,
                                const std::vector<NDArray>& preds) {
  CheckPairs(labels, preds);
  std::vector<std::pair<Values, Values>> pairs;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i].shape() != preds[i].shape())
      metric_util::ShapeError(name_, i, labels[i], preds[i], "expected equal shapes");
    pairs.emplace_back(metric_util::HostValues(labels[i], name_, "label", i),
                       metric_util::HostValues(preds[i], name_, "prediction", i));
  }
  for (const auto& [label, pred] : pairs) {
    num_inst_ += 1;
    if (average_ == MetricAverage::kMacro) {
      sum_metric_ += Correlation(pred, label);
      continue;
    }
    Moments& m = moments_;
    AddValues(label, m.n, &m.mean_label, &m.sse_label);
    for (size_t k = 0; k < label.size(); ++k)
      m.co += (label[k] - m.mean_label) * (pred[k] - m.mean_pred);
    AddValues(pred, m.n, &m.mean_pred, &m.sse_pred);
    m.n += static_cast<int64_t>(label.size());
  }
}

void PearsonCorrelation::Reset() {
  Metric::Reset();
  moments_ = Moments{};
}

std::vector<std::pair<std::string, double>> PearsonCorrelation::Get() const {
  if (num_inst_ == 0 || average_ == MetricAverage::kMacro) return Metric::Get();
  const Moments& m = moments_;
  const double d = static_cast<double>(m.n - 1);
  return {{name_, m.co / (d * std::sqrt(m.sse_pred / d) * std::sqrt(m.sse_label / d))}};
}

}  // namespace weft
