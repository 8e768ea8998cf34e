// quadratic's GPU kernel is registered in a CUDA build, and a build or
// machine without a device reports a clean error (its numbers are compared
// by the backend table, backend_cases_shape.cc).
#include <gtest/gtest.h>

#include "util/backend_harness.h"

namespace weft {
namespace {

TEST(CudaQuadratic, GpuAllocationFailsCleanlyWithoutDevice) {
  if (test::GpuCount() > 0) GTEST_SKIP() << "a GPU is present";
  try {
    NDArray a(Shape({2}), Context::GPU(0), DType::kFloat32, &Runtime::Global());
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

}  // namespace
}  // namespace weft
