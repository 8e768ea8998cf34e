// Perplexity and Loss (MXNet's metric.py): a likelihood-based metric over
// class probabilities and the mean of a loss output.
#include <algorithm>
#include <cmath>
#include <limits>

#include "metric_util.h"
#include "weft/metric.h"
#include "weft/status.h"

namespace weft {

Perplexity::Perplexity(std::optional<int64_t> ignore_label, int axis)
    : Metric("perplexity"), ignore_label_(ignore_label), axis_(axis) {}

// For every label position: the prediction at the label's class along
// `axis` (the label as int32, clipped into [0, C) as MXNet's pick does);
// -log(max(1e-10, p)) is summed and counted unless the label equals
// ignore_label. Sum and count are added only when every pair is valid.
void Perplexity::Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) {
  CheckPairs(labels, preds);
  double loss = 0;
  int64_t num = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    const std::vector<double> label = metric_util::HostValues(labels[i], name_, "label", i);
    const std::vector<double> pred = metric_util::HostValues(preds[i], name_, "prediction", i);
    const Shape& ps = preds[i].shape();
    const int ndim = ps.ndim();
    const int axis = axis_ < 0 ? axis_ + ndim : axis_;
    if (axis < 0 || axis >= ndim)
      metric_util::ShapeError(name_, i, labels[i], preds[i],
                              StrCat("axis ", axis_, " is out of range for the prediction"));
    const int64_t outer = ps.ProdRange(0, axis), classes = ps[axis],
                  inner = ps.ProdRange(axis + 1, ndim);
    if (classes == 0)
      metric_util::ShapeError(name_, i, labels[i], preds[i],
                              StrCat("the class axis ", axis, " of the prediction is empty"));
    if (static_cast<int64_t>(label.size()) != outer * inner)
      metric_util::ShapeError(name_, i, labels[i], preds[i],
                              StrCat("expected ", outer * inner,
                                     " labels, one per prediction "
                                     "without its class axis ",
                                     axis));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        const double l = label[static_cast<size_t>(o * inner + in)];
        if (ignore_label_ && l == static_cast<double>(*ignore_label_)) continue;
        // The label truncated to an integer and clipped into [0, classes).
        int64_t c = 0;
        if (l >= 1)
          c = l >= static_cast<double>(classes - 1) ? classes - 1 : static_cast<int64_t>(l);
        const double p = pred[static_cast<size_t>((o * classes + c) * inner + in)];
        loss -= std::log(std::max(1e-10, p));
        ++num;
      }
  }
  sum_metric_ += loss;
  num_inst_ += num;
}

std::vector<std::pair<std::string, double>> Perplexity::Get() const {
  if (num_inst_ == 0) return {{name_, std::numeric_limits<double>::quiet_NaN()}};
  return {{name_, std::exp(sum_metric_ / static_cast<double>(num_inst_))}};
}

Loss::Loss() : Metric("loss") {}

// MXNet's Loss ignores the labels: any number of them may be given.
void Loss::Update(const std::vector<NDArray>& /*labels*/, const std::vector<NDArray>& preds) {
  double sum = 0;
  int64_t num = 0;
  for (size_t i = 0; i < preds.size(); ++i) {
    for (double v : metric_util::HostValues(preds[i], name_, "prediction", i)) sum += v;
    num += preds[i].Size();
  }
  sum_metric_ += sum;
  num_inst_ += num;
}

}  // namespace weft
