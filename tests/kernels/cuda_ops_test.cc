// The CUDA kernels of the optimizer updates, the reductions, dot/batch_dot,
// transpose, Concat/SliceChannel, Dropout and Embedding against the CPU
// kernels on the same inputs (float32 rtol 1e-4, float64 rtol 1e-10, write
// and add requests, gradients too), and Dropout's own properties on the
// GPU (its numbers come from another generator than the CPU's): the drop
// rate, the scale, masks broadcast over `axes`, reproducibility after
// Runtime::Seed. Skipped without a CUDA device; builds without CUDA.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cuda_test_util.h"

namespace weft {
namespace {

using test::Compare;
using test::CompareArrays;
using test::CompareBackward;
using test::In;

bool NoGpu() { return test::GpuCount() == 0; }

// Backward inputs (ograd, data) and (ograd, data, out).
std::vector<NDArray> OgradData(const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
  return {og, x[0]};
}
std::vector<NDArray> OgradDataOut(const NDArray& og, const std::vector<NDArray>& x,
                                  const std::vector<NDArray>& y) {
  return {og, x[0], y[0]};
}
std::vector<NDArray> OgradInputs(const NDArray& og, const std::vector<NDArray>& x, const std::vector<NDArray>&) {
  std::vector<NDArray> in = {og};
  in.insert(in.end(), x.begin(), x.end());
  return in;
}

TEST(CudaOps, OptimizerUpdates) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape s{37, 29};
  const StringMap base = {{"lr", "0.1"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}};
  for (const char* clip : {"-1", "0.3"}) {
    StringMap p = base;
    p["clip_gradient"] = clip;
    Compare("sgd_update", {{s}, {s, -2, 2}}, p);
    p["momentum"] = "0.9";
    Compare("sgd_mom_update", {{s}, {s, -2, 2}, {s}}, p);
    StringMap a = base;
    a["clip_gradient"] = clip;
    a["beta1"] = "0.8";
    a["epsilon"] = "1e-6";
    Compare("adam_update", {{s}, {s, -2, 2}, {s}, {s, 0, 1}}, a);
  }
}

TEST(CudaOps, ReductionsAndGradients) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const std::vector<StringMap> axes = {
      {},
      {{"axis", "1"}},
      {{"axis", "(0,2)"}},
      {{"axis", "(1,)"}, {"exclude", "True"}},
      {{"axis", "-1"}, {"keepdims", "True"}},
  };
  const std::vector<In> data = {{{3, 4, 5}, 0.5, 1.5}};
  for (const char* op : {"sum", "mean", "max", "min", "prod", "nansum", "nanprod"}) {
    const bool with_out = std::string(op) != "sum" && std::string(op) != "mean";
    for (const StringMap& p : axes) {
      Compare(op, data, p);
      CompareBackward(op, std::string("_backward_") + op, data, p, false, with_out ? OgradDataOut : OgradData);
    }
  }
  for (const char* ord : {"1", "2"}) {
    const StringMap p = {{"ord", ord}, {"axis", "1"}};
    const std::vector<In> signed_data = {{{3, 4, 5}, -1, 1}};
    Compare("norm", signed_data, p);
    CompareBackward("norm", "_backward_norm", signed_data, p, false, OgradDataOut);
  }
  // Long reductions (every thread of a block busy) over the inner and the
  // outer axis, and over everything.
  for (const StringMap& p : std::vector<StringMap>{{{"axis", "1"}}, {{"axis", "0"}}, {}}) {
    Compare("sum", {{{6, 3001}}}, p);
    Compare("max", {{{3001, 6}}}, p);
    CompareBackward("mean", "_backward_mean", {{{6, 3001}}}, p, false, OgradData);
  }
}

TEST(CudaOps, DotAndBatchDot) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* op;
    std::vector<In> in;
    StringMap p;
  };
  const std::vector<Case> cases = {
      {"dot", {{{3, 4}}, {{4, 5}}}, {}},
      {"dot", {{{4, 3}}, {{4, 5}}}, {{"transpose_a", "True"}}},
      {"dot", {{{3, 4}}, {{5, 4}}}, {{"transpose_b", "True"}}},
      {"dot", {{{4, 3}}, {{5, 4}}}, {{"transpose_a", "True"}, {"transpose_b", "True"}}},
      {"dot", {{{7}}, {{7}}}, {}},
      {"dot", {{{2, 3, 4}}, {{4, 5, 2}}}, {}},
      {"batch_dot", {{{3, 2, 4}}, {{3, 4, 5}}}, {}},
      {"batch_dot", {{{3, 4, 2}}, {{3, 5, 4}}}, {{"transpose_a", "True"}, {"transpose_b", "True"}}},
      {"batch_dot", {{{2, 3, 2, 4}}, {{2, 3, 4, 5}}}, {}},
  };
  for (const Case& c : cases) {
    Compare(c.op, c.in, c.p);
    CompareBackward(c.op, std::string("_backward_") + c.op, c.in, c.p, false, OgradInputs);
  }
}

TEST(CudaOps, TransposeConcatSliceChannel) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  Compare("transpose", {{{2, 3, 4}}}, {});
  Compare("transpose", {{{2, 3, 4}}}, {{"axes", "(1,0,2)"}});
  Compare("transpose", {{{2, 3, 4, 5}}}, {{"axes", "(3,1,0,2)"}});
  Compare("transpose", {{{6, 7}}}, {{"axes", "(1,0)"}});
  const std::vector<std::pair<std::vector<In>, StringMap>> joins = {
      {{{{2, 3, 4}}, {{2, 5, 4}}}, {{"dim", "1"}, {"num_args", "2"}}},
      {{{{1, 3, 4}}, {{2, 3, 4}}, {{3, 3, 4}}}, {{"dim", "0"}, {"num_args", "3"}}},
      {{{{2, 3, 1}}, {{2, 3, 4}}}, {{"dim", "-1"}, {"num_args", "2"}}},
  };
  for (const auto& [in, p] : joins) {
    Compare("Concat", in, p);
    CompareBackward("Concat", "_backward_Concat", in, p, false, OgradInputs);
  }
  Compare("SliceChannel", {{{2, 6, 4}}}, {{"num_outputs", "3"}, {"axis", "1"}});
  Compare("SliceChannel", {{{2, 3, 4}}}, {{"num_outputs", "3"}, {"axis", "1"}, {"squeeze_axis", "True"}});
  Compare("SliceChannel", {{{4, 3}}}, {{"num_outputs", "2"}, {"axis", "0"}});
}

TEST(CudaOps, EmbeddingWithClippedIndices) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  // Float indices in [-1, 7): truncated, then clipped to [0, 5), as MXNet;
  // the weight's dtype is the op's `dtype` parameter.
  const std::vector<In> in = {{{4, 6}, -1, 7}, {{5, 3}}};
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    const StringMap p = {{"input_dim", "5"}, {"output_dim", "3"}, {"dtype", DTypeName(t)}};
    CompareArrays("Embedding", test::Randoms(in, t, 1), p);
    const NDArray og = test::RandomArray({4, 6, 3}, t, -1, 1, 9);
    CompareArrays("_backward_Embedding", {og, test::Randoms(in, t, 1)[0]}, p);
  }
  // Integer indices.
  const StringMap p = {{"input_dim", "5"}, {"output_dim", "3"}};
  const NDArray idx = test::Run("Cast", {test::RandomArray({10}, DType::kFloat64, 0, 5, 3)}, {{"dtype", "int32"}})[0];
  const NDArray w = test::RandomArray({5, 3}, DType::kFloat32, -1, 1, 4);
  const test::DeviceRun c = test::RunOn(Context::CPU(0), "Embedding", {idx, w}, p, false, OpReq::kWrite, {});
  const test::DeviceRun g = test::RunOn(Context::GPU(0), "Embedding", {idx, w}, p, false, OpReq::kWrite, {});
  EXPECT_EQ(g.outs, c.outs);
}

// Runs Dropout on gpu(0) in training mode; returns (output, mask) values.
std::vector<std::vector<double>> GpuDropout(const NDArray& x, const StringMap& p) {
  std::vector<NDArray> outs;
  InvokeOptions opts;
  opts.is_train = true;
  Invoke(nullptr, "Dropout", {x.Copy(Context::GPU(0))}, p, &outs, opts);
  return {test::Values(outs[0].Copy(Context::CPU(0))), test::Values(outs[1].Copy(Context::CPU(0)))};
}

TEST(CudaOps, DropoutRateScaleAxesAndSeed) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  // Inference (and p = 0) is the identity with a mask of ones, as the CPU.
  Compare("Dropout", {{{3, 50}}}, {{"p", "0.5"}});
  Compare("Dropout", {{{3, 50}}}, {{"p", "0"}}, true);
  const NDArray x = test::RandomArray({200, 500}, DType::kFloat32, 1, 2, 5);
  const std::vector<double> xv = test::Values(x);
  Runtime::Global().Seed(7);
  const auto a = GpuDropout(x, {{"p", "0.3"}});
  const double scale = 1 / (1 - 0.3);
  int64_t dropped = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    const double m = a[1][i];
    ASSERT_TRUE(m == 0 || std::fabs(m - scale) < 1e-6) << "mask " << m << " at " << i;
    dropped += m == 0;
    ASSERT_NEAR(a[0][i], xv[i] * m, 1e-5) << i;
  }
  // 100000 Bernoulli(0.3) draws: the rate is within 5 standard deviations.
  EXPECT_NEAR(static_cast<double>(dropped) / xv.size(), 0.3, 5 * std::sqrt(0.3 * 0.7 / xv.size()));
  Runtime::Global().Seed(7);
  EXPECT_EQ(GpuDropout(x, {{"p", "0.3"}})[1], a[1]) << "the same seed gives the same mask";
  EXPECT_NE(GpuDropout(x, {{"p", "0.3"}})[1], a[1]) << "the next draw gives another mask";
  // axes=(1,): one decision per row, broadcast along it.
  const auto rows = GpuDropout(x, {{"p", "0.5"}, {"axes", "(1,)"}});
  int kept_rows = 0;
  for (int r = 0; r < 200; ++r) {
    for (int c = 1; c < 500; ++c) ASSERT_EQ(rows[1][r * 500 + c], rows[1][r * 500]) << r << "," << c;
    kept_rows += rows[1][r * 500] != 0;
  }
  EXPECT_GT(kept_rows, 50);
  EXPECT_LT(kept_rows, 150);
  // The gradient is ograd * mask, as on the CPU.
  const NDArray mask = test::Array({200, 500}, a[1], DType::kFloat32);
  CompareArrays("_backward_Dropout", {test::RandomArray({200, 500}, DType::kFloat32, -1, 1, 6), mask}, {});
}

TEST(CudaOps, DeviceMemoryInfo) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  DeviceAPI* api = Runtime::Global().device_api(DeviceType::kGPU);
  size_t free_bytes = 0, total_bytes = 0;
  api->MemoryInfo(Context::GPU(0), &free_bytes, &total_bytes);
  EXPECT_GT(total_bytes, size_t{1} << 30);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
  const int n = api->DeviceCount();
  test::ExpectError([&] { api->MemoryInfo(Context::GPU(n), &free_bytes, &total_bytes); }, StatusCode::kDevice,
                    {"gpu(" + std::to_string(n) + ")", "not available"});
}

}  // namespace
}  // namespace weft
