// MXNet NDArray-list files: the shared MXNet files (pre-V1 records), a V2
// file written independently by scripts/gen_io_testdata.py, round trips,
// every record version, and malformed input (truncated at every byte,
// corrupted fields) rejected with weft::Error, never a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/graph/graph_test_nn_ops.h"
#include "core/json/json_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/ndarray_io.h"
#include "weft/pass.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

std::string ReadBytes(const std::string& path) {
  std::string s;
  EXPECT_TRUE(test::ReadTextFile(path, &s)) << path;
  return s;
}
std::string DataDir() { return test::TestDataDir(); }

// Little-endian builders for hand-made records.
void PutU32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU64(std::string* s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void PutF32(std::string* s, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  PutU32(s, u);
}

TEST(NDArrayIoTest, LegacyMXNetFileLoadsAsSixArraysOf0To127) {
  const std::string path = test::ModelDir() + "/apache__legacy_ndarray.v0";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  NDArrayList list = LoadNDArraysFile(path, &Runtime::Global());
  ASSERT_EQ(list.arrays.size(), 6u);
  EXPECT_TRUE(list.names.empty());
  std::vector<double> want(128);
  for (int i = 0; i < 128; ++i) want[i] = i;
  for (const NDArray& a : list.arrays) {
    EXPECT_EQ(a.shape(), Shape({128}));
    EXPECT_EQ(a.dtype(), DType::kFloat32);
    EXPECT_EQ(test::Values(a), want);
  }
  // The same bytes from memory give the same arrays.
  std::string bytes = ReadBytes(path);
  NDArrayList mem = LoadNDArrays(bytes.data(), bytes.size(), &Runtime::Global());
  ASSERT_EQ(mem.arrays.size(), 6u);
  EXPECT_EQ(test::Values(mem.arrays[5]), want);
}

TEST(NDArrayIoTest, MtcnnParamsMatchTheSymbolsArgumentsAndShapes) {
  const std::string dir = test::ModelDir();
  if (!std::filesystem::exists(dir + "/deepinsight__det1-0001.params")) GTEST_SKIP();
  NDArrayList list = LoadNDArraysFile(dir + "/deepinsight__det1-0001.params", &Runtime::Global());
  ASSERT_FALSE(list.arrays.empty());
  ASSERT_EQ(list.names.size(), list.arrays.size());
  ParamMaps p = SplitParams(list);
  LoadedSymbol s = LoadJSONFile(dir + "/deepinsight__det1-symbol.json", test::ModelTestRegistry());
  IndexedGraph g(s.symbol.outputs);
  pass::ShapeResult r = pass::InferShape(g, {{"data", Shape{1, 3, 12, 12}}});
  ASSERT_TRUE(r.complete());
  std::vector<std::string> args = s.symbol.ListArguments(), aux = s.symbol.ListAuxiliaryStates();
  std::map<std::string, Shape> arg_shape, aux_shape;
  for (size_t i = 0; i < args.size(); ++i) arg_shape[args[i]] = r.arg_shapes[i];
  for (size_t i = 0; i < aux.size(); ++i) aux_shape[aux[i]] = r.aux_shapes[i];
  for (const auto& kv : p.args) {
    ASSERT_TRUE(arg_shape.count(kv.first)) << "arg:" << kv.first << " is no argument";
    EXPECT_EQ(kv.second.shape(), arg_shape[kv.first]) << kv.first;
    EXPECT_EQ(kv.second.dtype(), DType::kFloat32);
  }
  for (const auto& kv : p.aux) {
    ASSERT_TRUE(aux_shape.count(kv.first)) << "aux:" << kv.first << " is no aux state";
    EXPECT_EQ(kv.second.shape(), aux_shape[kv.first]) << kv.first;
  }
  // Every argument but the input has a value.
  for (const std::string& a : args) {
    if (a != "data") {
      EXPECT_TRUE(p.args.count(a)) << a << " missing from the params file";
    }
  }
  EXPECT_EQ(p.args.size() + 1, args.size());
  // Re-saving gives V2 records that load to the same values.
  std::string saved = SaveNDArrays(list);
  NDArrayList back = LoadNDArrays(saved.data(), saved.size(), &Runtime::Global());
  ASSERT_EQ(back.names, list.names);
  for (size_t i = 0; i < list.arrays.size(); ++i)
    EXPECT_EQ(test::Values(back.arrays[i]), test::Values(list.arrays[i])) << list.names[i];
  EXPECT_EQ(SaveNDArrays(back), saved);
}

TEST(NDArrayIoTest, IndependentV2FileLoadsAndResavesByteIdentically) {
  const std::string bytes = ReadBytes(DataDir() + "/params/v2_mixed.params");
  NDArrayList list = LoadNDArrays(bytes.data(), bytes.size(), &Runtime::Global());
  ASSERT_EQ(list.arrays.size(), 6u);
  EXPECT_EQ(list.names,
            (std::vector<std::string>{"arg:fc_weight", "arg:fc_bias", "aux:bn_moving_var",
                                      "arg:ids", "aux:count", "arg:pixels"}));
  EXPECT_EQ(list.arrays[0].shape(), Shape({3, 2}));
  EXPECT_EQ(test::Values(list.arrays[0]), (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(test::Values(list.arrays[1]), (std::vector<double>{1.5, -2.0, 0.25}));
  EXPECT_EQ(list.arrays[2].dtype(), DType::kFloat64);
  EXPECT_EQ(list.arrays[3].dtype(), DType::kInt64);
  EXPECT_EQ(test::Values(list.arrays[3]), (std::vector<double>{1, -2, 3, 8589934592.0}));
  EXPECT_EQ(list.arrays[4].dtype(), DType::kInt32);
  EXPECT_EQ(list.arrays[5].dtype(), DType::kUint8);
  EXPECT_EQ(list.arrays[5].shape(), Shape({2, 1, 2}));
  EXPECT_EQ(test::Values(list.arrays[5]), (std::vector<double>{0, 255, 128, 1}));
  EXPECT_EQ(SaveNDArrays(list), bytes);
  // Through a file as well.
  const std::string path = testing::TempDir() + "/weft_v2_mixed.params";
  SaveNDArraysFile(list, path);
  EXPECT_EQ(ReadBytes(path), bytes);
  std::remove(path.c_str());

  ParamMaps p = SplitParams(list);
  EXPECT_EQ(p.args.size(), 4u);
  EXPECT_EQ(p.aux.size(), 2u);
  EXPECT_EQ(p.aux.at("count").shape(), Shape({3}));
}

// float16 (flag 2), bfloat16 (flag 12) and int8 (flag 5) arrays written by
// scripts/mxnet_params.py: the values as written, resaved byte-identically.
TEST(NDArrayIoTest, ReducedFloatsAndInt8LoadAndResaveByteIdentically) {
  const std::string bytes = ReadBytes(DataDir() + "/params/v2_reduced.params");
  NDArrayList list = LoadNDArrays(bytes.data(), bytes.size(), &Runtime::Global());
  ASSERT_EQ(list.arrays.size(), 3u);
  EXPECT_EQ(list.arrays[0].dtype(), DType::kFloat16);
  EXPECT_EQ(list.arrays[0].shape(), Shape({2, 2}));
  // float16's nearest values: 2^-24 (the smallest subnormal) for 6e-8 and
  // 0.333251953125 for 1/3.
  EXPECT_EQ(test::Values(list.arrays[0]),
            (std::vector<double>{0.5, -65504, 5.9604644775390625e-08, 0.333251953125}));
  EXPECT_EQ(list.arrays[1].dtype(), DType::kBFloat16);
  EXPECT_EQ(test::Values(list.arrays[1]),
            (std::vector<double>{1.5, -2.0, 0.25, 3.140625, 1267650600228229401496703205376.0,
                                 -1.1754943508222875e-38}));
  EXPECT_EQ(list.arrays[2].dtype(), DType::kInt8);
  EXPECT_EQ(test::Values(list.arrays[2]), (std::vector<double>{-128, 5, 127}));
  EXPECT_EQ(SaveNDArrays(list), bytes);
}

TEST(NDArrayIoTest, RoundTripKeepsDTypesScalarsNoneAndUnnamedLists) {
  NDArrayList list;
  list.arrays = {test::Array(Shape{2, 2}, {1, 2, 3, 4}),
                 test::Array(Shape(std::vector<int64_t>{}), {7.5}, DType::kFloat64), NDArray(),
                 test::Array(Shape{3}, {-1, 0, 1}, DType::kInt8),
                 NDArray(Shape{1}, Context::CPU(), DType::kFloat16, &Runtime::Global())};
  const uint16_t half_two = 0x4000;
  list.arrays[4].CopyFromHost(&half_two, 2);
  std::string bytes = SaveNDArrays(list);
  NDArrayList back = LoadNDArrays(bytes.data(), bytes.size(), &Runtime::Global());
  ASSERT_EQ(back.arrays.size(), 5u);
  EXPECT_TRUE(back.names.empty());
  EXPECT_EQ(test::Values(back.arrays[0]), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(back.arrays[1].shape(), Shape(std::vector<int64_t>{}));
  EXPECT_EQ(test::Values(back.arrays[1]), (std::vector<double>{7.5}));
  EXPECT_TRUE(back.arrays[2].is_none());
  EXPECT_EQ(back.arrays[3].dtype(), DType::kInt8);
  EXPECT_EQ(back.arrays[4].dtype(), DType::kFloat16);
  uint16_t half_back = 0;
  back.arrays[4].CopyToHost(&half_back, 2);
  EXPECT_EQ(half_back, half_two);
  EXPECT_EQ(SaveNDArrays(back), bytes);
  // Scalars are V3 records, everything else V2; none is (V2, -1, ndim 0).
  uint32_t magic;
  std::memcpy(&magic, bytes.data() + 24, 4);
  EXPECT_EQ(magic, kNDArrayV2Magic);
  // A view (slice) saves only its elements.
  NDArray big = test::Array(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  NDArrayList views{{big.Slice(1, 3)}, {"arg:v"}};
  std::string vb = SaveNDArrays(views);
  NDArrayList vback = LoadNDArrays(vb.data(), vb.size(), &Runtime::Global());
  EXPECT_EQ(test::Values(vback.arrays[0]), (std::vector<double>{3, 4, 5, 6}));
  // Names count must match.
  NDArrayList bad{{big}, {"a", "b"}};
  test::ExpectWeftError([&] { SaveNDArrays(bad); }, StatusCode::kInvalidArgument,
                        {"expected 0 or 1 names", "given 2"});
}

TEST(NDArrayIoTest, ReadsV1AndV3RecordsAndLegacyNone) {
  std::string s;
  PutU64(&s, 0x112);
  PutU64(&s, 0);
  PutU64(&s, 4);
  // V1: int32 ndim + int64 dims, no storage type.
  PutU32(&s, kNDArrayV1Magic);
  PutU32(&s, 2);
  PutU64(&s, 1);
  PutU64(&s, 2);
  PutU32(&s, 1), PutU32(&s, 0), PutU32(&s, 0);
  PutF32(&s, 3.f), PutF32(&s, 4.f);
  // V3 scalar.
  PutU32(&s, kNDArrayV3Magic);
  PutU32(&s, 0), PutU32(&s, 0);
  PutU32(&s, 1), PutU32(&s, 0), PutU32(&s, 0);
  PutF32(&s, 9.f);
  // V3 unknown shape (ndim -1) and pre-V1 ndim 0: both none.
  PutU32(&s, kNDArrayV3Magic);
  PutU32(&s, 0), PutU32(&s, 0xFFFFFFFFu);
  PutU32(&s, 0);
  PutU64(&s, 0);  // no names
  NDArrayList l = LoadNDArrays(s.data(), s.size(), &Runtime::Global());
  ASSERT_EQ(l.arrays.size(), 4u);
  EXPECT_EQ(l.arrays[0].shape(), Shape({1, 2}));
  EXPECT_EQ(test::Values(l.arrays[0]), (std::vector<double>{3, 4}));
  EXPECT_EQ(l.arrays[1].shape(), Shape(std::vector<int64_t>{}));
  EXPECT_EQ(test::Values(l.arrays[1]), (std::vector<double>{9}));
  EXPECT_TRUE(l.arrays[2].is_none());
  EXPECT_TRUE(l.arrays[3].is_none());
}

// A valid two-array file whose fields the malformed-input tests corrupt.
std::string SmallFile() {
  NDArrayList l{{test::Array(Shape{2}, {1, 2}), test::Array(Shape{1, 1}, {5})}, {"arg:a", "aux:b"}};
  return SaveNDArrays(l);
}

TEST(NDArrayIoTest, EveryTruncationIsACleanError) {
  const std::string full = SmallFile();
  for (size_t n = 0; n < full.size(); ++n) {
    try {
      LoadNDArrays(full.data(), n, &Runtime::Global());
      ADD_FAILURE() << "a file truncated to " << n << " bytes loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("byte offset"), std::string::npos) << e.what();
    }
  }
}

TEST(NDArrayIoTest, CorruptFieldsNameExpectedFoundAndOffset) {
  auto with = [](size_t at, uint64_t v, int width) {
    std::string s = SmallFile();
    for (int i = 0; i < width; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
    return s;
  };
  auto load = [](const std::string& s) { LoadNDArrays(s.data(), s.size(), &Runtime::Global()); };
  // Header magic at 0.
  test::ExpectWeftError([&] { load(with(0, 0x113, 8)); }, StatusCode::kInvalidArgument,
                        {"expected the NDArray list magic 0x112, found 0x113", "byte offset 0"});
  // Absurd array count.
  test::ExpectWeftError([&] { load(with(16, uint64_t{1} << 60, 8)); }, StatusCode::kInvalidArgument,
                        {"array count 1152921504606846976 cannot fit", "byte offset 16"});
  // Record 0 starts at 24: magic, stype 28, ndim 32, dim 36, ctx 44, dtype 52.
  test::ExpectWeftError(
      [&] { load(with(24, 0x12345678, 4)); }, StatusCode::kInvalidArgument,
      {"array 0 of 2", "expected a record magic", "found 0x12345678", "byte offset 24"});
  test::ExpectWeftError([&] { load(with(28, 1, 4)); }, StatusCode::kNotImplemented,
                        {"sparse storage type 1"});
  test::ExpectWeftError(
      [&] { load(with(28, 7, 4)); }, StatusCode::kInvalidArgument,
      {"expected storage type 0 (dense) or -1 (none), found 7", "byte offset 28"});
  test::ExpectWeftError([&] { load(with(32, 1000000, 4)); }, StatusCode::kInvalidArgument,
                        {"expected ndim <= 32, found 1000000", "byte offset 32"});
  test::ExpectWeftError([&] { load(with(32, 0xFFFFFFF0u, 4)); }, StatusCode::kInvalidArgument,
                        {"expected ndim >= -1, found -16"});
  test::ExpectWeftError([&] { load(with(36, uint64_t{1} << 62, 8)); }, StatusCode::kInvalidArgument,
                        {"truncated: shape (4611686018427387904,) of float32 needs more than"});
  test::ExpectWeftError([&] { load(with(36, static_cast<uint64_t>(-5), 8)); },
                        StatusCode::kInvalidArgument,
                        {"expected extent 0 >= 0, found -5", "byte offset 36"});
  test::ExpectWeftError([&] { load(with(36, 0, 8)); }, StatusCode::kNotImplemented,
                        {"zero-size array"});
  test::ExpectWeftError([&] { load(with(44, 9, 4)); }, StatusCode::kInvalidArgument,
                        {"expected device type 1 (cpu)", "found 9", "byte offset 44"});
  test::ExpectWeftError([&] { load(with(52, 7, 4)); }, StatusCode::kDType,
                        {"dtype flag 7 (bool) is not supported", "byte offset 52"});
  test::ExpectWeftError([&] { load(with(52, 99, 4)); }, StatusCode::kDType,
                        {"dtype flag 99 (unknown)"});
  // Names: count after the two records.
  const std::string good = SmallFile();
  const size_t names_at = good.size() - (8 + 8 + 5 + 8 + 5);
  test::ExpectWeftError([&] { load(with(names_at, 1, 8)); }, StatusCode::kInvalidArgument,
                        {"expected a name count of 0 or 2 (the array count), found 1"});
  test::ExpectWeftError([&] { load(with(names_at + 8, uint64_t{1} << 50, 8)); },
                        StatusCode::kInvalidArgument,
                        {"name 0 of 2", "name length 1125899906842624 exceeds"});
}

TEST(NDArrayIoTest, FilesAndSplitErrors) {
  test::ExpectWeftError([] { LoadNDArraysFile("/nonexistent/weft.params", &Runtime::Global()); },
                        StatusCode::kIO, {"/nonexistent/weft.params"});
  test::ExpectWeftError([] { SaveNDArraysFile(NDArrayList{}, "/nonexistent/dir/x.params"); },
                        StatusCode::kIO, {"cannot open"});
  // A malformed file's error names the path.
  const std::string path = testing::TempDir() + "/weft_bad.params";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite("garbage!", 1, 8, f);
    std::fclose(f);
  }
  test::ExpectWeftError([&] { LoadNDArraysFile(path, &Runtime::Global()); },
                        StatusCode::kInvalidArgument, {path, "list magic"});
  std::remove(path.c_str());

  NDArray a = test::Array(Shape{1}, {1});
  test::ExpectWeftError(
      [&] {
        SplitParams(NDArrayList{{a}, {}});
      },
      StatusCode::kInvalidArgument, {"no names"});
  test::ExpectWeftError(
      [&] {
        SplitParams(NDArrayList{{a}, {"fc_weight"}});
      },
      StatusCode::kInvalidArgument, {"'fc_weight'", "\"arg:\" or \"aux:\" prefix"});
  // With the symbol's auxiliary states, names without a prefix split as
  // MXNet's load_dict splits them.
  const std::vector<std::string> aux_names = {"bn_moving_var"};
  const ParamMaps plain =
      SplitParams(NDArrayList{{a, a, a}, {"fc_weight", "bn_moving_var", "aux:count"}}, &aux_names);
  EXPECT_EQ(plain.args.size(), 1u);
  EXPECT_EQ(plain.args.count("fc_weight"), 1u);
  EXPECT_EQ(plain.aux.size(), 2u);
  EXPECT_EQ(plain.aux.count("bn_moving_var"), 1u);
  test::ExpectWeftError(
      [&] {
        SplitParams(NDArrayList{{a, a}, {"arg:w", "arg:w"}});
      },
      StatusCode::kInvalidArgument, {"'arg:w' appears more than once"});
  test::ExpectWeftError(
      [&] {
        SplitParams(NDArrayList{{NDArray()}, {"aux:m"}});
      },
      StatusCode::kInvalidArgument, {"'aux:m'", "empty"});
}

}  // namespace
}  // namespace weft
