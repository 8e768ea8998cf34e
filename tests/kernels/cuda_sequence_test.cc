// The CUDA SequenceMask kernel gives the CPU's range error for a length past
// T (its numbers are compared by the backend table, backend_cases_nn.cc).
// Skipped without a CUDA device; the file builds without CUDA too.
#include <gtest/gtest.h>

#include "util/backend_harness.h"
#include "util/op_refs.h"

namespace weft {
namespace {

bool NoGpu() { return test::GpuCount() == 0; }

TEST(CudaSequence, SequenceMaskLengthOutOfRange) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const NDArray x = test::RandomArray({3, 2}, DType::kFloat32, -1, 1, 1).Copy(Context::GPU(0));
  const NDArray len = test::Array({2}, {1, 4}).Copy(Context::GPU(0));
  test::ExpectError(
      [&] {
        test::Values(test::Run("SequenceMask", {x, len}, {{"use_sequence_length", "True"}})[0].Copy(
            Context::CPU(0)));
      },
      StatusCode::kInvalidArgument, {"SequenceMask", "sequence_length[1]"});
}

}  // namespace
}  // namespace weft
