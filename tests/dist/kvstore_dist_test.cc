// The dist_sync KVStore across processes: run under `mpirun -np 2` (CTest
// does). Every rank runs the same tests in the same order, so their
// collectives pair up; references are computed on every rank from closed
// forms or from a single-process run of the same training.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "core/train/train_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/initializer.h"
#include "weft/kvstore.h"
#include "weft/module.h"
#include "weft/optimizer.h"

namespace weft {
namespace {

using test::Array;
using test::Values;
using Vec = std::vector<double>;

KVStoreOptions Options(size_t bucket_bytes = size_t{4} << 20, double timeout = 20) {
  KVStoreOptions o;
  o.bucket_bytes = bucket_bytes;
  o.timeout_seconds = timeout;
  return o;
}

TEST(DistKVStore, RanksAndWorkers) {
  auto kv = KVStore::Create("dist_sync", Options());
  EXPECT_EQ(kv->type(), "dist_sync");
  EXPECT_EQ(kv->num_workers(), 2) << "run under mpirun -np 2";
  EXPECT_GE(kv->rank(), 0);
  EXPECT_LT(kv->rank(), kv->num_workers());
  kv->Barrier();
}

TEST(DistKVStore, InitGivesEveryRankRankZerosValues) {
  auto kv = KVStore::Create("dist_sync", Options());
  const double r = kv->rank();
  kv->Init({"w"}, {Array({3}, {r + 1, r + 2, r + 3})});
  NDArray out = Array({3}, {0, 0, 0});
  kv->Pull({"w"}, {out});
  EXPECT_EQ(Values(out), (Vec{1, 2, 3}));
}

// Sizes chosen so that 64-byte buckets hold several small keys, one key
// fills a bucket alone, and one large key is far bigger than a bucket.
TEST(DistKVStore, AllreduceIsExactForIntegersAndCloseForFloats) {
  for (size_t bucket : {size_t{0}, size_t{64}, size_t{4} << 20}) {
    auto kv = KVStore::Create("dist_sync", Options(bucket));
    const int n = kv->num_workers(), r = kv->rank();
    const std::vector<int64_t> sizes = {3, 4, 1, 16, 5, 100000};
    std::vector<std::string> keys;
    std::vector<NDArray> zeros;
    for (size_t k = 0; k < sizes.size(); ++k) {
      keys.push_back("f" + std::to_string(k));
      zeros.push_back(Array({sizes[k]}, Vec(static_cast<size_t>(sizes[k]), 0.0)));
    }
    keys.push_back("i64");
    zeros.push_back(Array({4}, {0, 0, 0, 0}, DType::kInt64));
    kv->Init(keys, zeros);
    std::vector<NDArray> values, outs;
    for (size_t k = 0; k < sizes.size(); ++k) {
      values.push_back(test::RandomArray({sizes[k]}, DType::kFloat32, -1, 1,
                                         static_cast<unsigned>(100 * r + k)));
      outs.push_back(Array({sizes[k]}, Vec(static_cast<size_t>(sizes[k]), 0.0)));
    }
    // Integers beyond float precision: exact only if summed as int64.
    values.push_back(
        Array({4}, {static_cast<double>((int64_t{1} << 40) + r), -3.0 * r, 7, 0}, DType::kInt64));
    outs.push_back(Array({4}, {0, 0, 0, 0}, DType::kInt64));
    kv->PushPull(keys, values, outs);
    for (size_t k = 0; k < sizes.size(); ++k) {
      Vec want(static_cast<size_t>(sizes[k]), 0.0);
      for (int q = 0; q < n; ++q) {  // every rank's value, regenerated here
        Vec v = Values(test::RandomArray({sizes[k]}, DType::kFloat32, -1, 1,
                                         static_cast<unsigned>(100 * q + k)));
        for (size_t i = 0; i < v.size(); ++i) want[i] += v[i];
      }
      Vec got = Values(outs[k]);
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-6) << keys[k] << " element " << i << " bucket " << bucket;
    }
    double sum_r = 0;
    for (int q = 0; q < n; ++q) sum_r += q;
    EXPECT_EQ(Values(outs.back()),
              (Vec{n * static_cast<double>(int64_t{1} << 40) + sum_r, -3.0 * sum_r, 7.0 * n, 0}));
    kv->Barrier();
  }
}

TEST(DistKVStore, MismatchedShapesAcrossRanksAreAnErrorNamingTheKey) {
  auto kv = KVStore::Create("dist_sync", Options());
  const int64_t len = kv->rank() == 0 ? 2 : 3;
  test::ExpectError(
      [&] {
        kv->Init({"ok", "mismatch"}, {Array({1}, {0}), Array({len}, Vec(len, 0.0))});
      },
      StatusCode::kInvalidArgument, {"ranks disagree", "'mismatch' (2,)", "'mismatch' (3,)"});
  // Nothing was initialised; the store and the lane still work.
  kv->Init({"after"}, {Array({1}, {1})});
  NDArray out = Array({1}, {0});
  kv->PushPull({"after"}, {Array({1}, {2.5})}, {out});
  EXPECT_EQ(Values(out), (Vec{5}));
}

// 2 processes with batch b each equal 1 process with batch 2b: the summed
// gradient is the full batch's, rescaled by 1/(b * workers).
TEST(DistKVStore, TwoProcessTrainingEqualsOneProcessWithTwiceTheBatch) {
  const int b = 8, steps = 6;
  test::Blobs data = test::MakeBlobs(2 * b * steps, 11);
  auto kv = std::shared_ptr<KVStore>(KVStore::Create("dist_sync", Options()));
  const int r = kv->rank(), n = kv->num_workers();
  ASSERT_EQ(n, 2);
  auto sgd = [] {
    return std::shared_ptr<Optimizer>(
        Optimizer::Create("sgd", {{"learning_rate", "0.2"}, {"momentum", "0.9"}, {"wd", "0.001"}}));
  };
  Module ref(&Runtime::Global(), test::BlobMlp(16)), dist(&Runtime::Global(), test::BlobMlp(16));
  ref.Bind({{"data", Shape{2 * b, 2}}}, {{"softmax_label", Shape{2 * b}}});
  dist.Bind({{"data", Shape{b, 2}}}, {{"softmax_label", Shape{b}}});
  auto init = Initializer::Create("xavier", {}, 3);
  ref.InitParams(init.get());
  // A rank-dependent start: the kvstore must replace it with rank 0's.
  std::map<std::string, NDArray> start;
  for (const auto& kv_param : ref.arg_params()) {
    NDArray p = kv_param.second.Copy(Context::CPU(0));
    if (r != 0) p = test::RandomArray(p.shape(), DType::kFloat32, -1, 1, 99);
    start[kv_param.first] = p;
  }
  dist.InitParams(init.get(), start);
  ref.InitOptimizer(sgd());
  dist.InitOptimizer(sgd(), kv);
  for (int s = 0; s < steps; ++s) {
    DataBatch full{{data.x.Slice(2 * b * s, 2 * b * (s + 1))},
                   {data.y.Slice(2 * b * s, 2 * b * (s + 1))},
                   0,
                   {}};
    const int64_t lo = 2 * b * s + b * r;
    DataBatch part{{data.x.Slice(lo, lo + b)}, {data.y.Slice(lo, lo + b)}, 0, {}};
    ref.Forward(full, true);
    ref.Backward();
    ref.Update();
    dist.Forward(part, true);
    dist.Backward();
    dist.Update();
  }
  const auto want = ref.arg_params(), got = dist.arg_params();
  for (const auto& p : want) {
    Vec w = Values(p.second), g = Values(got.at(p.first));
    for (size_t i = 0; i < w.size(); ++i)
      ASSERT_NEAR(g[i], w[i], 1e-5) << p.first << " element " << i;
  }
}

// Last of the suite: after FinalizeDistributed (MPI finalised, as a Go
// program must do before exiting) collectives fail with a clear error.
TEST(DistKVStore, ZZFinalizeEndsDistributedUse) {
  auto kv = KVStore::Create("dist_sync", Options());
  kv->Init({"x"}, {Array({1}, {1})});
  KVStore::FinalizeDistributed();
  KVStore::FinalizeDistributed();  // idempotent
  test::ExpectError([&] { kv->Barrier(); }, StatusCode::kInternal, {"shut down"});
}

// Run alone (see dist_failure_test.sh): rank 1 stops making kvstore calls;
// rank 0's push fails with a clear error within the timeout.
TEST(DistFailure, StalledRankMakesTheOthersFailInBoundedTime) {
  auto kv = KVStore::Create("dist_sync", Options(0, 3));
  kv->Init({"g"}, {Array({4}, {0, 0, 0, 0})});
  if (kv->rank() != 0) {
    std::this_thread::sleep_for(std::chrono::seconds(15));
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  NDArray out = Array({4}, {0, 0, 0, 0});
  test::ExpectError(
      [&] {
        kv->PushPull({"g"}, {Array({4}, {1, 2, 3, 4})}, {out});
        out.WaitToRead();
      },
      StatusCode::kInternal, {"allreduce of 'g'", "did not complete within 3 s", "rank 0 of 2"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 10.0);
  std::cout << "WEFT_DIST_FAILURE_REPORTED after " << seconds << " s" << std::endl;
  std::_Exit(::testing::Test::HasFailure() ? 1 : 0);  // MPI cannot finalise with a collective stuck
}

// Run alone: rank 1 dies; mpirun ends the job (rank 0's push cannot complete).
TEST(DistFailure, RankExitsEarly) {
  auto kv = KVStore::Create("dist_sync", Options(0, 20));
  kv->Init({"g"}, {Array({4}, {0, 0, 0, 0})});
  if (kv->rank() != 0) std::_Exit(3);
  NDArray out = Array({4}, {0, 0, 0, 0});
  kv->PushPull({"g"}, {Array({4}, {1, 2, 3, 4})}, {out});
  out.WaitToRead();
}

}  // namespace
}  // namespace weft
