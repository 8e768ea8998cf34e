// Evaluation metrics (MXNet's EvalMetric family) for the fit loop.
//
// A metric accumulates a sum and an instance count over Update() calls
// until Reset(); Get() reports sum / count (NaN before any instance).
// Update(labels, preds) takes parallel lists (one label per prediction,
// equal lengths) of arrays of any real or integer dtype (float16 is
// refused) on any device; it waits for them and reads them on the host.
// Shape mismatches throw Error(kShape) naming the metric, the pair index
// and both shapes. A metric object is not synchronised.
//
//   Accuracy       pred (N, C, ...) -> argmax over `axis` (default 1,
//                  first maximum wins), or pred shaped like the label ->
//                  compared as is; counts N (or every element).
//   TopKAccuracy   pred (N, C): a hit when the label is among the top_k
//                  scores (ties broken towards the lower class index);
//                  pred (N) as Accuracy. Counts N. top_k >= 1.
//   CrossEntropy   pred (N, C) probabilities: sum of -log(p[label] + eps)
//                  (eps 1e-12), counts N. Labels must be in [0, C).
//   MSE            mean((label - pred)^2) of each pair added to the sum,
//                  counting one per pair, as MXNet 1.x does; label and
//                  pred must have the same number of elements.
//   MAE, RMSE      as MSE with mean|label - pred| and sqrt(mean((label -
//                  pred)^2)) per pair.
//   F1, MCC        binary classification: pred (N, C) -> argmax over axis 1,
//                  positive when it is 1; a label is positive when it is 1
//                  (at most two distinct labels per pair). Counts of true
//                  and false positives and negatives; "macro" (default)
//                  averages the score of each Update call, "micro" scores
//                  the counts of every call since Reset.
//   Perplexity     exp(-mean log max(1e-10, pred[label])) with the class on
//                  `axis` (default -1), labels clipped into range (MXNet's
//                  pick), entries labelled ignore_label (default -1; none
//                  when unset) left out of the sum and the count.
//   NegativeLogLikelihood  CrossEntropy named "nll-loss".
//   PearsonCorrelation     "macro": the mean of each pair's correlation
//                  (label and pred of equal shape); "micro": one
//                  correlation of every element since Reset.
//   Loss           the mean of the predictions' elements (labels ignored):
//                  a loss output shown as a metric.
#ifndef WEFT_METRIC_H_
#define WEFT_METRIC_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "weft/ndarray.h"
#include "weft/param.h"

namespace weft {

class Metric {
 public:
  explicit Metric(std::string name = "metric");
  virtual ~Metric();
  virtual void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) = 0;
  // Clears the sum and count.
  virtual void Reset();
  // (name, value) pairs; composite metrics give several.
  virtual std::vector<std::pair<std::string, double>> Get() const;
  const std::string& name() const { return name_; }
  double sum_metric() const { return sum_metric_; }
  int64_t num_inst() const { return num_inst_; }

  // By MXNet's registry names (case-insensitive): "acc"/"accuracy" (axis),
  // "top_k_accuracy"/"top_k_acc"/"topkaccuracy" (top_k, default 1),
  // "ce"/"cross-entropy"/"crossentropy" (eps), "mse", "mae", "rmse", "f1"
  // and "mcc" (average: macro|micro), "perplexity" (ignore_label: an
  // integer or None, default -1; axis, default -1),
  // "nll_loss"/"negativeloglikelihood" (eps), "pearsonr"/
  // "pearsoncorrelation" (average), "loss", "composite" (empty). Throws
  // Error(kInvalidArgument) for unknown names or parameters, listing the
  // valid ones.
  static std::unique_ptr<Metric> Create(const std::string& name, const StringMap& params = {});

 protected:
  // Throws Error(kShape) unless labels.size() == preds.size().
  void CheckPairs(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) const;
  // Restores the sum and count on destruction unless Commit() was called,
  // so an Update that throws adds nothing.
  class UpdateGuard {
   public:
    explicit UpdateGuard(Metric* m) : m_(m), sum_(m->sum_metric_), num_(m->num_inst_) {}
    ~UpdateGuard() {
      if (m_) {
        m_->sum_metric_ = sum_;
        m_->num_inst_ = num_;
      }
    }
    void Commit() { m_ = nullptr; }

   private:
    Metric* m_;
    double sum_;
    int64_t num_;
  };

  std::string name_;
  double sum_metric_ = 0;
  int64_t num_inst_ = 0;
};

class Accuracy : public Metric {
 public:
  explicit Accuracy(int axis = 1);
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;

 private:
  int axis_;
};

class TopKAccuracy : public Metric {
 public:
  // Named "top_k_accuracy_<top_k>". REQUIRES: top_k >= 1 (else Error).
  explicit TopKAccuracy(int top_k);
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  int top_k() const { return top_k_; }

 private:
  int top_k_;
};

class CrossEntropy : public Metric {
 public:
  explicit CrossEntropy(double eps = 1e-12);
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;

 protected:
  CrossEntropy(std::string name, double eps);

 private:
  double eps_;
};

// MXNet's NegativeLogLikelihood: CrossEntropy's sum and count, "nll-loss".
class NegativeLogLikelihood : public CrossEntropy {
 public:
  explicit NegativeLogLikelihood(double eps = 1e-12);
};

// MSE, MAE and RMSE: one per-pair error added to the sum per pair.
class MSE : public Metric {
 public:
  MSE();
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

class MAE : public Metric {
 public:
  MAE();
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

class RMSE : public Metric {
 public:
  RMSE();
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

// How F1, MCC and PearsonCorrelation aggregate across Update calls.
enum class MetricAverage { kMacro, kMicro };

// True/false positives/negatives of a binary classification.
struct BinaryCounts {
  int64_t tp = 0, fp = 0, fn = 0, tn = 0;
  int64_t total() const { return tp + fp + fn + tn; }
  // 0 when undefined, as MXNet.
  double Precision() const;
  double Recall() const;
  double FScore() const;
  // (tp * tn - fp * fn) / sqrt of the product of the non-zero marginals
  // (tp+fp, tp+fn, tn+fp, tn+fn); 0 without examples.
  double Matthews() const;
};

// F1 and MCC share the counting (MXNet's _BinaryClassificationMetrics).
class BinaryClassificationMetric : public Metric {
 public:
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  void Reset() override;
  MetricAverage average() const { return average_; }
  const BinaryCounts& counts() const { return counts_; }

 protected:
  BinaryClassificationMetric(std::string name, MetricAverage average);
  virtual double Score(const BinaryCounts& c) const = 0;

 private:
  MetricAverage average_;
  BinaryCounts counts_;  // since Reset in micro; empty in macro, which scores each call's own
};

class F1 : public BinaryClassificationMetric {
 public:
  explicit F1(MetricAverage average = MetricAverage::kMacro);

 protected:
  double Score(const BinaryCounts& c) const override { return c.FScore(); }
};

class MCC : public BinaryClassificationMetric {
 public:
  explicit MCC(MetricAverage average = MetricAverage::kMacro);

 protected:
  double Score(const BinaryCounts& c) const override { return c.Matthews(); }
};

class Perplexity : public Metric {
 public:
  // ignore_label: entries with this label are not counted (none: all are).
  explicit Perplexity(std::optional<int64_t> ignore_label = -1, int axis = -1);
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  // exp(sum / count): the sum holds the negative log-likelihoods.
  std::vector<std::pair<std::string, double>> Get() const override;

 private:
  std::optional<int64_t> ignore_label_;
  int axis_;
};

class PearsonCorrelation : public Metric {
 public:
  explicit PearsonCorrelation(MetricAverage average = MetricAverage::kMacro);
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  void Reset() override;
  std::vector<std::pair<std::string, double>> Get() const override;

  // Running moments of "micro" (Welford's updates over every element).
  struct Moments {
    int64_t n = 0;
    double mean_label = 0, mean_pred = 0, sse_label = 0, sse_pred = 0, co = 0;
  };

 private:
  MetricAverage average_;
  Moments moments_;
};

// MXNet's Loss: the sum of every prediction element over their count.
class Loss : public Metric {
 public:
  Loss();
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
};

// Several metrics updated together; Get() concatenates theirs.
class CompositeMetric : public Metric {
 public:
  CompositeMetric();
  void Add(std::unique_ptr<Metric> m);
  void Update(const std::vector<NDArray>& labels, const std::vector<NDArray>& preds) override;
  void Reset() override;
  std::vector<std::pair<std::string, double>> Get() const override;
  size_t size() const { return metrics_.size(); }
  Metric* at(size_t i) const { return metrics_.at(i).get(); }

 private:
  std::vector<std::unique_ptr<Metric>> metrics_;
};

}  // namespace weft

#endif  // WEFT_METRIC_H_
