// The CUDA fill kernels (_zeros, _ones, _full, zeros_like, ones_like) in
// float16 against the CPU ones (the other dtypes are in the backend table,
// backend_cases_shape.cc), and the CPU's errors for an unrepresentable
// integer value and for add into float16. Skipped without a CUDA device; the file
// builds without CUDA too.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/backend_harness.h"

namespace weft {
namespace {

bool NoGpu() { return test::GpuCount() == 0; }

// Values in [0, 4) of dtype `t` on the CPU; float16 (which Cast does not
// produce) as zeros.
NDArray Start(const Shape& s, DType t) {
  if (t != DType::kFloat16)
    return test::Run("Cast", {test::RandomArray(s, DType::kFloat64, 0, 4, 3)},
                     {{"dtype", DTypeName(t)}})[0];
  std::vector<NDArray> outs;
  Invoke(&Runtime::Global(), "_zeros", {}, {{"shape", s.ToString()}, {"dtype", "float16"}}, &outs);
  return outs[0];
}

// `op` run on `ctx` into a copy of `init` (its shape and dtype) under `req`.
std::vector<double> FillOn(Context ctx, const std::string& op, const StringMap& params, OpReq req,
                           const NDArray& init) {
  NDArray out = init.Copy(ctx);
  std::vector<NDArray> in;
  if (op == "zeros_like" || op == "ones_like") in.push_back(init.Copy(ctx));
  std::vector<NDArray> outs{out};
  InvokeOptions o;
  o.reqs = {req};
  Invoke(&Runtime::Global(), op, in, params, &outs, o);
  const NDArray host = outs[0].Copy(Context::CPU(0));
  if (host.dtype() != DType::kFloat16) return test::Values(host);
  std::vector<uint16_t> bits(static_cast<size_t>(host.Size()));  // float16: the bit patterns
  host.CopyToHost(bits.data(), bits.size() * sizeof(uint16_t));
  return std::vector<double>(bits.begin(), bits.end());
}

// float16 (which the backend table's Values() cannot read) by its bits;
// write only, as on the CPU.
TEST(CudaInit, HalfFillsMatchTheCpu) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape s{2, 3, 5};
  const NDArray init = Start(s, DType::kFloat16);
  const std::string shape = s.ToString();
  const std::vector<std::pair<std::string, StringMap>> cases = {
      {"_zeros", {{"shape", shape}, {"dtype", "float16"}}},
      {"_ones", {{"shape", shape}, {"dtype", "float16"}}},
      {"_full", {{"shape", shape}, {"dtype", "float16"}, {"value", "2.75"}}},
      {"zeros_like", {}},
      {"ones_like", {}},
  };
  for (const auto& c : cases)
    EXPECT_EQ(FillOn(Context::GPU(0), c.first, c.second, OpReq::kWrite, init),
              FillOn(Context::CPU(0), c.first, c.second, OpReq::kWrite, init))
        << c.first;
}

// The helper's float16 path on the CPU (runs everywhere): 2.75 is 0x4180.
TEST(CudaInit, HalfFillOnTheCpuGivesTheHalfBits) {
  const NDArray h = Start({3}, DType::kFloat16);
  EXPECT_EQ(FillOn(Context::CPU(0), "_full",
                   {{"shape", "(3,)"}, {"dtype", "float16"}, {"value", "2.75"}}, OpReq::kWrite, h),
            (std::vector<double>(3, 0x4180)));
}

TEST(CudaInit, ErrorsAsOnTheCpu) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const NDArray u8 = Start({4}, DType::kUint8);
  test::ExpectError(
      [&] {
        FillOn(Context::GPU(0), "_full", {{"shape", "(4,)"}, {"dtype", "uint8"}, {"value", "300"}},
               OpReq::kWrite, u8);
      },
      StatusCode::kInvalidArgument, {"_full", "300", "uint8"});
  const NDArray f16 = Start({4}, DType::kFloat16);
  test::ExpectError([&] { FillOn(Context::GPU(0), "ones_like", {}, OpReq::kAdd, f16); },
                    StatusCode::kDType, {"ones_like", "float16"});
}

}  // namespace
}  // namespace weft
