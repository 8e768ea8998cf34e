// Tests of the optimizer update ops (core/src/op/optimizer_ops.cc and
// kernels/cpu/optimizer_ops.cc): several steps against the closed forms
// recomputed here in double, clipping, weight decay, rescaling, float32 and
// float64, in-place writes, state mutation ordered by the engine, errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace {

using Vec = std::vector<double>;

// Parameters go to the ops as float, as in MXNet.
double F(double v) { return static_cast<double>(static_cast<float>(v)); }

double ClipRef(double x, double c) { return c >= 0 ? std::min(std::max(x, -c), c) : x; }

void ExpectNear(const Vec& got, const Vec& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::fabs(want[i])))
        << what << " element " << i;
}

double Tol(DType t) { return t == DType::kFloat64 ? 1e-12 : 2e-6; }

// Runs `op` writing the weight in place; returns the weight array.
void Step(const std::string& op, const std::vector<NDArray>& in, const StringMap& p) {
  std::vector<NDArray> out{in[0]};
  Invoke(&Runtime::Global(), op, in, p, &out);
}

const Vec kW0 = {0.5, -1.25, 2.0, 0.0, -3.5, 1.0};
// Gradients of three steps; some exceed the clip bound after rescaling.
const std::vector<Vec> kGrads = {{0.4, -0.8, 3.0, -5.0, 0.1, 0.0},
                                 {-1.2, 0.6, 0.2, 2.4, -7.0, 0.3},
                                 {0.05, 4.0, -0.9, 0.0, 1.5, -2.5}};

class UpdateOps : public ::testing::TestWithParam<DType> {};

TEST_P(UpdateOps, SGDStepsWithWdRescaleAndClip) {
  const DType dt = GetParam();
  for (double clip : {-1.0, 1.0}) {
    const double lr = 0.1, wd = 0.05, rescale = 0.5;
    NDArray w = test::Array({2, 3}, kW0, dt);
    Vec ref = kW0;
    for (const Vec& g : kGrads) {
      Step("sgd_update", {w, test::Array({2, 3}, g, dt)},
           {{"lr", "0.1"},
            {"wd", "0.05"},
            {"rescale_grad", "0.5"},
            {"clip_gradient", std::to_string(clip)}});
      for (size_t i = 0; i < ref.size(); ++i)
        ref[i] = (1 - F(lr) * F(wd)) * ref[i] - F(lr) * ClipRef(F(rescale) * g[i], clip);
    }
    ExpectNear(test::Values(w), ref, 3 * Tol(dt), "sgd clip=" + std::to_string(clip));
  }
}

TEST_P(UpdateOps, SGDMomentumStepsUpdateStateAndWeight) {
  const DType dt = GetParam();
  for (double clip : {-1.0, 0.75}) {
    const double lr = 0.2, wd = 0.01, rescale = 2.0, momentum = 0.9;
    NDArray w = test::Array({6}, kW0, dt);
    NDArray mom = test::Array({6}, Vec(6, 0.0), dt);
    Vec rw = kW0, rm(6, 0.0);
    for (const Vec& g : kGrads) {
      Step("sgd_mom_update", {w, test::Array({6}, g, dt), mom},
           {{"lr", "0.2"},
            {"wd", "0.01"},
            {"rescale_grad", "2"},
            {"momentum", "0.9"},
            {"clip_gradient", std::to_string(clip)}});
      for (size_t i = 0; i < rw.size(); ++i) {
        rm[i] =
            F(momentum) * rm[i] - F(lr) * F(wd) * rw[i] - F(lr) * ClipRef(F(rescale) * g[i], clip);
        rw[i] += rm[i];
      }
    }
    ExpectNear(test::Values(mom), rm, 10 * Tol(dt), "mom clip=" + std::to_string(clip));
    ExpectNear(test::Values(w), rw, 10 * Tol(dt), "weight clip=" + std::to_string(clip));
  }
}

TEST_P(UpdateOps, AdamStepsMatchClosedForm) {
  const DType dt = GetParam();
  for (double clip : {-1.0, 1.5}) {
    const double lr = 0.01, b1 = 0.8, b2 = 0.99, eps = 1e-3, wd = 0.1, rescale = 0.5;
    NDArray w = test::Array({3, 2}, kW0, dt);
    NDArray mean = test::Array({3, 2}, Vec(6, 0.0), dt), var = test::Array({3, 2}, Vec(6, 0.0), dt);
    Vec rw = kW0, rm(6, 0.0), rv(6, 0.0);
    for (const Vec& g : kGrads) {
      Step("adam_update", {w, test::Array({3, 2}, g, dt), mean, var},
           {{"lr", "0.01"},
            {"beta1", "0.8"},
            {"beta2", "0.99"},
            {"epsilon", "1e-3"},
            {"wd", "0.1"},
            {"rescale_grad", "0.5"},
            {"clip_gradient", std::to_string(clip)}});
      for (size_t i = 0; i < rw.size(); ++i) {
        const double gi = ClipRef(F(rescale) * g[i] + F(wd) * rw[i], clip);
        rm[i] = F(b1) * rm[i] + (1 - F(b1)) * gi;
        rv[i] = F(b2) * rv[i] + (1 - F(b2)) * gi * gi;
        rw[i] -= F(lr) * rm[i] / (std::sqrt(rv[i]) + F(eps));
      }
    }
    ExpectNear(test::Values(mean), rm, 10 * Tol(dt), "mean clip=" + std::to_string(clip));
    ExpectNear(test::Values(var), rv, 10 * Tol(dt), "var clip=" + std::to_string(clip));
    ExpectNear(test::Values(w), rw, 10 * Tol(dt), "weight clip=" + std::to_string(clip));
  }
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, UpdateOps, ::testing::Values(DType::kFloat32, DType::kFloat64),
                         [](const ::testing::TestParamInfo<DType>& i) {
                           return std::string(DTypeName(i.param));
                         });

TEST(UpdateOps, OutputIsWrittenInPlaceAndDefaultsApply) {
  // Without an explicit output the op allocates one and leaves weight as is.
  NDArray w = test::Array({2}, {1.0, 2.0});
  NDArray g = test::Array({2}, {0.5, -0.5});
  std::vector<NDArray> out = test::Run("sgd_update", {w, g}, {{"lr", "0.5"}});
  ExpectNear(test::Values(out[0]), {0.75, 2.25}, 1e-7, "allocated output");
  ExpectNear(test::Values(w), {1.0, 2.0}, 0, "weight untouched");
  // In place: the output is the weight's storage.
  std::vector<NDArray> inplace{w};
  Invoke(&Runtime::Global(), "sgd_update", {w, g}, {{"lr", "0.5"}}, &inplace);
  EXPECT_EQ(inplace[0].dptr(), w.dptr());
  ExpectNear(test::Values(w), {0.75, 2.25}, 1e-7, "in place");
}

TEST(UpdateOps, StatesAreDeclaredMutatedAndNamed) {
  const OpRegistry& reg = Runtime::Global().ops();
  ParamValues p;
  EXPECT_FALSE(reg.Get("sgd_update").mutate_inputs(p).size());
  EXPECT_EQ(reg.Get("sgd_mom_update").mutate_inputs(p), (std::vector<int>{2}));
  EXPECT_EQ(reg.Get("adam_update").mutate_inputs(p), (std::vector<int>{2, 3}));
  EXPECT_EQ(reg.Get("adam_update").InputNames(p),
            (std::vector<std::string>{"weight", "grad", "mean", "var"}));
  // A symbol using the op lists the state as an auxiliary state.
  Symbol s = Symbol::CreateAtomic(Runtime::Global().ops(), "sgd_mom_update", {{"lr", "0.1"}});
  s.Compose({Symbol::CreateVariable("w"), Symbol::CreateVariable("g"), Symbol::CreateVariable("m")},
            {}, "upd");
  EXPECT_EQ(s.ListAuxiliaryStates(), (std::vector<std::string>{"m"}));
}

// Many updates pushed back to back on a large array, then the state read
// at once: correct only when the engine orders the state as a write of
// every update (mutated inputs are engine writes).
TEST(UpdateOps, MutatedStatesAreOrderedByTheEngine) {
  const int64_t n = 1 << 18;
  NDArray w = test::Array({n}, Vec(n, 1.0));
  NDArray g = test::Array({n}, Vec(n, 1.0));
  NDArray mean = test::Array({n}, Vec(n, 0.0)), var = test::Array({n}, Vec(n, 0.0));
  NDArray mom = test::Array({n}, Vec(n, 0.0));
  const int steps = 20;
  for (int k = 0; k < steps; ++k) {
    Step("sgd_mom_update", {w, g, mom}, {{"lr", "0.5"}, {"momentum", "0.5"}});
    Step("adam_update", {w, g, mean, var}, {{"lr", "0"}, {"beta1", "0.5"}, {"beta2", "0.5"}});
  }
  // mom_k = 0.5 mom_{k-1} - 0.5 -> -(1 - 0.5^k); mean_k, var_k -> 1 - 0.5^k.
  std::vector<float> m(n), a(n);
  mom.CopyToHost(m.data(), n * sizeof(float));
  mean.CopyToHost(a.data(), n * sizeof(float));
  const double want = 1 - std::pow(0.5, steps);
  EXPECT_NEAR(m[0], -want, 1e-6);
  EXPECT_NEAR(m[n - 1], -want, 1e-6);
  EXPECT_NEAR(a[n / 2], want, 1e-6);
}

using test::ExpectError;

TEST(UpdateOps, Errors) {
  NDArray w = test::Array({2, 3}, kW0);
  NDArray g = test::Array({2, 3}, kW0);
  StringMap p{{"lr", "0.1"}};
  ExpectError(
      [&] {
        test::Run("sgd_update", {w, test::Array({3, 2}, kW0)}, p);
      },
      StatusCode::kShape, {"sgd_update", "grad"});
  ExpectError(
      [&] {
        test::Run("sgd_mom_update", {w, g, test::Array({6}, kW0)}, p);
      },
      StatusCode::kShape, {"sgd_mom_update", "mom"});
  ExpectError(
      [&] {
        test::Run("adam_update", {w, g, w, test::Array({2, 3}, kW0, DType::kFloat64)}, p);
      },
      StatusCode::kDType, {"adam_update"});
  ExpectError(
      [&] {
        test::Run("sgd_update", {w, g}, {});
      },
      StatusCode::kInvalidArgument, {"lr", "missing"});
  ExpectError(
      [&] {
        test::Run("sgd_update", {w, g}, {{"lr", "nan"}});
      },
      StatusCode::kInvalidArgument, {"lr"});
  ExpectError(
      [&] {
        test::Run("sgd_update", {w, g}, {{"lr", "0.1"}, {"bogus", "1"}});
      },
      StatusCode::kInvalidArgument, {"bogus"});
  ExpectError(
      [&] {
        test::Run("sgd_mom_update", {w, g, g}, {{"lr", "0.1"}, {"momentum", "-0.5"}});
      },
      StatusCode::kInvalidArgument, {"momentum", "-0.5"});
  // Above 1 is accepted, as in MXNet: LARS's momentum correction passes
  // momentum * lr_t / lr_{t-1}.
  test::Run("sgd_mom_update", {w, g, test::Array({2, 3}, Vec(6, 0.0))},
            {{"lr", "0.1"}, {"momentum", "1.5"}});
  ExpectError(
      [&] {
        test::Run("adam_update", {w, g, g, g}, {{"lr", "0.1"}, {"beta1", "-0.1"}});
      },
      StatusCode::kInvalidArgument, {"beta1"});
  ExpectError(
      [&] {
        test::Run("adam_update", {w, g, g, g}, {{"lr", "0.1"}, {"epsilon", "-1"}});
      },
      StatusCode::kInvalidArgument, {"epsilon"});
  ExpectError([&] { test::Run("sgd_update", {w}, p); }, StatusCode::kInvalidArgument,
              {"expected 2 input"});
  NDArray wi = test::Array({2}, {1, 2}, DType::kInt32);
  ExpectError(
      [&] {
        test::Run("sgd_update", {wi, wi}, p);
      },
      StatusCode::kDType, {"int32", "float32 or float64"});
}

}  // namespace
}  // namespace weft
