// Dropout's own properties on the GPU (its numbers come from another
// generator than the CPU's, so the backend table compares only its
// deterministic cases): the drop rate, the scale, masks broadcast over
// `axes`, reproducibility after Runtime::Seed; and the device's memory
// figures. Skipped without a CUDA device; builds without CUDA.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/backend_harness.h"

namespace weft {
namespace {

bool NoGpu() { return test::GpuCount() == 0; }

// Runs Dropout on gpu(0) in training mode; returns (output, mask) values.
std::vector<std::vector<double>> GpuDropout(const NDArray& x, const StringMap& p) {
  std::vector<NDArray> outs;
  InvokeOptions opts;
  opts.is_train = true;
  Invoke(&Runtime::Global(), "Dropout", {x.Copy(Context::GPU(0))}, p, &outs, opts);
  return {test::Values(outs[0].Copy(Context::CPU(0))), test::Values(outs[1].Copy(Context::CPU(0)))};
}

TEST(CudaOps, DropoutRateScaleAxesAndSeed) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
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
    for (int c = 1; c < 500; ++c)
      ASSERT_EQ(rows[1][r * 500 + c], rows[1][r * 500]) << r << "," << c;
    kept_rows += rows[1][r * 500] != 0;
  }
  EXPECT_GT(kept_rows, 50);
  EXPECT_LT(kept_rows, 150);
  // The gradient is ograd * mask, as on the CPU, for this mask.
  const NDArray mask = test::Array({200, 500}, a[1], DType::kFloat32);
  EXPECT_EQ(
      test::CompareBackends("_backward_Dropout",
                            {test::RandomArray({200, 500}, DType::kFloat32, -1, 1, 6), mask}, {}),
      1);
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
  test::ExpectError([&] { api->MemoryInfo(Context::GPU(n), &free_bytes, &total_bytes); },
                    StatusCode::kDevice, {"gpu(" + std::to_string(n) + ")", "not available"});
}

}  // namespace
}  // namespace weft
