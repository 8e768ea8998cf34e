// NumPy .npy: files written by numpy (scripts/gen_io_testdata.py) load with
// their values and re-save byte-identically; unsupported layouts and
// malformed headers are rejected with clear errors.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/json/json_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/npy.h"

namespace weft {
namespace {

std::string Npy(const std::string& name) { return test::TestDataDir() + "/npy/" + name; }
std::string Bytes(const std::string& path) {
  std::string s;
  EXPECT_TRUE(test::ReadTextFile(path, &s)) << path;
  return s;
}

TEST(NpyTest, NumpyFilesLoadAndResaveIdentically) {
  struct Case {
    const char* file;
    DType dtype;
    Shape shape;
    std::vector<double> values;
  };
  const Case cases[] = {
      {"f32_2x3.npy", DType::kFloat32, Shape{2, 3}, {-3, -2.5, -2, -1.5, -1, -0.5}},
      {"f64_4.npy", DType::kFloat64, Shape{4}, {-3, -2.5, -2, -1.5}},
      {"i32_3x1x2.npy", DType::kInt32, Shape{3, 1, 2}, {-2, -1, 0, 1, 2, 3}},
      {"i64_2x2.npy", DType::kInt64, Shape{2, 2}, {-1099511627776.0, 7, 0, 1099511627777.0}},
      {"u8_5.npy", DType::kUint8, Shape{5}, {0, 1, 127, 128, 255}},
      {"f32_scalar.npy", DType::kFloat32, Shape(std::vector<int64_t>{}), {2.5}},
      // numpy's float16 rounding: 0.1 -> 0.0999755859375, 6e-8 -> 2^-24.
      {"f16_2x3.npy",
       DType::kFloat16,
       Shape{2, 3},
       {-2.5, 0.0999755859375, 65504, 5.9604644775390625e-08, -0.0, 0.333251953125}},
      {"i8_4.npy", DType::kInt8, Shape{4}, {-128, -1, 0, 127}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    NDArray a = LoadNpyFile(Npy(c.file), &Runtime::Global());
    EXPECT_EQ(a.dtype(), c.dtype);
    EXPECT_EQ(a.shape(), c.shape);
    EXPECT_EQ(test::Values(a), c.values);
    EXPECT_EQ(SaveNpy(a), Bytes(Npy(c.file)));
  }
  // Version 2.0 headers read the same values (we write 1.0, as numpy does).
  NDArray v2 = LoadNpyFile(Npy("f32_2x3_v2.npy"), &Runtime::Global());
  EXPECT_EQ(test::Values(v2), cases[0].values);
  EXPECT_EQ(SaveNpy(v2), Bytes(Npy("f32_2x3.npy")));
  // Memory and file paths agree.
  std::string b = Bytes(Npy("i32_3x1x2.npy"));
  EXPECT_EQ(test::Values(LoadNpy(b.data(), b.size(), &Runtime::Global())), cases[2].values);
  const std::string path = testing::TempDir() + "/weft_npy_test.npy";
  SaveNpyFile(v2, path);
  EXPECT_EQ(Bytes(path), Bytes(Npy("f32_2x3.npy")));
  std::remove(path.c_str());
}

TEST(NpyTest, UnsupportedLayoutsAreRejectedClearly) {
  test::ExpectWeftError([] { LoadNpyFile(Npy("fortran.npy"), &Runtime::Global()); },
                        StatusCode::kInvalidArgument,
                        {"fortran.npy", "fortran_order True is not supported"});
  test::ExpectWeftError([] { LoadNpyFile(Npy("big_endian.npy"), &Runtime::Global()); },
                        StatusCode::kDType, {"dtype '>f4' is not supported (big-endian)"});
  test::ExpectWeftError([] { LoadNpyFile(Npy("complex.npy"), &Runtime::Global()); },
                        StatusCode::kDType, {"dtype '<c8' is not supported", "expected '<f4'"});
  test::ExpectWeftError([] { LoadNpyFile("/nonexistent/x.npy", &Runtime::Global()); },
                        StatusCode::kIO, {"/nonexistent/x.npy"});
  test::ExpectWeftError([] { SaveNpy(NDArray()); }, StatusCode::kInvalidArgument, {"empty"});
}

// NumPy has no bfloat16: it is saved as the float32 array of the same
// values (exact), byte-identical to numpy's file of those values.
TEST(NpyTest, BFloat16SavesAsFloat32) {
  NDArray b = test::Array(Shape{2, 3}, {-3, -2.5, -2, -1.5, -1, -0.5}, DType::kBFloat16);
  EXPECT_EQ(SaveNpy(b), Bytes(Npy("f32_2x3.npy")));
  const std::string s = SaveNpy(b);
  NDArray back = LoadNpy(s.data(), s.size(), &Runtime::Global());
  EXPECT_EQ(back.dtype(), DType::kFloat32);
  EXPECT_EQ(test::Values(back), test::Values(b));
}

TEST(NpyTest, MalformedInputNeverCrashes) {
  const std::string good = Bytes(Npy("f32_2x3.npy"));
  auto load = [](const std::string& s) { LoadNpy(s.data(), s.size(), &Runtime::Global()); };
  for (size_t n = 0; n < good.size(); ++n) {
    try {
      load(good.substr(0, n));
      ADD_FAILURE() << "truncated to " << n << " bytes loaded";
    } catch (const Error&) {
    }
  }
  test::ExpectWeftError([&] { load(good + "x"); }, StatusCode::kInvalidArgument,
                        {"needs 24 data bytes, found 25"});
  std::string bad_magic = good;
  bad_magic[1] = 'X';
  test::ExpectWeftError([&] { load(bad_magic); }, StatusCode::kInvalidArgument,
                        {"expected the magic"});
  std::string v3 = good;
  v3[6] = 3;
  test::ExpectWeftError([&] { load(v3); }, StatusCode::kInvalidArgument,
                        {"format version 3.0", "expected 1.0 or 2.0"});
  auto with_header = [](const std::string& h) {
    std::string s = "\x93NUMPY\x01";
    s.push_back('\0');
    s.push_back(static_cast<char>(h.size()));
    s.push_back('\0');
    return s + h;
  };
  test::ExpectWeftError([&] { load(with_header("{'descr': '<f4', 'shape': (1,), }")); },
                        StatusCode::kInvalidArgument, {"lacks the key 'fortran_order'"});
  test::ExpectWeftError([&] { load(with_header("{'descr': '<f4', 'fortran_order': Maybe}")); },
                        StatusCode::kInvalidArgument, {"expected True or False"});
  test::ExpectWeftError(
      [&] { load(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}")); },
      StatusCode::kInvalidArgument, {"expected a non-negative integer"});
  test::ExpectWeftError(
      [&] {
        load(with_header(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999)}"));
      },
      StatusCode::kInvalidArgument, {"truncated: shape (99999999999,99999999999) of float32"});
  test::ExpectWeftError(
      [&] { load(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2)}")); },
      StatusCode::kNotImplemented, {"zero-size"});
  test::ExpectWeftError(
      [&] { load(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}")); },
      StatusCode::kInvalidArgument, {"unexpected header key 'x'"});
  std::string huge_v2 = "\x93NUMPY\x02";
  huge_v2 += std::string("\0\xff\xff\xff\x7f", 5);
  test::ExpectWeftError([&] { load(huge_v2); }, StatusCode::kInvalidArgument,
                        {"header length 2147483647", "exceeds"});
}

}  // namespace
}  // namespace weft
