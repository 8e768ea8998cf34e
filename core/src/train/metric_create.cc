// Metric::Create: MXNet's metric registry names and parameters (metric.py).
#include <functional>
#include <string>
#include <vector>

#include "metric_util.h"
#include "train_params.h"
#include "weft/metric.h"
#include "weft/status.h"

namespace weft {

namespace {

using metric_util::ParseInt;
using metric_util::ParseNumber;

// One registry entry: its names (the first is listed in errors), its
// parameter keys, and how to build it from the parameter texts.
struct MetricEntry {
  std::vector<const char*> names;
  std::vector<const char*> keys;
  std::function<std::unique_ptr<Metric>(const std::string& name, const StringMap& params)> make;
};

const std::string* Find(const StringMap& params, const char* key) {
  auto it = params.find(key);
  return it == params.end() ? nullptr : &it->second;
}

double NumberOr(const std::string& metric, const StringMap& params, const char* key, double def) {
  const std::string* v = Find(params, key);
  return v ? ParseNumber(metric, key, *v) : def;
}

int IntOr(const std::string& metric, const StringMap& params, const char* key, int def) {
  const std::string* v = Find(params, key);
  return v ? ParseInt(metric, key, *v) : def;
}

// MXNet's average: "macro" (default) or "micro" (quotes allowed).
MetricAverage Average(const std::string& metric, const StringMap& params) {
  const std::string* v = Find(params, "average");
  if (!v) return MetricAverage::kMacro;
  std::string s = *v;
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    s = s.substr(1, s.size() - 2);
  if (s == "macro") return MetricAverage::kMacro;
  if (s == "micro") return MetricAverage::kMicro;
  Fail(StatusCode::kInvalidArgument, "metric ", metric, ": parameter average: expected 'macro' or ",
       "'micro', given '", *v, "'");
}

// ignore_label: an integer, or None for no ignored label; -1 by default (the
// value MXNet's documentation gives; its constructor requires the argument).
std::optional<int64_t> IgnoreLabel(const std::string& metric, const StringMap& params) {
  const std::string* v = Find(params, "ignore_label");
  if (!v) return -1;
  if (*v == "None" || *v == "none" || *v == "null") return std::nullopt;
  return ParseInt(metric, "ignore_label", *v);
}

const std::vector<MetricEntry>& Registry() {
  static const std::vector<MetricEntry> entries = {
      {{"acc", "accuracy"},
       {"axis"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<Accuracy>(IntOr(n, p, "axis", 1));
       }},
      {{"top_k_accuracy", "top_k_acc", "topkaccuracy"},
       {"top_k"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<TopKAccuracy>(IntOr(n, p, "top_k", 1));
       }},
      {{"ce", "cross-entropy", "crossentropy"},
       {"eps"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<CrossEntropy>(NumberOr(n, p, "eps", 1e-12));
       }},
      {{"nll_loss", "negativeloglikelihood"},
       {"eps"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<NegativeLogLikelihood>(NumberOr(n, p, "eps", 1e-12));
       }},
      {{"mse"}, {}, [](const std::string&, const StringMap&) { return std::make_unique<MSE>(); }},
      {{"mae"}, {}, [](const std::string&, const StringMap&) { return std::make_unique<MAE>(); }},
      {{"rmse"}, {}, [](const std::string&, const StringMap&) { return std::make_unique<RMSE>(); }},
      {{"f1"},
       {"average"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<F1>(Average(n, p));
       }},
      {{"mcc"},
       {"average"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<MCC>(Average(n, p));
       }},
      {{"perplexity"},
       {"ignore_label", "axis"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<Perplexity>(IgnoreLabel(n, p), IntOr(n, p, "axis", -1));
       }},
      {{"pearsonr", "pearsoncorrelation"},
       {"average"},
       [](const std::string& n, const StringMap& p) {
         return std::make_unique<PearsonCorrelation>(Average(n, p));
       }},
      {{"loss"}, {}, [](const std::string&, const StringMap&) { return std::make_unique<Loss>(); }},
      {{"composite", "compositeevalmetric"},
       {},
       [](const std::string&, const StringMap&) { return std::make_unique<CompositeMetric>(); }},
  };
  return entries;
}

}  // namespace

std::unique_ptr<Metric> Metric::Create(const std::string& name, const StringMap& params) {
  const std::string key = train::Lower(name);
  std::string all;
  for (const MetricEntry& e : Registry()) {
    for (const char* n : e.names) {
      all += (all.empty() ? "" : ", ") + std::string(n);
      if (key != n) continue;
      metric_util::CheckKeys(name, params, e.keys);
      return e.make(name, params);
    }
  }
  Fail(StatusCode::kInvalidArgument, "metric: unknown name '", name, "' (expected one of ", all,
       ")");
}

}  // namespace weft
