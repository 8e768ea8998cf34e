// The oneDNN int8 kernels (kernels/dnnl/quantized_dnnl.cc) give exactly the
// reference kernels' int32 sums and ranges on layer-sized cases (where
// oneDNN's jit kernels run: int8 data with its compensation, uint8, groups,
// strides, padding, bias levels).
#include <gtest/gtest.h>

#include "util/backend_harness.h"
#include "util/test_util.h"

namespace weft {
namespace {

NDArray Scalar(double v) { return test::Array({1}, {v}); }

// data, weight, bias and their ranges as the quantized ops take them.
std::vector<NDArray> Inputs(const Shape& data, const Shape& weight, int64_t f, DType t,
                            unsigned seed) {
  const double lo = t == DType::kUint8 ? 0 : -128, hi = t == DType::kUint8 ? 255 : 127;
  return {test::RandomArray(data, t, lo, hi, seed),
          test::RandomArray(weight, DType::kInt8, -127, 127, seed + 1),
          test::RandomArray(Shape{f}, DType::kInt8, -127, 127, seed + 2),
          Scalar(t == DType::kUint8 ? 0 : -2.5),
          Scalar(2.5),
          Scalar(-0.7),
          Scalar(0.5),
          Scalar(-0.1),
          Scalar(0.2)};
}

// Every other backend of `op` (the "dnnl" one where built) against the
// "cpu" reference, output for output, exactly.
void ExpectSameAsReference(const std::string& op, const std::vector<NDArray>& in,
                           const StringMap& params) {
  test::CompareOptions o;
  o.exact = true;
  o.add = false;
  const int compared = test::CompareBackends(op, in, params, o);
#if WEFT_USE_DNNL
  EXPECT_GE(compared, 1) << op;
#else
  (void)compared;
#endif
}

TEST(DnnlInt8, QuantizedConvolutionsEqualTheReference) {
  for (DType t : {DType::kUint8, DType::kInt8}) {
    ExpectSameAsReference("_contrib_quantized_conv",
                          Inputs({2, 32, 14, 14}, {64, 32, 3, 3}, 64, t, 3),
                          {{"kernel", "(3,3)"}, {"num_filter", "64"}, {"pad", "(1,1)"}});
    ExpectSameAsReference("_contrib_quantized_conv",
                          Inputs({1, 64, 15, 15}, {128, 64, 1, 1}, 128, t, 5),
                          {{"kernel", "(1,1)"}, {"num_filter", "128"}, {"stride", "(2,2)"}});
    ExpectSameAsReference(
        "_contrib_quantized_conv", Inputs({1, 32, 9, 9}, {32, 1, 3, 3}, 32, t, 7),
        {{"kernel", "(3,3)"}, {"num_filter", "32"}, {"num_group", "32"}, {"pad", "(1,1)"}});
  }
}

TEST(DnnlInt8, QuantizedFullyConnectedEqualsTheReference) {
  for (DType t : {DType::kUint8, DType::kInt8})
    ExpectSameAsReference("_contrib_quantized_fully_connected",
                          Inputs({8, 512}, {100, 512}, 100, t, 11), {{"num_hidden", "100"}});
}

}  // namespace
}  // namespace weft
