// Tests of the update operators added for MXNet's other optimizers
// (core/src/op/optimizer_ops_sgd.cc, optimizer_ops_adaptive.cc,
// optimizer_ops_adamw_lamb.cc and their CPU kernels): one call of each
// against NumPy references from scripts/gen_optimizer_refs.py
// (tests/data/op_refs/, in float32 and float64; float16 weights for the
// multi-precision ops), then what the references do not show: in-place
// writes, the multi-precision dtype rules, shapes of the scalar inputs,
// states written under a kNull request, and parameter errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_refs.h"
#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::ExpectError;
using Vec = std::vector<double>;

class UpdateOpRefs : public ::testing::TestWithParam<std::string> {};

TEST_P(UpdateOpRefs, MatchesNumPy) { EXPECT_TRUE(test::CheckOpRef(GetParam())); }

INSTANTIATE_TEST_SUITE_P(
    Ops, UpdateOpRefs,
    ::testing::Values("nag_mom_update_clip_wd_rescale", "signsgd_update_rescale_and_clip_ignored",
                      "signum_update_clip_wd_lh", "mp_sgd_update_float16_clip",
                      "mp_sgd_mom_update_float16_clip", "mp_nag_mom_update_float16_clip",
                      "rmsprop_update_clip_weights", "rmspropalex_update_centered",
                      "ftrl_update_l1_threshold", "adagrad_update_wd_clip_rescale",
                      "adadelta_update_wd_clip_rescale", "_adamw_update_clip_eta",
                      "_adamw_update_zero_rescale_skips", "lamb_update_phase1_bias_correction_t3",
                      "lamb_update_phase1_no_bias_correction", "lamb_update_phase2_bounds",
                      "lamb_update_phase2_zero_r2"),
    [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

NDArray Zeros(const Shape& s, DType dt = DType::kFloat32) {
  return test::Array(s, Vec(static_cast<size_t>(s.Size()), 0.0), dt);
}

TEST(UpdateOps, NewOpsWriteTheWeightInPlace) {
  NDArray w = test::Array({2}, {1.0, -2.0}), g = test::Array({2}, {0.5, 0.25});
  const std::vector<std::pair<std::string, std::vector<NDArray>>> calls = {
      {"nag_mom_update", {w, g, Zeros({2})}},
      {"signum_update", {w, g, Zeros({2})}},
      {"rmsprop_update", {w, g, Zeros({2})}},
      {"ftrl_update", {w, g, Zeros({2}), Zeros({2})}},
      {"adagrad_update", {w, g, Zeros({2})}}};
  for (const auto& [op, in] : calls) {
    std::vector<NDArray> out{w};
    Invoke(&Runtime::Global(), op, in, {{"lr", "0.1"}}, &out);
    EXPECT_EQ(out[0].dptr(), w.dptr()) << op;
  }
  const Vec before = test::Values(w);
  std::vector<NDArray> out{w};
  Invoke(&Runtime::Global(), "adadelta_update", {w, g, Zeros({2}), Zeros({2})}, {}, &out);
  EXPECT_NE(test::Values(w), before);  // no lr: adadelta still steps
}

TEST(UpdateOps, MultiPrecisionTypes) {
  NDArray w16 = test::Array({3}, {1.0, 0.5, -0.25}, DType::kFloat16);
  NDArray g16 = test::Array({3}, {0.5, 0.5, 0.5}, DType::kFloat16);
  NDArray w32 = test::Array({3}, {1.0, 0.5, -0.25});
  // float32 weights work too (the master copy is then redundant).
  NDArray w = test::Array({3}, {1.0, 0.5, -0.25});
  test::Run("mp_sgd_update", {w, test::Array({3}, {0.5, 0.5, 0.5}), w32}, {{"lr", "0.1"}});
  EXPECT_EQ(test::Values(w32),
            (Vec{static_cast<float>(1.0 - 0.1f * 0.5f), static_cast<float>(0.5 - 0.1f * 0.5f),
                 static_cast<float>(-0.25 - 0.1f * 0.5f)}));
  // The master copy must be float32, the gradient of the weight's dtype.
  ExpectError(
      [&] {
        test::Run("mp_sgd_update", {w16, g16, w16}, {{"lr", "0.1"}});
      },
      StatusCode::kDType, {"weight32", "float32", "float16"});
  ExpectError(
      [&] {
        test::Run("mp_sgd_update", {w16, w32, w32}, {{"lr", "0.1"}});
      },
      StatusCode::kDType, {"grad", "float16", "float32"});
  NDArray wi = test::Array({3}, {1, 2, 3}, DType::kInt32);
  ExpectError(
      [&] {
        test::Run("mp_sgd_update", {wi, wi, w32}, {{"lr", "0.1"}});
      },
      StatusCode::kDType, {"int32", "float16, float32 or float64"});
  // The plain updates have no float16 kernels, and a float32 copy cannot
  // stand in for a weight updated in place: a clear dtype error.
  ExpectError(
      [&] {
        test::Run("nag_mom_update", {w16, g16, w16}, {{"lr", "0.1"}});
      },
      StatusCode::kDType, {"nag_mom_update", "float16", "updated in place", "float32 or float64"});
}

TEST(UpdateOps, ScalarInputsHaveOneElement) {
  NDArray w = test::Array({2, 2}, {1, 2, 3, 4}), g = test::Array({2, 2}, {1, 1, 1, 1});
  ExpectError(
      [&] {
        test::Run("lamb_update_phase2", {w, g, test::Array({2}, {1, 1}), test::Array({1}, {1})},
                  {{"lr", "0.1"}});
      },
      StatusCode::kShape, {"r1", "(1,)", "(2,)"});
  ExpectError(
      [&] {
        test::Run("_adamw_update",
                  {w, g, Zeros({2, 2}), Zeros({2, 2}), test::Array({1}, {1}, DType::kFloat64)},
                  {{"lr", "1"}, {"eta", "0.1"}});
      },
      StatusCode::kDType, {"rescale_grad", "float32", "float64"});
  // adamw_update is an alias of MXNet's _adamw_update.
  NDArray mean = Zeros({2, 2}), var = Zeros({2, 2});
  std::vector<NDArray> out = test::Run("adamw_update", {w, g, mean, var, test::Array({1}, {0.5})},
                                       {{"lr", "1"}, {"eta", "0.1"}});
  EXPECT_NEAR(test::Values(mean)[0], (1 - 0.9f) * 0.5f, 1e-7);
}

// Phase 1 returns a new array and only reads the weight.
TEST(UpdateOps, LambPhase1LeavesTheWeight) {
  NDArray w = test::Array({2}, {1.0, -1.0}), g = test::Array({2}, {0.5, 0.5});
  NDArray mean = Zeros({2}), var = Zeros({2});
  std::vector<NDArray> out =
      test::Run("lamb_update_phase1", {w, g, mean, var}, {{"t", "1"}, {"wd", "0"}});
  EXPECT_NE(out[0].dptr(), w.dptr());
  EXPECT_EQ(test::Values(w), (Vec{1.0, -1.0}));
  // t = 1, bias corrected: mean_hat = g, var_hat = g^2, so g / (|g| + eps).
  EXPECT_NEAR(test::Values(out[0])[0], 0.5 / (0.5 + 1e-6), 1e-6);
  ExpectError(
      [&] {
        test::Run("lamb_update_phase1", {w, g, mean, var}, {{"wd", "0"}});
      },
      StatusCode::kInvalidArgument, {"'t'"});
  ExpectError(
      [&] {
        test::Run("lamb_update_phase1", {w, g, mean, var}, {{"t", "0"}, {"wd", "0"}});
      },
      StatusCode::kInvalidArgument, {"t"});
}

// Without a written output (kNull) the states still advance.
TEST(UpdateOps, NullRequestStillUpdatesStates) {
  NDArray w = test::Array({2}, {1.0, -1.0}), g = test::Array({2}, {0.5, 0.5});
  for (const char* op : {"rmsprop_update", "adagrad_update", "nag_mom_update"}) {
    NDArray s = Zeros({2});
    std::vector<NDArray> out{Zeros({2})};
    InvokeOptions opts;
    opts.reqs = {OpReq::kNull};
    Invoke(&Runtime::Global(), op, {w, g, s}, {{"lr", "0.1"}}, &out, opts);
    EXPECT_NE(test::Values(s), (Vec{0.0, 0.0})) << op;
    EXPECT_EQ(test::Values(out[0]), (Vec{0.0, 0.0})) << op;
  }
}

TEST(UpdateOps, NewOpsParameterErrors) {
  NDArray w = test::Array({2}, {1, 2}), g = test::Array({2}, {1, 1}), s = Zeros({2});
  ExpectError(
      [&] {
        test::Run("rmsprop_update", {w, g, s}, {{"gamma1", "0.9"}});
      },
      StatusCode::kInvalidArgument, {"lr", "missing"});
  ExpectError(
      [&] {
        test::Run("adadelta_update", {w, g, s, s}, {{"lr", "0.1"}});
      },
      StatusCode::kInvalidArgument, {"lr"});
  ExpectError(
      [&] {
        test::Run("ftrl_update", {w, g, s, s}, {{"lr", "0.1"}, {"beta", "inf"}});
      },
      StatusCode::kInvalidArgument, {"beta"});
  ExpectError(
      [&] {
        test::Run("_adamw_update", {w, g, s, s, test::Array({1}, {1})}, {{"lr", "1"}});
      },
      StatusCode::kInvalidArgument, {"eta"});
  ExpectError(
      [&] {
        test::Run("signum_update", {w, g, s}, {{"lr", "0.1"}, {"wd_lh", "x"}});
      },
      StatusCode::kInvalidArgument, {"wd_lh", "x"});
}

}  // namespace
}  // namespace weft
