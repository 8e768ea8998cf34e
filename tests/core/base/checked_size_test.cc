// Checked sizes: element counts and byte sizes never wrap, and the single
// allocation limit (MaxAllocBytes) refuses a request before anything is
// allocated or filled, naming the array, its shape and the bytes asked.
#include <gtest/gtest.h>

#include "core/json/json_test_util.h"
#include "weft/engine.h"
#include "weft/executor.h"
#include "weft/imperative.h"
#include "weft/ndarray.h"
#include "weft/runtime.h"
#include "weft/storage.h"
#include "weft/symbol.h"

namespace weft {
namespace {

using test::ExpectWeftError;

constexpr int64_t k2p62 = int64_t{1} << 62;

// Lowers the allocation limit for one test and restores the default.
class LimitScope {
 public:
  explicit LimitScope(size_t bytes) { SetMaxAllocBytes(bytes); }
  ~LimitScope() { SetMaxAllocBytes(0); }
};

// Bytes held by live cpu chunks once pending releases have run.
size_t LiveBytes() {
  Engine::Get()->WaitForAll();
  return Runtime::Global().storage(Context::CPU())->stats().live_bytes;
}

TEST(CheckedSize, ShapeSizeAndBytesNeverWrap) {
  const Shape wraps{k2p62 + 1, 4};  // 2^64 + 4 elements: wrapped to 4 before
  int64_t n = -1;
  EXPECT_FALSE(wraps.CheckedSize(&n));
  ExpectWeftError([&] { wraps.Size(); }, StatusCode::kShape,
                  {"(4611686018427387905,4)", "2^63 - 1 elements"});
  ExpectWeftError([&] { wraps.ProdRange(0, 2); }, StatusCode::kShape, {"2^63 - 1"});
  // 2^62 elements fit, but not at 4 bytes each.
  EXPECT_EQ(Shape{k2p62}.Size(), k2p62);
  ExpectWeftError([&] { ShapeBytes(Shape{k2p62}, 4); }, StatusCode::kShape,
                  {"(4611686018427387904,)", "2^64 - 1 bytes"});
  EXPECT_EQ(ShapeBytes(Shape{3, 5}, 8), 120u);
  EXPECT_TRUE((Shape{3, 5}.CheckedSize(&n)));
  EXPECT_EQ(n, 15);
}

TEST(CheckedSize, NDArrayCreateAndViewsRefuseWrappingShapes) {
  const size_t live = LiveBytes();
  ExpectWeftError(
      [] {
        NDArray(Shape{k2p62 + 1, 4}, Context::CPU(), DType::kFloat32, &Runtime::Global());
      },
      StatusCode::kShape, {"2^63 - 1 elements"});
  // Byte sizes near 2^63 fail at once (the pool used to spin rounding them).
  ExpectWeftError(
      [] { NDArray(Shape{int64_t{1} << 61}, Context::CPU(), DType::kFloat32, &Runtime::Global()); },
      StatusCode::kOutOfMemory,
      {"(2305843009213693952,) float32", "9223372036854775808 bytes asked"});
  ExpectWeftError(
      [] { NDArray(Shape{k2p62 - 1}, Context::CPU(), DType::kFloat64, &Runtime::Global()); },
      StatusCode::kShape, {"2^64 - 1 bytes"});
  EXPECT_EQ(LiveBytes(), live);
  NDArray a(Shape{4}, Context::CPU(), DType::kFloat32, &Runtime::Global());
  ExpectWeftError([&] { a.Reshape(Shape{k2p62 + 1, 4}); }, StatusCode::kShape, {"2^63 - 1"});
  ExpectWeftError(
      [&] {
        a.AsType(Shape{k2p62 + 1, 4}, DType::kFloat32);
      },
      StatusCode::kShape, {"2^63 - 1"});
}

TEST(CheckedSize, AllocationLimitNamesShapeAndBytesBeforeAllocating) {
  LimitScope limit(size_t{1} << 20);
  EXPECT_EQ(MaxAllocBytes(), size_t{1} << 20);
  const size_t live = LiveBytes();
  ExpectWeftError(
      [] {
        NDArray(Shape{1024, 1024}, Context::CPU(), DType::kFloat32, &Runtime::Global());
      },
      StatusCode::kOutOfMemory,
      {"array of shape (1024,1024) float32", "4194304 bytes asked", "1048576 bytes"});
  EXPECT_EQ(LiveBytes(), live);
  NDArray ok(Shape{256, 1024}, Context::CPU(), DType::kFloat32,
             &Runtime::Global());  // exactly the limit
  EXPECT_EQ(ok.Bytes(), size_t{1} << 20);
}

TEST(CheckedSize, SourceOpsRefuseHugeShapes) {
  ExpectWeftError(
      [] {
        Invoke(&Runtime::Global(), "_zeros", {}, {{"shape", "(281474976710656, 281474976710656)"}});
      },
      StatusCode::kShape, {"2^63 - 1"});
  LimitScope limit(size_t{1} << 20);
  ExpectWeftError(
      [] {
        Invoke(&Runtime::Global(), "_zeros", {}, {{"shape", "(1024, 1024)"}});
      },
      StatusCode::kOutOfMemory, {"(1024,1024)", "4194304 bytes asked"});
}

TEST(CheckedSize, BindNamesTheArgument) {
  Symbol fc = Symbol::Apply(Runtime::Global().ops(), "FullyConnected",
                            {Symbol::CreateVariable("data")}, {{"num_hidden", "4"}}, "fc");
  ExpectWeftError(
      [&] {
        Executor::SimpleBind(&Runtime::Global(), fc, Context::CPU(),
                             {{"data", Shape{k2p62 + 1, 4}}});
      },
      StatusCode::kShape, {"2^63 - 1"});
  LimitScope limit(size_t{1} << 20);
  const size_t live = LiveBytes();
  ExpectWeftError(
      [&] {
        Executor::SimpleBind(&Runtime::Global(), fc, Context::CPU(), {{"data", Shape{2, 1 << 20}}});
      },
      StatusCode::kOutOfMemory,
      {"argument 'data' of shape (2,1048576) float32", "8388608 bytes asked"});
  EXPECT_EQ(LiveBytes(), live);
  auto ex = Executor::SimpleBind(&Runtime::Global(), fc, Context::CPU(), {{"data", Shape{2, 8}}});
  ExpectWeftError(
      [&] {
        ex->Reshape({{"data", Shape{1 << 20, 8}}}, false, true);
      },
      StatusCode::kOutOfMemory, {"'data' of shape (1048576,8) float32", "33554432 bytes asked"});
  ExpectWeftError(
      [&] {
        ex->Reshape({{"data", Shape{k2p62 + 1, 8}}}, false, true);
      },
      StatusCode::kShape, {"2^63 - 1"});
}

}  // namespace
}  // namespace weft
