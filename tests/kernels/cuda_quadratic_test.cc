// GPU path of quadratic: runs on a device when one exists, skips otherwise,
// and checks that a build or machine without one reports a clean error.
#include <gtest/gtest.h>

#include "util/test_util.h"

namespace weft {
namespace {

int GpuCount() {
  try {
    return Runtime::Global().device_api(DeviceType::kGPU)->DeviceCount();
  } catch (const Error&) {
    return 0;  // not compiled with CUDA
  }
}

TEST(CudaQuadratic, GpuAllocationFailsCleanlyWithoutDevice) {
  if (GpuCount() > 0) GTEST_SKIP() << "a GPU is present";
  try {
    NDArray a(Shape({2}), Context::GPU(0), DType::kFloat32);
    FAIL() << "allocating on gpu(0) without a device must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice);
    EXPECT_NE(std::string(e.what()).find("gpu"), std::string::npos) << e.what();
  }
}

TEST(CudaQuadratic, KernelRegisteredWhenBuiltWithCuda) {
#if WEFT_USE_CUDA
  const auto& k = Runtime::Global().kernels();
  EXPECT_NE(k.Find("quadratic", DeviceType::kGPU), nullptr);
  EXPECT_NE(k.Find("_backward_quadratic", DeviceType::kGPU), nullptr);
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

TEST(CudaQuadratic, ForwardAndBackwardMatchCpu) {
  if (GpuCount() == 0) GTEST_SKIP() << "no CUDA device";
  NDArray x = test::RandomArray({1000}, DType::kFloat32, -3, 3, 1);
  NDArray dy = test::RandomArray({1000}, DType::kFloat32, -1, 1, 2);
  StringMap p{{"a", "1.5"}, {"b", "-2"}, {"c", "0.25"}};
  NDArray xg = x.Copy(Context::GPU(0)), dyg = dy.Copy(Context::GPU(0));
  auto y_cpu = test::Run("quadratic", {x}, p);
  auto y_gpu = test::Run("quadratic", {xg}, p);
  auto dx_cpu = test::Run("_backward_quadratic", {dy, x}, p);
  auto dx_gpu = test::Run("_backward_quadratic", {dyg, xg}, p);
  auto yc = test::Values(y_cpu[0]), yg = test::Values(y_gpu[0].Copy(Context::CPU(0)));
  auto dc = test::Values(dx_cpu[0]), dg = test::Values(dx_gpu[0].Copy(Context::CPU(0)));
  for (size_t i = 0; i < yc.size(); ++i) {
    EXPECT_NEAR(yc[i], yg[i], 1e-4);
    EXPECT_NEAR(dc[i], dg[i], 1e-4);
  }
}

}  // namespace
}  // namespace weft
