#include <gtest/gtest.h>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/storage.h"

namespace weft {
namespace {

TEST(StoragePool, ReusesFreedBlocksOfTheSameSize) {
  auto pool = std::make_shared<StoragePool>(Context::CPU(0), CpuDeviceAPI());
  void* first = nullptr;
  {
    auto c = pool->Alloc(1000);
    first = c->dptr();
    EXPECT_EQ(pool->stats().live_bytes, StoragePool::RoundSize(1000));
  }
  EXPECT_EQ(pool->stats().live_bytes, 0u);
  EXPECT_EQ(pool->stats().pooled_bytes, StoragePool::RoundSize(1000));
  auto again = pool->Alloc(1000);
  EXPECT_EQ(again->dptr(), first);
  EXPECT_EQ(pool->stats().num_reuses, 1u);
  EXPECT_EQ(pool->stats().num_allocs, 1u);
  auto other = pool->Alloc(100000);
  EXPECT_NE(other->dptr(), first);
  EXPECT_EQ(pool->stats().num_allocs, 2u);
}

TEST(StoragePool, ReleasePooledEmptiesThePool) {
  auto pool = std::make_shared<StoragePool>(Context::CPU(0), CpuDeviceAPI());
  pool->Alloc(64);
  EXPECT_GT(pool->stats().pooled_bytes, 0u);
  pool->ReleasePooled();
  EXPECT_EQ(pool->stats().pooled_bytes, 0u);
}

TEST(StoragePool, RoundingBoundsWaste) {
  EXPECT_EQ(StoragePool::RoundSize(0), 64u);
  EXPECT_EQ(StoragePool::RoundSize(65), 128u);
  size_t big = (size_t{1} << 24) + 1;
  EXPECT_GE(StoragePool::RoundSize(big), big);
  EXPECT_LE(StoragePool::RoundSize(big), big + big / 4);
  EXPECT_EQ(StoragePool::RoundSize(64) % 64, 0u);
}

TEST(StoragePool, ChunksKeepThePoolAlive) {
  std::shared_ptr<Chunk> c;
  {
    auto pool = std::make_shared<StoragePool>(Context::CPU(0), CpuDeviceAPI());
    c = pool->Alloc(128);
  }
  // The pool is gone from this scope but alive through the chunk: its
  // memory is still usable and counted until the chunk is released.
  EXPECT_GE(c->bytes(), 128u);
  EXPECT_EQ(c->ctx(), Context::CPU(0));  // asks the pool
  static_cast<char*>(c->dptr())[0] = 1;
  EXPECT_EQ(static_cast<char*>(c->dptr())[0], 1);
  c.reset();
}

TEST(DeviceAPI, CpuMemoryInfoIsTheHostsRam) {
  size_t free_bytes = 0, total_bytes = 0;
  CpuDeviceAPI()->MemoryInfo(Context::CPU(0), &free_bytes, &total_bytes);
  EXPECT_GT(total_bytes, size_t{1} << 26);
  EXPECT_GT(free_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
}

TEST(NDArray, LiveBytesFollowArrays) {
  Runtime rt;
  EXPECT_EQ(rt.live_bytes(), 0u);
  {
    NDArray a(Shape({10, 10}), Context::CPU(0), DType::kFloat64, &rt);
    EXPECT_EQ(rt.live_bytes(), StoragePool::RoundSize(800));
    NDArray view = a.Slice(2, 4);
    (void)view;
  }
  EXPECT_EQ(rt.live_bytes(), 0u);
}

TEST(NDArray, CopyRoundTripAndSizeChecks) {
  NDArray a(Shape({2, 3}), Context::CPU(0), DType::kFloat32, &Runtime::Global());
  std::vector<float> in{1, 2, 3, 4, 5, 6}, out(6);
  a.CopyFromHost(in.data(), in.size() * 4);
  a.CopyToHost(out.data(), out.size() * 4);
  EXPECT_EQ(in, out);
  try {
    a.CopyFromHost(in.data(), 20);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("24"), std::string::npos) << e.what();
  }
  EXPECT_THROW(a.CopyToHost(out.data(), 28), Error);
  EXPECT_THROW(a.CopyFromHost(nullptr, 24), Error);
}

TEST(NDArray, ReshapeAndSliceAreViews) {
  NDArray a = test::Array({4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  NDArray r = a.Reshape({2, 6});
  EXPECT_EQ(r.dptr(), a.dptr());
  NDArray s = a.Slice(1, 3);
  EXPECT_EQ(s.shape(), Shape({2, 3}));
  EXPECT_EQ(test::Values(s), (std::vector<double>{3, 4, 5, 6, 7, 8}));
  static_cast<float*>(s.dptr())[0] = 42;  // writes through to the base
  EXPECT_EQ(test::Values(a)[3], 42);
  NDArray row = a.At(3);
  EXPECT_EQ(row.shape(), Shape({3}));
  EXPECT_EQ(test::Values(row), (std::vector<double>{9, 10, 11}));
  // A slice of a slice, then a reshape of it.
  NDArray ss = s.Slice(1, 2).Reshape({3, 1});
  EXPECT_EQ(test::Values(ss), (std::vector<double>{6, 7, 8}));
}

TEST(NDArray, ViewErrors) {
  NDArray a(Shape({4, 3}), Context::CPU(0), DType::kFloat32, &Runtime::Global());
  EXPECT_THROW(a.Reshape({5, 3}), Error);
  EXPECT_THROW(a.Slice(3, 2), Error);
  EXPECT_THROW(a.Slice(0, 5), Error);
  EXPECT_THROW(a.Slice(-1, 2), Error);
  try {
    a.Reshape({0, 12});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
  }
}

// An array's shape is concrete: its rank known and no extent negative (an
// extent of 0 is a real, empty one: weft/shape.h).
TEST(NDArray, RejectsUnknownShapes) {
  EXPECT_THROW(NDArray(Shape(), Context::CPU(0), DType::kFloat32, &Runtime::Global()), Error);
  EXPECT_THROW(NDArray(Shape({2, -1}), Context::CPU(0), DType::kFloat32, &Runtime::Global()),
               Error);
  EXPECT_THROW(NDArray(Shape({2}), Context::CPU(0), DType::kUnknown, &Runtime::Global()), Error);
  const NDArray empty(Shape({2, 0}), Context::CPU(0), DType::kFloat32, &Runtime::Global());
  EXPECT_EQ(empty.Size(), 0);
  EXPECT_EQ(empty.Bytes(), 0u);
}

TEST(NDArray, ScalarHasOneElement) {
  NDArray s(Shape(std::vector<int64_t>{}), Context::CPU(0), DType::kFloat64, &Runtime::Global());
  EXPECT_EQ(s.Size(), 1);
  EXPECT_EQ(s.Bytes(), 8u);
}

TEST(NDArray, DeepCopyIsIndependent) {
  NDArray a = test::Array({3}, {1, 2, 3});
  NDArray b = a.Copy(Context::CPU(0));
  a.WaitToWrite();  // the copy reading a is pushed to the engine
  static_cast<float*>(a.dptr())[0] = 9;
  EXPECT_EQ(test::Values(b), (std::vector<double>{1, 2, 3}));
  NDArray wrong(Shape({4}), Context::CPU(0), DType::kFloat32, &Runtime::Global());
  EXPECT_THROW(a.CopyTo(&wrong), Error);
}

}  // namespace
}  // namespace weft
