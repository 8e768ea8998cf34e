// Every optimizer of weft/optimizer.h over several steps against NumPy
// references of MXNet's formulas (scripts/gen_optimizer_refs.py, stored in
// tests/data/optimizer_refs/optimizers.json): weight decay, gradient
// clipping, rescale_grad, momentum, per-step learning rates (LARS's
// momentum correction), begin_num_update (Adam's bias correction), and the
// multi-precision path with float16 weights. Float32/float64 cases run in
// both dtypes; float16 cases compare the weight and the float32 states.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"
#include "weft/optimizer.h"

namespace weft {
namespace {

using Vec = std::vector<double>;

nlohmann::json LoadCases() {
  const std::string path = test::TestDataDir() + "/optimizer_refs/optimizers.json";
  std::ifstream f(path);
  if (!f) ADD_FAILURE() << "cannot open " << path;
  nlohmann::json root;
  f >> root;
  return root.at("cases");
}

std::pair<double, double> Tol(const nlohmann::json& c, DType dt) {
  const auto& t = c.at("tol").at(DTypeName(dt));
  return {t.at(0).get<double>(), t.at(1).get<double>()};
}

::testing::AssertionResult Near(const NDArray& got, const Vec& want, const Shape& shape,
                                std::pair<double, double> tol) {
  test::RefArray r;
  r.shape = shape;
  r.data = want;
  return test::ArrayNear(got, r, tol.first, tol.second);
}

// Runs case `c` with weights of `dt`; stops at the first weight mismatch.
void RunCase(const nlohmann::json& c, DType dt) {
  const std::string label = c.at("name").get<std::string>() + " (" + DTypeName(dt) + ")";
  StringMap params;
  for (const auto& [k, v] : c.at("params").items()) params[k] = v.get<std::string>();
  auto opt = Optimizer::Create(c.at("optimizer").get<std::string>(), params);
  const Shape shape(c.at("shape").get<std::vector<int64_t>>());
  const std::string name = c.at("param_name").get<std::string>();
  const bool mp = dt == DType::kFloat16;
  NDArray w = test::Array(shape, c.at("weight").get<Vec>(), dt);
  const auto& steps = c.at("steps");
  for (size_t k = 0; k < steps.size(); ++k) {
    if (c.contains("learning_rates"))
      opt->set_learning_rate(c.at("learning_rates").at(k).get<float>());
    opt->Update(3, name, &w, test::Array(shape, steps[k].at("grad").get<Vec>(), dt));
    auto res = Near(w, steps[k].at("weight").get<Vec>(), shape, Tol(c, dt));
    ASSERT_TRUE(res) << label << ", weight after step " << k + 1 << ": " << res.message();
  }
  const auto& states = c.at("states");
  ASSERT_EQ(opt->states(3).size(), states.size()) << label;
  for (size_t j = 0; j < states.size(); ++j) {
    EXPECT_EQ(opt->states(3)[j].dtype(), mp ? DType::kFloat32 : dt) << label << " state " << j;
    auto res =
        Near(opt->states(3)[j], states[j].get<Vec>(), shape, Tol(c, mp ? DType::kFloat32 : dt));
    EXPECT_TRUE(res) << label << ", state " << j << ": " << res.message();
  }
  EXPECT_EQ(opt->num_update(), c.at("num_update").get<int64_t>()) << label;
  EXPECT_EQ(opt->update_count(3), c.at("num_update").get<int64_t>()) << label;
}

TEST(OptimizerRefs, EveryCaseMatchesNumPy) {
  const nlohmann::json cases = LoadCases();
  ASSERT_GE(cases.size(), 20u);
  std::set<std::string> covered;
  for (const auto& c : cases) {
    covered.insert(c.at("optimizer").get<std::string>());
    if (c.at("weight_dtype") == "float16") {
      RunCase(c, DType::kFloat16);
    } else {
      RunCase(c, DType::kFloat64);
      RunCase(c, DType::kFloat32);
    }
  }
  // Each optimizer Create knows has a reference case.
  for (const char* n : {"sgd", "nag", "signum", "lars", "adam", "adamw", "lamb", "rmsprop",
                        "adagrad", "adadelta", "ftrl"})
    EXPECT_TRUE(covered.count(n)) << n << " has no case in optimizers.json";
}

}  // namespace
}  // namespace weft
