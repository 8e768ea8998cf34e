// Tests of core/src/kvstore (local and device types; dist_sync runs under
// mpirun in tests/dist): sums against values computed here, the optimizer
// applied on push as MXNet's update_on_kvstore, device placement, errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/kvstore.h"
#include "weft/optimizer.h"

namespace weft {
namespace {

using test::Array;
using test::ExpectError;
using test::Values;
using Vec = std::vector<double>;

NDArray On(const NDArray& a, Context ctx) { return a.Copy(ctx); }

TEST(KVStore, LocalPushSumsValuesOfAKeyAndPullCopiesTheStore) {
  auto kv = KVStore::Create("local");
  EXPECT_EQ(kv->type(), "local");
  EXPECT_EQ(kv->rank(), 0);
  EXPECT_EQ(kv->num_workers(), 1);
  kv->Init({"3", "w"}, {Array({2, 2}, {1, 2, 3, 4}), Array({3}, {0, 0, 0}, DType::kInt64)});
  NDArray out = Array({2, 2}, {0, 0, 0, 0});
  kv->Pull({"3"}, {out});
  EXPECT_EQ(Values(out), (Vec{1, 2, 3, 4}));
  // Three values for "3" (a repeated key) and one for "w".
  kv->Push({"3", "w", "3", "3"},
           {Array({2, 2}, {1, 1, 1, 1}), Array({3}, {7, -8, 9}, DType::kInt64),
            Array({2, 2}, {10, 20, 30, 40}), Array({2, 2}, {0.5, 0.25, 0, -1})});
  NDArray a = Array({2, 2}, {0, 0, 0, 0}), b = Array({2, 2}, {0, 0, 0, 0});
  NDArray w = Array({3}, {0, 0, 0}, DType::kInt64);
  kv->Pull({"3", "3", "w"}, {a, b, w});
  EXPECT_EQ(Values(a), (Vec{11.5, 21.25, 31, 40}));
  EXPECT_EQ(Values(b), Values(a));
  EXPECT_EQ(Values(w), (Vec{7, -8, 9}));
  // PushPull in place: the value is replaced by the sum.
  NDArray g = Array({2, 2}, {2, 4, 6, 8});
  kv->PushPull({"3"}, {g}, {g});
  EXPECT_EQ(Values(g), (Vec{2, 4, 6, 8}));
}

TEST(KVStore, OptimizerUpdatesTheStoreWithTheSummedGradient) {
  auto kv = KVStore::Create("local");
  auto opt = std::shared_ptr<Optimizer>(
      Optimizer::Create("sgd", {{"learning_rate", "0.5"}, {"momentum", "0.9"}}));
  kv->SetOptimizer(opt);
  kv->Init({"fc_weight"}, {Array({2}, {1, -1})});
  Vec w = {1, -1}, m = {0, 0};
  const std::vector<std::pair<Vec, Vec>> grads = {{{0.2, 0.4}, {1, -2}}, {{-1, 0}, {0.5, 0.5}}};
  for (const auto& g : grads) {
    kv->Push({"fc_weight", "fc_weight"}, {Array({2}, g.first), Array({2}, g.second)});
    for (size_t i = 0; i < 2; ++i) {  // MXNet's sgd_mom_update with the sum as gradient
      const double sum = static_cast<float>(g.first[i] + g.second[i]);
      m[i] = 0.9f * m[i] - 0.5f * sum;
      w[i] += m[i];
    }
  }
  NDArray out = Array({2}, {0, 0});
  kv->Pull({"fc_weight"}, {out});
  Vec got = Values(out);
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(got[i], w[i], 1e-6);
  EXPECT_EQ(opt->update_count(0), 2);
}

TEST(KVStore, DeviceSumsOverFourCpuDevicesEqualTheHostSum) {
  auto kv = KVStore::Create("Device");
  EXPECT_EQ(kv->type(), "device");
  const int n = 4;
  std::vector<std::string> keys;
  std::vector<NDArray> init;
  for (int k = 0; k < 3; ++k) {
    keys.push_back("k" + std::to_string(k));
    init.push_back(Array({1000}, Vec(1000, 0.0)));
  }
  kv->Init(keys, init);
  std::vector<std::string> push_keys;
  std::vector<NDArray> values;
  std::vector<Vec> want(3, Vec(1000, 0.0));
  for (int k = 0; k < 3; ++k) {
    for (int d = 0; d < n; ++d) {
      NDArray v =
          test::RandomArray({1000}, DType::kFloat32, -1, 1, static_cast<unsigned>(10 * k + d));
      Vec vals = Values(v);
      for (size_t i = 0; i < vals.size(); ++i) want[k][i] += vals[i];
      push_keys.push_back(keys[k]);
      values.push_back(On(v, Context::CPU(d)));
    }
  }
  kv->Push(push_keys, values);
  for (int k = 0; k < 3; ++k) {
    NDArray out = On(Array({1000}, Vec(1000, 0.0)), Context::CPU(k + 1));
    kv->Pull({keys[k]}, {out});
    Vec got = Values(out);
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[k][i], 1e-5) << keys[k] << " element " << i;
  }
}

TEST(KVStore, IntegerSumsAreExact) {
  for (const char* type : {"local", "device"}) {
    auto kv = KVStore::Create(type);
    kv->Init({"i"}, {Array({3}, {0, 0, 0}, DType::kInt32)});
    kv->Push({"i", "i"}, {Array({3}, {2147483000, -5, 1}, DType::kInt32),
                          On(Array({3}, {600, 5, -1}, DType::kInt32), Context::CPU(1))});
    NDArray out = Array({3}, {0, 0, 0}, DType::kInt32);
    kv->Pull({"i"}, {out});
    EXPECT_EQ(Values(out), (Vec{2147483600, 0, 0})) << type;
  }
}

TEST(KVStore, ErrorsNameTheKeyAndWhatWasExpected) {
  ExpectError([] { KVStore::Create("parameter_server"); }, StatusCode::kInvalidArgument,
              {"parameter_server", "local, device or dist_sync"});
  ExpectError([] { KVStore::Create("dist_async"); }, StatusCode::kNotImplemented,
              {"dist_async", "dist_sync"});
  auto kv = KVStore::Create("local");
  kv->Init({"a"}, {Array({2}, {1, 2})});
  ExpectError(
      [&] {
        kv->Init({"a"}, {Array({2}, {1, 2})});
      },
      StatusCode::kInvalidArgument, {"'a'", "already"});
  ExpectError(
      [&] {
        kv->Init({"b", "b"}, {Array({2}, {1, 2}), Array({2}, {1, 2})});
      },
      StatusCode::kInvalidArgument, {"'b'", "twice"});
  ExpectError(
      [&] {
        kv->Init({"h"}, {NDArray({2}, Context::CPU(0), DType::kFloat16, &Runtime::Global())});
      },
      StatusCode::kDType, {"'h'", "float16"});
  ExpectError(
      [&] {
        kv->Push({"zz"}, {Array({2}, {1, 2})});
      },
      StatusCode::kInvalidArgument, {"Push", "'zz'", "Init"});
  ExpectError(
      [&] {
        kv->Push({"a"}, {Array({3}, {1, 2, 3})});
      },
      StatusCode::kShape, {"'a'", "(2,)", "(3,)"});
  ExpectError(
      [&] {
        kv->Push({"a"}, {Array({2}, {1, 2}, DType::kFloat64)});
      },
      StatusCode::kShape, {"'a'", "float32", "float64"});
  ExpectError(
      [&] {
        kv->Push({"a", "a"}, {Array({2}, {1, 2})});
      },
      StatusCode::kInvalidArgument, {"2 keys but 1 values"});
  ExpectError([&] { kv->Pull({"a"}, {NDArray()}); }, StatusCode::kInvalidArgument, {"'a'", "none"});
  ExpectError([&] { kv->Pull({"a"}, {Array({1}, {0})}); }, StatusCode::kShape, {"'a'", "out"});
  // Nothing was half-done: "b" was not initialised, "a" still holds its value.
  ExpectError(
      [&] {
        kv->Pull({"b"}, {Array({2}, {0, 0})});
      },
      StatusCode::kInvalidArgument, {"'b'"});
  NDArray out = Array({2}, {0, 0});
  kv->Pull({"a"}, {out});
  EXPECT_EQ(Values(out), (Vec{1, 2}));
}

}  // namespace
}  // namespace weft
