// The CUDA reshaping kernels give the CPU's dtype error for an add the op
// does not support (their numbers are compared by the backend table,
// backend_cases_shape.cc). Skipped without a CUDA device; the file builds
// without CUDA too.
#include <gtest/gtest.h>

#include "util/backend_harness.h"

namespace weft {
namespace {

TEST(CudaShape, IntegerAddFailsAsOnTheCpu) {
  if (test::GpuCount() == 0) GTEST_SKIP() << "no CUDA device";
  const NDArray x = test::Run("Cast", {test::RandomArray({2, 3, 4}, DType::kFloat64, -50, 50, 4)},
                              {{"dtype", "int32"}})[0];
  // Flatten adds float32/float64 only, as on the CPU.
  test::ExpectError(
      [&] {
        std::vector<NDArray> outs = {test::Run("Flatten", {x})[0].Copy(Context::GPU(0))};
        InvokeOptions o;
        o.reqs = {OpReq::kAdd};
        Invoke(&Runtime::Global(), "Flatten", {x.Copy(Context::GPU(0))}, {}, &outs, o);
        outs[0].WaitToRead();
      },
      StatusCode::kDType, {"Flatten", "int32"});
}

}  // namespace
}  // namespace weft
