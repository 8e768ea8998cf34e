#include <gtest/gtest.h>

#include <cstring>

#include "util/test_util.h"

namespace weft {
namespace {

const DType kNumeric[] = {DType::kFloat32, DType::kFloat64, DType::kUint8,
                          DType::kInt32,   DType::kInt8,    DType::kInt64};

std::vector<uint16_t> HalfBits(const NDArray& a) {
  std::vector<uint16_t> bits(static_cast<size_t>(a.Size()));
  a.WaitToRead();
  std::memcpy(bits.data(), a.dptr(), a.Bytes());
  return bits;
}

TEST(Init, ZerosOnesFullForEveryNumericDtype) {
  for (DType dt : kNumeric) {
    const StringMap base = {{"shape", "(2, 3)"}, {"dtype", DTypeName(dt)}};
    auto z = test::Run("_zeros", {}, base);
    ASSERT_EQ(z.size(), 1u);
    EXPECT_EQ(z[0].shape(), Shape({2, 3}));
    EXPECT_EQ(z[0].dtype(), dt);
    EXPECT_EQ(z[0].ctx(), Context::CPU(0));
    EXPECT_EQ(test::Values(z[0]), std::vector<double>(6, 0.0)) << DTypeName(dt);
    auto o = test::Run("ones", {}, base);
    EXPECT_EQ(o[0].dtype(), dt);
    EXPECT_EQ(test::Values(o[0]), std::vector<double>(6, 1.0)) << DTypeName(dt);
    StringMap fp = base;
    fp["value"] = "7";
    auto f = test::Run("full", {}, fp);
    EXPECT_EQ(test::Values(f[0]), std::vector<double>(6, 7.0)) << DTypeName(dt);
  }
  // Fractional values survive in floating dtypes and truncate in integer ones.
  auto f = test::Run("_full", {}, {{"shape", "4"}, {"value", "-2.5"}});
  EXPECT_EQ(f[0].dtype(), DType::kFloat32);
  EXPECT_EQ(f[0].shape(), Shape({4}));
  EXPECT_EQ(test::Values(f[0]), std::vector<double>(4, -2.5));
  auto fi = test::Run("_full", {}, {{"shape", "(2,)"}, {"value", "-2.5"}, {"dtype", "int32"}});
  EXPECT_EQ(test::Values(fi[0]), std::vector<double>(2, -2.0));
}

TEST(Init, Float16BitPatterns) {
  const StringMap base = {{"shape", "(3,)"}, {"dtype", "float16"}};
  EXPECT_EQ(HalfBits(test::Run("_zeros", {}, base)[0]), std::vector<uint16_t>(3, 0x0000));
  EXPECT_EQ(HalfBits(test::Run("_ones", {}, base)[0]), std::vector<uint16_t>(3, 0x3c00));
  // Reference bit patterns of IEEE binary16 (round to nearest even).
  const std::vector<std::pair<std::string, uint16_t>> cases = {
      {"-2.5", 0xc100},
      {"0.1", 0x2e66},
      {"0.333333333", 0x3555},
      {"65504", 0x7bff},
      {"65519", 0x7bff},
      {"65520", 0x7c00},
      {"1e6", 0x7c00},
      {"-inf", 0xfc00},
      {"5.9604644775390625e-08", 0x0001},
      {"2.98023223876953125e-08", 0x0000},    // exactly 2^-25: ties to even (zero)
      {"6.103515625e-05", 0x0400},            // smallest normal
      {"6.0975551605224609375e-05", 0x03ff},  // largest subnormal
      {"1.0009765625", 0x3c01},
      {"1.00048828125", 0x3c00},  // tie to even
      {"1.00146484375", 0x3c02},  // tie rounds up to even
      {"-0", 0x8000},
  };
  for (const auto& c : cases) {
    StringMap p = base;
    p["value"] = c.first;
    EXPECT_EQ(HalfBits(test::Run("_full", {}, p)[0]), std::vector<uint16_t>(3, c.second))
        << c.first;
  }
}

TEST(Init, LikeOpsKeepShapeAndDtype) {
  for (DType dt : kNumeric) {
    NDArray x = test::Array({2, 2}, {1, 2, 3, 4}, dt);
    auto z = test::Run("zeros_like", {x});
    EXPECT_EQ(z[0].shape(), Shape({2, 2}));
    EXPECT_EQ(z[0].dtype(), dt);
    EXPECT_EQ(test::Values(z[0]), std::vector<double>(4, 0.0));
    auto o = test::Run("ones_like", {x});
    EXPECT_EQ(o[0].dtype(), dt);
    EXPECT_EQ(test::Values(o[0]), std::vector<double>(4, 1.0));
  }
  NDArray h = test::Run("_zeros", {}, {{"shape", "(5,)"}, {"dtype", "float16"}})[0];
  EXPECT_EQ(HalfBits(test::Run("ones_like", {h})[0]), std::vector<uint16_t>(5, 0x3c00));
}

TEST(Init, AddRequestAccumulates) {
  std::vector<NDArray> out = {test::Array({3}, {1, 2, 3}, DType::kInt32)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "ones_like", {out[0]}, {}, &out, opts);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{2, 3, 4}));
  Invoke(&Runtime::Global(), "_full", {}, {{"shape", "(3,)"}, {"value", "10"}, {"dtype", "int32"}},
         &out, opts);
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{12, 13, 14}));
}

TEST(Init, LikeGradientsAreZero) {
  NDArray x = test::RandomArray({2, 3}, DType::kFloat64, -1, 1, 4);
  for (const char* op : {"zeros_like", "ones_like"}) {
    std::string where;
    EXPECT_LT(test::GradientError(op, {x}, {}, {}, 1e-6, &where), 1e-6) << op << " " << where;
  }
}

TEST(Init, RejectsBadParameters) {
  test::ExpectOpError("_zeros", {}, {}, StatusCode::kInvalidArgument, {"_zeros", "'shape'"});
  test::ExpectOpError("_ones", {}, {{"shape", "(2,)"}, {"dtype", "float128"}},
                      StatusCode::kInvalidArgument, {"_ones", "'dtype'"});
  test::ExpectOpError("_full", {}, {{"shape", "(2,)"}}, StatusCode::kInvalidArgument,
                      {"_full", "'value'"});
  test::ExpectOpError("_full", {}, {{"shape", "(2,)"}, {"value", "300"}, {"dtype", "uint8"}},
                      StatusCode::kInvalidArgument, {"_full", "300", "uint8"});
  test::ExpectOpError("_zeros", {}, {{"shape", "(2,)"}, {"ctx", "tpu(0)"}},
                      StatusCode::kInvalidArgument, {"_zeros", "'ctx'"});
  test::ExpectOpError("zeros_like", {}, {}, StatusCode::kInvalidArgument,
                      {"zeros_like", "1 input"});

  // req=add on float16 and bfloat16 adds in float and rounds once:
  // 2048 + 1 is no float16 (it stays 2048), 256 + 1 no bfloat16 (stays 256).
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd};
  for (const auto& [dtype, start] : {std::pair<const char*, double>{"float16", 2048},
                                     std::pair<const char*, double>{"bfloat16", 256}}) {
    std::vector<NDArray> out = {test::Run(
        "_full", {}, {{"shape", "(2,)"}, {"value", std::to_string(start)}, {"dtype", dtype}})[0]};
    Invoke(&Runtime::Global(), "_ones", {}, {{"shape", "(2,)"}, {"dtype", dtype}}, &out, opts);
    EXPECT_EQ(test::Values(out[0]), std::vector<double>(2, start)) << dtype;
    Invoke(&Runtime::Global(), "_full", {}, {{"shape", "(2,)"}, {"value", "2"}, {"dtype", dtype}},
           &out, opts);
    EXPECT_EQ(test::Values(out[0]), std::vector<double>(2, start + 2)) << dtype;
  }
}

}  // namespace
}  // namespace weft
