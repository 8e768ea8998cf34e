// The CUDA LayerNorm kernels against the CPU reference on the same random
// inputs (float32 rtol 1e-4, float64 rtol 1e-10, write and add requests):
// default and inner axes, the mean/std outputs, rows longer than a block
// and enough rows for several partial-sum chunks in the backward. Skipped
// without a CUDA device; the file builds without CUDA too.
#include <gtest/gtest.h>

#include "kernels/cuda_test_util.h"

namespace weft {
namespace {

using test::Compare;
using test::In;

bool NoGpu() { return test::GpuCount() == 0; }

struct Case {
  Shape data;
  int axis;
  bool mean_var;
};

TEST(CudaLayerNorm, ForwardAndBackward) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const std::vector<Case> cases = {
      {{4, 7}, -1, false},         // short rows
      {{3, 5, 6}, -1, true},       // with mean and std
      {{2, 1000}, -1, true},       // rows longer than a block
      {{300, 33}, 1, false},       // several chunks of rows; C not a multiple of 32
      {{2, 5, 3, 4}, 1, true},     // an inner axis (strided rows)
      {{6, 2, 3}, 0, false},       // the first axis
      {{1, 1}, -1, true},          // one element: var 0
  };
  for (const Case& c : cases) {
    const int ax = c.axis < 0 ? c.axis + c.data.ndim() : c.axis;
    const Shape p({c.data[ax]});
    const StringMap params{{"axis", std::to_string(c.axis)},
                           {"output_mean_var", c.mean_var ? "True" : "False"},
                           {"eps", "1e-3"}};
    SCOPED_TRACE(c.data.ToString() + " axis " + std::to_string(c.axis));
    Compare("LayerNorm", {{c.data, -2, 3}, {p, 0.5, 1.5}, {p, -1, 1}}, params);
    Compare("_backward_LayerNorm", {{c.data, -1, 1}, {c.data, -2, 3}, {p, 0.5, 1.5}}, params);
  }
}

TEST(CudaLayerNorm, DefaultParams) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  Compare("LayerNorm", {{{8, 64}}, {{64}}, {{64}}}, {});
  Compare("_backward_LayerNorm", {{{8, 64}}, {{8, 64}}, {{64}}}, {});
}

}  // namespace
}  // namespace weft
