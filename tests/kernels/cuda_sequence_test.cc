// The CUDA SequenceMask kernel against the CPU reference (write and add
// requests, float32 and float64): both axes, with and without
// sequence_length (fractional lengths truncated, integer lengths, 0 and T),
// and the CPU's range error for a length past T. Skipped without a CUDA
// device; the file builds without CUDA too.
#include <gtest/gtest.h>

#include "kernels/cuda_test_util.h"
#include "util/op_refs.h"

namespace weft {
namespace {

bool NoGpu() { return test::GpuCount() == 0; }

TEST(CudaSequence, SequenceMask) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    // (T=5, N=4, 3) on axis 0 and (N=4, T=5, 3) on axis 1.
    for (const char* axis : {"0", "1"}) {
      const Shape s = std::string(axis) == "0" ? Shape({5, 4, 3}) : Shape({4, 5, 3});
      const NDArray x = test::RandomArray(s, t, -2, 2, 3);
      test::CompareArrays("SequenceMask", {x}, {{"axis", axis}, {"value", "-7.5"}});
      const StringMap p{{"axis", axis}, {"value", "-7.5"}, {"use_sequence_length", "True"}};
      test::CompareArrays("SequenceMask", {x, test::Array({4}, {2, 0, 5, 3.7}, t)}, p);
      test::CompareArrays("SequenceMask", {x, test::Array({4}, {1, 5, 0, 4}, DType::kInt32)}, p);
    }
    // Two dimensions only (rest = 1).
    test::CompareArrays("SequenceMask",
                        {test::RandomArray({6, 3}, t, -1, 1, 5), test::Array({3}, {6, 1, 3}, t)},
                        {{"use_sequence_length", "True"}});
  }
}

TEST(CudaSequence, SequenceMaskLengthOutOfRange) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const NDArray x = test::RandomArray({3, 2}, DType::kFloat32, -1, 1, 1).Copy(Context::GPU(0));
  const NDArray len = test::Array({2}, {1, 4}).Copy(Context::GPU(0));
  EXPECT_TRUE(test::ThrowsError(
      [&] {
        test::Values(test::Run("SequenceMask", {x, len}, {{"use_sequence_length", "True"}})[0]
                         .Copy(Context::CPU(0)));
      },
      StatusCode::kInvalidArgument, {"SequenceMask", "sequence_length[1]"}));
}

}  // namespace
}  // namespace weft
