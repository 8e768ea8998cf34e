// The CUDA reshaping kernels (Flatten, Reshape, reshape_like, expand_dims,
// squeeze), identity and ElementWiseSum against the CPU ones (float32 and
// float64, write and add requests; integer dtypes copied with write), and
// the CPU's dtype errors for an add the op does not support. Skipped
// without a CUDA device; the file builds without CUDA too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/cuda_test_util.h"

namespace weft {
namespace {

using test::Compare;
using test::In;

bool NoGpu() { return test::GpuCount() == 0; }

TEST(CudaShape, ReshapingOpsCopyAndAdd) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  Compare("Flatten", {{{2, 3, 4}}}, {});
  Compare("Reshape", {{{2, 3, 4}}}, {{"shape", "(4,-1)"}});
  Compare("reshape_like", {{{2, 3, 4}}, {{6, 4}}}, {});
  Compare("expand_dims", {{{2, 3}}}, {{"axis", "1"}});
  Compare("squeeze", {{{2, 1, 3}}}, {});
  Compare("identity", {{{5, 7}}}, {});
}

TEST(CudaShape, ElementWiseSumOfOneTwoAndFourInputs) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  for (int n : {1, 2, 4}) {
    std::vector<In> in(static_cast<size_t>(n), In{{3, 257}});
    Compare("ElementWiseSum", in, {{"num_args", std::to_string(n)}});
  }
}

TEST(CudaShape, IntegerCopiesAndTheCpuAddErrors) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const NDArray x = test::Run("Cast", {test::RandomArray({2, 3, 4}, DType::kFloat64, -50, 50, 4)},
                              {{"dtype", "int32"}})[0];
  for (const char* op : {"Flatten", "identity"}) {
    const test::DeviceRun c = test::RunOn(Context::CPU(0), op, {x}, {}, false, OpReq::kWrite, {});
    const test::DeviceRun g = test::RunOn(Context::GPU(0), op, {x}, {}, false, OpReq::kWrite, {});
    EXPECT_EQ(g.outs, c.outs) << op;
  }
  // Flatten adds float32/float64 only, as on the CPU.
  test::ExpectError(
      [&] { test::RunOn(Context::GPU(0), "Flatten", {x}, {}, false, OpReq::kAdd, {test::Run("Flatten", {x})[0]}); },
      StatusCode::kDType, {"Flatten", "int32"});
}

}  // namespace
}  // namespace weft
