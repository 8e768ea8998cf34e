// Deep graphs and deeply nested JSON on a small (1 MiB) thread stack: every
// loader and graph pass must be iterative or depth-bounded. Wide nodes
// (65536 outputs): naming outputs must be linear.
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <string>

#include "json_test_util.h"
#include "weft/runtime.h"
#include "weft/executor.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

// Runs `f` on a thread with a 1 MiB stack; a gtest failure inside is kept.
void RunOnSmallStack(const std::function<void()>& f) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t{1} << 20), 0);
  auto body = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, &attr, body, const_cast<std::function<void()>*>(&f)), 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

// MXNet JSON for data -> relu -> relu ... (`n` relus).
std::string ChainJSON(int n) {
  std::string s = "{\"nodes\":[{\"op\":\"null\",\"name\":\"data\",\"inputs\":[]}";
  s.reserve(static_cast<size_t>(n) * 60 + 200);
  for (int i = 1; i <= n; ++i)
    s += ",{\"op\":\"relu\",\"name\":\"r" + std::to_string(i) + "\",\"inputs\":[[" +
         std::to_string(i - 1) + ",0,0]]}";
  s += "],\"arg_nodes\":[0],\"heads\":[[" + std::to_string(n) + ",0,0]]}";
  return s;
}

// 1M nodes pass too but take ~34 s on the 2-core dev machine; 150k takes ~4 s.
constexpr int kChain = 150000;

TEST(DeepGraph, LongChainLoadsInfersBindsAndRunsOnSmallStack) {
  const std::string json = ChainJSON(kChain);
  RunOnSmallStack([&] {
    try {
      Symbol s = LoadJSON(json, Runtime::Global().ops()).symbol;
      EXPECT_EQ(s.ListArguments(), std::vector<std::string>{"data"});
      auto ex = Executor::SimpleBind(&Runtime::Global(), s, Context::CPU(), {{"data", Shape{4}}},
                                     {}, GradReqSpec::All(GradReq::kNull));
      std::vector<float> in = {-1, 2, -3, 4};
      NDArray data = ex->arg_arrays()[0];
      data.CopyFromHost(in.data(), in.size() * sizeof(float));
      ex->Forward(false);
      std::vector<float> out(4);
      ex->outputs()[0].CopyToHost(out.data(), out.size() * sizeof(float));
      EXPECT_EQ(out, (std::vector<float>{0, 2, 0, 4}));
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  });
}

TEST(DeepGraph, DeeplyNestedJSONIsRefusedOnSmallStack) {
  const int depth = 100000;
  std::string json = "{\"nodes\":[],\"arg_nodes\":[],\"heads\":[],\"attrs\":{\"mxnet_version\":";
  json += std::string(depth, '[') + std::string(depth, ']') + "}}";
  RunOnSmallStack([&] {
    test::ExpectWeftError([&] { LoadJSON(json, Runtime::Global().ops()); },
                          StatusCode::kInvalidArgument,
                          {"nest", "deep", "under \"attrs.mxnet_version\""});
  });
}

// A 200-byte file: SliceChannel num_outputs=65536 (naming its outputs was
// quadratic: about an hour for bind and ListOutputs).
TEST(WideGraph, SliceChannelWith65536OutputsBindsAndListsQuickly) {
  const std::string json = R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "SliceChannel", "name": "s", "attrs": {"num_outputs": "65536", "axis": "0"},
       "inputs": [[0, 0, 0]]}], "arg_nodes": [0], "heads": [[1, 65535, 0]]})";
  Symbol s = LoadJSON(json, Runtime::Global().ops()).symbol;
  EXPECT_EQ(s.ListOutputs(), std::vector<std::string>{"s_output65535"});
  std::vector<std::string> internals = s.GetInternals().ListOutputs();
  ASSERT_EQ(internals.size(), 65537u);
  EXPECT_EQ(internals[1], "s_output0");
  auto ex = Executor::SimpleBind(&Runtime::Global(), s, Context::CPU(), {{"x", Shape{65536, 2}}},
                                 {}, GradReqSpec::All(GradReq::kNull));
  std::vector<float> in(65536 * 2);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  NDArray x = ex->arg_arrays()[0];
  x.CopyFromHost(in.data(), in.size() * sizeof(float));
  ex->Forward(false);
  std::vector<float> out(2);
  ex->outputs()[0].CopyToHost(out.data(), out.size() * sizeof(float));
  EXPECT_EQ(out, (std::vector<float>{131070, 131071}));
}

TEST(WideGraph, SliceChannelErrorsNameNumOutputs) {
  const std::string json = R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "SliceChannel", "name": "s", "attrs": {"num_outputs": "3", "axis": "0", "squeeze_axis": "True"},
       "inputs": [[0, 0, 0]]}], "arg_nodes": [0], "heads": [[1, 0, 0]]})";
  Symbol s = LoadJSON(json, Runtime::Global().ops()).symbol;
  test::ExpectWeftError(
      [&] {
        Executor::SimpleBind(&Runtime::Global(), s, Context::CPU(), {{"x", Shape{5, 2}}});
      },
      StatusCode::kShape, {"num_outputs=3"});
  test::ExpectWeftError(
      [&] {
        Executor::SimpleBind(&Runtime::Global(), s, Context::CPU(), {{"x", Shape{6, 2}}});
      },
      StatusCode::kShape, {"num_outputs=3", "extent 1"});
}

}  // namespace
}  // namespace weft
