// Helpers for the inference pass tests: binding a symbol with random
// weights and non-trivial BatchNorm statistics, optimised or not.
#ifndef WEFT_TESTS_CORE_PASS_INFERENCE_TEST_UTIL_H_
#define WEFT_TESTS_CORE_PASS_INFERENCE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/executor.h"

namespace weft {
namespace test {

inline Symbol Apply(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
                    const std::string& name) {
  return Symbol::Apply(Runtime::Global().ops(), op, in, p, name);
}

// Binds `y` for inference (no gradients) with `shapes`, with or without the
// inference passes.
inline std::unique_ptr<Executor> BindInference(const Symbol& y, const pass::ShapeMap& shapes,
                                               bool optimize) {
  ExecutorOptions o;
  o.optimize_inference = optimize;
  return Executor::SimpleBind(&Runtime::Global(), y, Context::CPU(0), shapes, {},
                              GradReqSpec::All(GradReq::kNull), o);
}

// Fills every argument and aux state of `ex` with seeded random values:
// moving variances in [0.5, 2], other aux states and rank-1 arguments in
// [-1, 1], arguments of rank >= 2 (weights, data) uniform with variance
// 1 / fan-in (fan-in: the size over the first extent), so that deep models
// keep activations of order one.
inline void FillRandom(Executor* ex, unsigned seed) {
  for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    double r = 1;
    if (a.shape().ndim() >= 2 && a.shape()[0] > 0)
      r = std::sqrt(3.0 * a.shape()[0] / a.shape().Size());
    RandomArray(a.shape(), a.dtype(), -r, r, seed + static_cast<unsigned>(i)).CopyTo(&a);
  }
  for (size_t i = 0; i < ex->aux_arrays().size(); ++i) {
    NDArray a = ex->aux_arrays()[i];
    const bool var = ex->aux_names()[i].find("var") != std::string::npos;
    RandomArray(a.shape(), a.dtype(), var ? 0.5 : -1, var ? 2 : 1,
                seed + 1000 + static_cast<unsigned>(i))
        .CopyTo(&a);
  }
}

// Copies every bound array of `from` into `to` (same symbol).
inline void CopyArrays(const Executor& from, Executor* to) {
  for (size_t i = 0; i < from.arg_arrays().size(); ++i) {
    NDArray dst = to->arg_arrays()[i];
    from.arg_arrays()[i].CopyTo(&dst);
  }
  for (size_t i = 0; i < from.aux_arrays().size(); ++i) {
    NDArray dst = to->aux_arrays()[i];
    from.aux_arrays()[i].CopyTo(&dst);
  }
}

// The largest |a - b| / (1 + |b|) over every output; fails on shape mismatches.
inline double MaxRelDiff(const Executor& a, const Executor& b) {
  double worst = 0;
  EXPECT_EQ(a.outputs().size(), b.outputs().size());
  for (size_t i = 0; i < a.outputs().size() && i < b.outputs().size(); ++i) {
    std::vector<double> x = Values(a.outputs()[i]), y = Values(b.outputs()[i]);
    EXPECT_EQ(x.size(), y.size());
    for (size_t j = 0; j < x.size() && j < y.size(); ++j)
      worst = std::max(worst, std::abs(x[j] - y[j]) / (1 + std::abs(y[j])));
  }
  return worst;
}

// Binds `y` both ways with the same random arrays, runs an inference
// forward on each and returns MaxRelDiff; `optimized` receives the
// optimised executor when not null.
inline double CompareOptimized(const Symbol& y, const pass::ShapeMap& shapes, unsigned seed,
                               std::unique_ptr<Executor>* optimized = nullptr) {
  auto on = BindInference(y, shapes, true);
  auto off = BindInference(y, shapes, false);
  FillRandom(off.get(), seed);
  CopyArrays(*off, on.get());
  on->Forward(false);
  off->Forward(false);
  const double d = MaxRelDiff(*on, *off);
  if (optimized) *optimized = std::move(on);
  return d;
}

// The op names of `g`'s nodes, in order (variables omitted).
inline std::vector<std::string> OpNames(const Graph& g) {
  IndexedGraph idx(g);
  std::vector<std::string> ops;
  for (uint32_t nid = 0; nid < idx.num_nodes(); ++nid)
    if (!idx.node(nid).is_variable()) ops.push_back(idx.node(nid).op()->name);
  return ops;
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_PASS_INFERENCE_TEST_UTIL_H_
