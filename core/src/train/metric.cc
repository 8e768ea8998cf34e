// Evaluation metrics (see weft/metric.h).
#include "weft/metric.h"

#include <cmath>
#include <limits>
#include <utility>

#include "metric_util.h"

namespace weft {

using metric_util::HostValues;
using metric_util::ShapeError;

Metric::Metric(std::string name) : name_(std::move(name)) {}
Metric::~Metric() = default;

void Metric::Reset() {
  sum_metric_ = 0;
  num_inst_ = 0;
}

std::vector<std::pair<std::string, double>> Metric::Get() const {
  const double v = num_inst_ == 0 ? std::numeric_limits<double>::quiet_NaN()
                                  : sum_metric_ / static_cast<double>(num_inst_);
  return {{name_, v}};
}

void Metric::CheckPairs(const std::vector<NDArray>& labels,
                        const std::vector<NDArray>& preds) const {
  if (labels.size() != preds.size())
    Fail(StatusCode::kShape, "metric ", name_, ": ", labels.size(), " labels but ", preds.size(),
         " predictions (expected one label per prediction)");
}

Accuracy::Accuracy(int axis) : Metric("accuracy"), axis_(axis) {}

void Accuracy::Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  UpdateGuard guard(this);
  CheckPairs(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    const std::vector<double> label = HostValues(labels[i], name_, "label", i);
    const std::vector<double> pred = HostValues(preds[i], name_, "prediction", i);
    const Shape& ps = preds[i].shape();
    std::vector<double> pred_label;
    if (ps == labels[i].shape()) {
      pred_label = pred;
    } else {
      const int ndim = ps.ndim();
      const int axis = axis_ < 0 ? axis_ + ndim : axis_;
      if (axis < 0 || axis >= ndim)
        ShapeError(name_, i, labels[i], preds[i],
                   StrCat("argmax axis ", axis_, " is out of range for the prediction"));
      const int64_t outer = ps.ProdRange(0, axis), classes = ps[axis],
                    inner = ps.ProdRange(axis + 1, ndim);
      if (static_cast<int64_t>(label.size()) != outer * inner)
        ShapeError(name_, i, labels[i], preds[i],
                   StrCat("the argmax over axis ", axis, " has ", outer * inner,
                          " elements, the label ", label.size()));
      pred_label.resize(static_cast<size_t>(outer * inner));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in) {
          const double* p = pred.data() + o * classes * inner + in;
          pred_label[static_cast<size_t>(o * inner + in)] =
              static_cast<double>(metric_util::ArgMax(p, classes, inner));
        }
    }
    // Compared as integers, as MXNet's astype('int32') does.
    for (size_t k = 0; k < label.size(); ++k)
      if (static_cast<int64_t>(pred_label[k]) == static_cast<int64_t>(label[k])) sum_metric_ += 1;
    num_inst_ += static_cast<int64_t>(label.size());
  }
  guard.Commit();
}

TopKAccuracy::TopKAccuracy(int top_k) : Metric(StrCat("top_k_accuracy_", top_k)), top_k_(top_k) {
  if (top_k < 1)
    Fail(StatusCode::kInvalidArgument, "metric top_k_accuracy: top_k must be at least 1, given ",
         top_k);
}

void TopKAccuracy::Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  UpdateGuard guard(this);
  CheckPairs(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    const std::vector<double> label = HostValues(labels[i], name_, "label", i);
    const std::vector<double> pred = HostValues(preds[i], name_, "prediction", i);
    const Shape& ps = preds[i].shape();
    if (ps.ndim() == 1) {
      if (pred.size() != label.size())
        ShapeError(name_, i, labels[i], preds[i], "expected equal sizes");
      for (size_t k = 0; k < label.size(); ++k)
        if (static_cast<int64_t>(pred[k]) == static_cast<int64_t>(label[k])) sum_metric_ += 1;
      num_inst_ += static_cast<int64_t>(label.size());
      continue;
    }
    if (ps.ndim() != 2)
      ShapeError(name_, i, labels[i], preds[i],
                 "expected a prediction of shape (N, classes) or (N)");
    const int64_t n = ps[0], classes = ps[1];
    if (static_cast<int64_t>(label.size()) != n)
      ShapeError(name_, i, labels[i], preds[i], StrCat("expected ", n, " labels, one per row"));
    for (int64_t r = 0; r < n; ++r) {
      const double* p = pred.data() + r * classes;
      const int64_t l = static_cast<int64_t>(label[static_cast<size_t>(r)]);
      if (l < 0 || l >= classes) continue;
      // The label's rank: higher scores, and equal scores of lower classes, come first.
      int64_t rank = 0;
      for (int64_t c = 0; c < classes; ++c)
        if (p[c] > p[l] || (p[c] == p[l] && c < l)) ++rank;
      if (rank < top_k_) sum_metric_ += 1;
    }
    num_inst_ += n;
  }
  guard.Commit();
}

CrossEntropy::CrossEntropy(double eps) : CrossEntropy("cross-entropy", eps) {}
CrossEntropy::CrossEntropy(std::string name, double eps) : Metric(std::move(name)), eps_(eps) {}

NegativeLogLikelihood::NegativeLogLikelihood(double eps) : CrossEntropy("nll-loss", eps) {}

void CrossEntropy::Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  UpdateGuard guard(this);
  CheckPairs(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    const std::vector<double> label = HostValues(labels[i], name_, "label", i);
    const std::vector<double> pred = HostValues(preds[i], name_, "prediction", i);
    const Shape& ps = preds[i].shape();
    if (ps.ndim() != 2)
      ShapeError(name_, i, labels[i], preds[i], "expected a prediction of shape (N, classes)");
    const int64_t n = ps[0], classes = ps[1];
    if (static_cast<int64_t>(label.size()) != n)
      ShapeError(name_, i, labels[i], preds[i], StrCat("expected ", n, " labels, one per row"));
    for (int64_t r = 0; r < n; ++r) {
      const double lv = label[static_cast<size_t>(r)];
      const int64_t l = static_cast<int64_t>(lv);
      if (!(lv >= 0) || l >= classes)
        Fail(StatusCode::kInvalidArgument, "metric ", name_, ": pair ", i, ": label ", lv,
             " of row ", r, " is outside [0, ", classes, ")");
      sum_metric_ += -std::log(pred[static_cast<size_t>(r * classes + l)] + eps_);
    }
    num_inst_ += n;
  }
  guard.Commit();
}

MSE::MSE() : Metric("mse") {}

void MSE::Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  UpdateGuard guard(this);
  CheckPairs(labels, preds);
  for (size_t i = 0; i < labels.size(); ++i) {
    const std::vector<double> label = HostValues(labels[i], name_, "label", i);
    const std::vector<double> pred = HostValues(preds[i], name_, "prediction", i);
    if (label.size() != pred.size())
      ShapeError(name_, i, labels[i], preds[i], "expected equal sizes");
    double s = 0;
    for (size_t k = 0; k < label.size(); ++k) s += (label[k] - pred[k]) * (label[k] - pred[k]);
    sum_metric_ += s / static_cast<double>(label.size());
    num_inst_ += 1;
  }
  guard.Commit();
}

CompositeMetric::CompositeMetric() : Metric("composite") {}

void CompositeMetric::Add(std::unique_ptr<Metric> m) {
  if (!m) Fail(StatusCode::kInvalidArgument, "metric composite: Add() given a null metric");
  metrics_.push_back(std::move(m));
}

void CompositeMetric::Update(const std::vector<NDArray>& labels,
                             const std::vector<NDArray>& preds) {
  for (auto& m : metrics_) m->Update(labels, preds);
}

void CompositeMetric::Reset() {
  Metric::Reset();
  for (auto& m : metrics_) m->Reset();
}

std::vector<std::pair<std::string, double>> CompositeMetric::Get() const {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& m : metrics_)
    for (auto& kv : m->Get()) out.push_back(std::move(kv));
  return out;
}

}  // namespace weft
