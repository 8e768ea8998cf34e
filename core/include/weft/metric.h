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
#ifndef WEFT_METRIC_H_
#define WEFT_METRIC_H_

#include <memory>
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

  // "acc"/"accuracy" (axis), "top_k_accuracy"/"top_k_acc" (top_k, default
  // 1), "ce"/"cross-entropy" (eps), "mse", "composite" (empty). Throws
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

 private:
  double eps_;
};

class MSE : public Metric {
 public:
  MSE();
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
