#include <gtest/gtest.h>

#include "weft/device.h"
#include "weft/dtype.h"

namespace weft {
namespace {

TEST(DType, CodesMatchMXNet) {
  EXPECT_EQ(static_cast<int>(DType::kFloat32), 0);
  EXPECT_EQ(static_cast<int>(DType::kFloat64), 1);
  EXPECT_EQ(static_cast<int>(DType::kFloat16), 2);
  EXPECT_EQ(static_cast<int>(DType::kUint8), 3);
  EXPECT_EQ(static_cast<int>(DType::kInt32), 4);
  EXPECT_EQ(static_cast<int>(DType::kInt8), 5);
  EXPECT_EQ(static_cast<int>(DType::kInt64), 6);
}

TEST(DType, SizesAndNamesRoundTrip) {
  const size_t sizes[] = {4, 8, 2, 1, 4, 1, 8};
  for (int c = 0; c <= 6; ++c) {
    DType t = static_cast<DType>(c);
    EXPECT_EQ(DTypeSize(t), sizes[c]);
    EXPECT_EQ(ParseDType(DTypeName(t)), t);
    EXPECT_EQ(ParseDType(std::to_string(c)), t);
  }
  EXPECT_EQ(DTypeSize(DType::kUnknown), 0u);
}

TEST(DType, ParseRejectsUnknown) {
  try {
    ParseDType("float128");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDType);
    EXPECT_NE(std::string(e.what()).find("float128"), std::string::npos);
  }
  EXPECT_THROW(ParseDType("7"), Error);
}

TEST(DType, DispatchFloatRejectsIntegers) {
  EXPECT_EQ(DispatchFloat(DType::kFloat64, "op", [](auto t) { return sizeof(t); }), 8u);
  try {
    DispatchFloat(DType::kInt32, "myop", [](auto t) { return sizeof(t); });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDType);
    EXPECT_NE(std::string(e.what()).find("myop"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos);
  }
}

TEST(Context, ParseAndPrint) {
  EXPECT_EQ(Context::Parse("cpu(0)"), Context::CPU(0));
  EXPECT_EQ(Context::Parse("gpu(3)"), Context::GPU(3));
  EXPECT_EQ(Context::Parse("cpu"), Context::CPU(0));
  EXPECT_EQ(Context::GPU(1).ToString(), "gpu(1)");
  for (const char* bad : {"tpu(0)", "cpu(x)", "cpu(-1)", "cpu(", ""}) {
    EXPECT_THROW(Context::Parse(bad), Error) << bad;
  }
}

}  // namespace
}  // namespace weft
