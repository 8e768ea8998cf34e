// CachedOp (weft/cached_op.h): a real model file against the executor,
// gradients through a recorded call against the executor's backward,
// static_alloc's steady state, signatures and rebinding, flags.
#include "weft/cached_op.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <thread>

#include "util/test_util.h"
#include "weft/autograd.h"
#include "weft/imperative.h"
#include "weft/ndarray_io.h"
#include "weft/runtime.h"
#include "weft/status.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

Runtime* Rt() { return &Runtime::Global(); }
const Context kCpu = Context::CPU(0);

double MaxDiff(const NDArray& a, const NDArray& b) {
  EXPECT_EQ(a.shape(), b.shape());
  const std::vector<double> x = test::Values(a), y = test::Values(b);
  double m = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

// The inputs of `op` in ListInputs order from arrays by name.
std::vector<NDArray> InputsByName(const CachedOp& op, const std::map<std::string, NDArray>& by) {
  std::vector<NDArray> in;
  for (const std::string& name : op.input_names()) in.push_back(by.at(name));
  return in;
}

// MTCNN's P-Net with its real weights: the CachedOp's outputs equal the
// executor's, for two batch sizes (two plans).
TEST(CachedOp, RealModelEqualsTheExecutor) {
  const std::string dir = test::SharedTestDataDir() + "/mxnet-models";
  if (!std::filesystem::exists(dir + "/deepinsight__det1-0001.params"))
    GTEST_SKIP() << "no ../shared/testdata";
  LoadedSymbol s = LoadJSONFile(dir + "/deepinsight__det1-symbol.json", Rt()->ops());
  ParamMaps p = SplitParams(LoadNDArraysFile(dir + "/deepinsight__det1-0001.params", Rt()));
  CachedOp op(Rt(), s.symbol);
  for (int64_t batch : {1, 3}) {
    std::map<std::string, NDArray> by = p.args;
    by.insert(p.aux.begin(), p.aux.end());
    by["data"] = test::RandomArray(Shape{batch, 3, 24, 30}, DType::kFloat32, -1, 1, 11);
    const std::vector<NDArray> got = op.Forward(InputsByName(op, by));
    std::map<std::string, NDArray> args = p.args;
    args["data"] = by["data"];
    auto ex = Executor::BindByName(Rt(), s.symbol, kCpu, args, {}, {}, p.aux);
    ex->Forward(false);
    ASSERT_EQ(got.size(), ex->outputs().size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_LE(MaxDiff(got[i], ex->outputs()[i]), 1e-5) << "output " << i << " batch " << batch;
  }
  EXPECT_EQ(op.num_plans(), 2u);
}

// The same real file recorded: one tape node whose gradients for every
// parameter and the data equal the executor's Backward with the same head
// gradients.
TEST(CachedOp, RealModelRecordedGradientsEqualTheExecutors) {
  const std::string dir = test::SharedTestDataDir() + "/mxnet-models";
  if (!std::filesystem::exists(dir + "/deepinsight__det1-0001.params"))
    GTEST_SKIP() << "no ../shared/testdata";
  LoadedSymbol s = LoadJSONFile(dir + "/deepinsight__det1-symbol.json", Rt()->ops());
  ParamMaps p = SplitParams(LoadNDArraysFile(dir + "/deepinsight__det1-0001.params", Rt()));
  CachedOp op(Rt(), s.symbol);
  std::map<std::string, NDArray> args = p.args;
  args["data"] = test::RandomArray(Shape{2, 3, 16, 20}, DType::kFloat32, -1, 1, 12);
  std::map<std::string, NDArray> by = args;
  by.insert(p.aux.begin(), p.aux.end());
  std::vector<NDArray> in = InputsByName(op, by);
  std::vector<NDArray*> vars;
  std::vector<NDArray> grads;
  for (size_t i = 0; i < in.size(); ++i) {
    vars.push_back(&in[i]);
    grads.push_back(
        test::Array(in[i].shape(), std::vector<double>(static_cast<size_t>(in[i].Size()), 0)));
  }
  autograd::MarkVariables(vars, std::vector<GradReq>(in.size(), GradReq::kWrite), grads);
  std::vector<NDArray> out;
  {
    autograd::RecordScope rec;
    out = op.Forward(in);
  }
  std::vector<NDArray> heads;
  for (size_t k = 0; k < out.size(); ++k)
    heads.push_back(test::RandomArray(out[k].shape(), DType::kFloat32, -1, 1, 40 + k));
  autograd::Backward(Rt(), out, heads);

  std::map<std::string, NDArray> sym_grads;
  for (const auto& [name, a] : args) sym_grads[name] = NDArray(a.shape(), kCpu, a.dtype(), Rt());
  auto ex = Executor::BindByName(Rt(), s.symbol, kCpu, args, sym_grads, {}, p.aux);
  ex->Forward(true);
  ex->Backward(heads);
  for (size_t i = 0; i < in.size(); ++i) {
    const auto g = sym_grads.find(op.input_names()[i]);
    if (g == sym_grads.end()) continue;  // an aux state
    double scale = 1;                    // relative to the gradient's largest element
    for (double v : test::Values(g->second)) scale = std::max(scale, std::abs(v));
    EXPECT_LE(MaxDiff(grads[i], g->second), 1e-4 * scale) << op.input_names()[i];
  }
  double data_grad = 0;  // the comparison is not of zeros
  for (double v : test::Values(grads[0])) data_grad = std::max(data_grad, std::abs(v));
  EXPECT_EQ(op.input_names()[0], "data");
  EXPECT_GT(data_grad, 1e-4);
  EXPECT_EQ(op.num_plans(), 1u);  // one recorded signature
}

Symbol Mlp() {
  NameScope scope;
  Symbol x = Symbol::CreateVariable("x");
  Symbol h = Symbol::Apply(Rt()->ops(), "FullyConnected", {x}, {{"num_hidden", "5"}}, "fc1");
  Symbol a = Symbol::Apply(Rt()->ops(), "Activation", {h}, {{"act_type", "tanh"}}, "act");
  return Symbol::Apply(Rt()->ops(), "FullyConnected", {a}, {{"num_hidden", "2"}}, "fc2");
}

std::map<std::string, NDArray> MlpValues(unsigned seed) {
  return {{"x", test::RandomArray(Shape{4, 3}, DType::kFloat32, -1, 1, seed)},
          {"fc1_weight", test::RandomArray(Shape{5, 3}, DType::kFloat32, -1, 1, seed + 1)},
          {"fc1_bias", test::RandomArray(Shape{5}, DType::kFloat32, -1, 1, seed + 2)},
          {"fc2_weight", test::RandomArray(Shape{2, 5}, DType::kFloat32, -1, 1, seed + 3)},
          {"fc2_bias", test::RandomArray(Shape{2}, DType::kFloat32, -1, 1, seed + 4)}};
}

// Recorded, a CachedOp call back-propagates into the parameters' buffers
// as the executor's Backward computes them.
TEST(CachedOp, RecordedGradientsEqualTheExecutors) {
  const Symbol sym = Mlp();
  CachedOp op(Rt(), sym);
  std::map<std::string, NDArray> by = MlpValues(20);
  std::vector<NDArray> in = InputsByName(op, by);
  std::vector<NDArray*> vars;
  std::vector<NDArray> grads;
  for (NDArray& a : in) {
    vars.push_back(&a);
    grads.push_back(NDArray(a.shape(), kCpu, a.dtype(), Rt()));
    test::Array(a.shape(), std::vector<double>(static_cast<size_t>(a.Size()), 0))
        .CopyTo(&grads.back());
  }
  autograd::MarkVariables(vars, std::vector<GradReq>(in.size(), GradReq::kWrite), grads);
  const NDArray head = test::RandomArray(Shape{4, 2}, DType::kFloat32, -1, 1, 30);
  std::vector<NDArray> out;
  {
    autograd::RecordScope rec;
    out = op.Forward(in);
  }
  autograd::Backward(Rt(), out, {head});
  EXPECT_EQ(op.num_plans(), 1u);  // a recorded call runs its own training executor

  std::map<std::string, NDArray> sym_grads;
  for (const auto& [name, a] : by) sym_grads[name] = NDArray(a.shape(), kCpu, a.dtype(), Rt());
  auto ex = Executor::BindByName(Rt(), sym, kCpu, by, sym_grads, {}, {});
  ex->Forward(true);
  ex->Backward({head});
  EXPECT_LE(MaxDiff(out[0], ex->outputs()[0]), 1e-6);
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_LE(MaxDiff(grads[i], sym_grads.at(op.input_names()[i])), 1e-5) << op.input_names()[i];
}

// static_alloc: the outputs are the executor's (the same arrays every
// call), a steady state allocates nothing, a new parameter array rebinds.
TEST(CachedOp, StaticAllocSteadyStateAllocatesNothing) {
  const Symbol sym = Mlp();
  CachedOp op(Rt(), sym, CachedOpFlags::Parse({{"static_alloc", "true"}}));
  std::map<std::string, NDArray> by = MlpValues(40);
  std::vector<NDArray> in = InputsByName(op, by);
  const std::vector<NDArray> first = op.Forward(in);
  first[0].WaitToRead();
  const StorageStats before = Rt()->storage(kCpu)->stats();
  std::vector<NDArray> again;
  for (int r = 0; r < 3; ++r) again = op.Forward(in);
  again[0].WaitToRead();
  const StorageStats after = Rt()->storage(kCpu)->stats();
  EXPECT_EQ(after.num_allocs, before.num_allocs);
  EXPECT_EQ(after.num_reuses, before.num_reuses);
  EXPECT_EQ(again[0].dptr(), first[0].dptr());
  EXPECT_EQ(op.num_plans(), 1u);

  auto ex = Executor::BindByName(Rt(), sym, kCpu, by, {}, {}, {});
  ex->Forward(false);
  EXPECT_LE(MaxDiff(again[0], ex->outputs()[0]), 1e-6);
  // Other weights (another array): rebound to the same plan, their numbers.
  std::map<std::string, NDArray> other = MlpValues(50);
  other["x"] = by["x"];
  const std::vector<NDArray> out = op.Forward(InputsByName(op, other));
  auto ex2 = Executor::BindByName(Rt(), sym, kCpu, other, {}, {}, {});
  ex2->Forward(false);
  EXPECT_LE(MaxDiff(out[0], ex2->outputs()[0]), 1e-6);
  EXPECT_GT(MaxDiff(out[0], ex->outputs()[0]), 1e-3);
  EXPECT_EQ(op.num_plans(), 1u);
}

// One recorded call's gradients for `by` (parameters and data), each input
// marked with a fresh buffer, head gradient `head`.
std::vector<std::vector<double>> RecordedGrads(CachedOp* op, std::map<std::string, NDArray> by,
                                               const NDArray& head) {
  std::vector<NDArray> in = InputsByName(*op, by);
  std::vector<NDArray*> vars;
  std::vector<NDArray> grads;
  for (NDArray& a : in) {
    vars.push_back(&a);
    grads.push_back(test::Array(a.shape(), std::vector<double>(static_cast<size_t>(a.Size()), 0)));
  }
  autograd::MarkVariables(vars, std::vector<GradReq>(in.size(), GradReq::kWrite), grads);
  std::vector<NDArray> out;
  {
    autograd::RecordScope rec;
    out = op->Forward(in);
  }
  autograd::Backward(Rt(), out, {head});
  std::vector<std::vector<double>> values;
  for (const NDArray& g : grads) values.push_back(test::Values(g));
  return values;
}

// Two recorded calls held at once take two executors of the pool; threads
// recording through one CachedOp at once get what one caller gets.
TEST(CachedOp, RecordedCallsAtOnceAndFromTwoThreads) {
  const Symbol sym = Mlp();
  CachedOp op(Rt(), sym);
  const NDArray head = test::RandomArray(Shape{4, 2}, DType::kFloat32, -1, 1, 60);
  std::vector<std::vector<std::vector<double>>> want;
  for (unsigned seed : {70u, 80u}) want.push_back(RecordedGrads(&op, MlpValues(seed), head));
  // Both calls recorded before either back-propagates: each keeps its own
  // executor's forward state.
  std::vector<NDArray> ins[2], outs[2], grads[2];
  for (int k = 0; k < 2; ++k) {
    ins[k] = InputsByName(op, MlpValues(k == 0 ? 70 : 80));
    std::vector<NDArray*> vars;
    for (NDArray& a : ins[k]) {
      vars.push_back(&a);
      grads[k].push_back(
          test::Array(a.shape(), std::vector<double>(static_cast<size_t>(a.Size()), 0)));
    }
    autograd::MarkVariables(vars, std::vector<GradReq>(vars.size(), GradReq::kWrite), grads[k]);
    autograd::RecordScope rec;
    outs[k] = op.Forward(ins[k]);
  }
  for (int k = 1; k >= 0; --k) {
    autograd::Backward(Rt(), outs[k], {head});
    for (size_t i = 0; i < grads[k].size(); ++i)
      EXPECT_EQ(test::Values(grads[k][i]), want[k][i]) << "call " << k << " input " << i;
  }
  std::vector<std::vector<std::vector<double>>> got(2);
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      for (int r = 0; r < 3; ++r) got[k] = RecordedGrads(&op, MlpValues(k == 0 ? 70 : 80), head);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(got, want);
}

TEST(CachedOp, FlagsAndErrors) {
  const CachedOpFlags f = CachedOpFlags::Parse({{"static_alloc", "1"},
                                                {"static_shape", "True"},
                                                {"data_indices", "[0]"},
                                                {"param_indices", "[1, 2, 3, 4]"},
                                                {"inline_limit", "0"},
                                                {"forward_bulk_size", "15"}});
  EXPECT_TRUE(f.static_alloc);
  EXPECT_TRUE(f.static_shape);
  EXPECT_EQ(f.data_indices, (std::vector<int>{0}));
  EXPECT_EQ(f.param_indices, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_THROW(CachedOpFlags::Parse({{"static_aloc", "1"}}), Error);
  EXPECT_THROW(CachedOpFlags::Parse({{"static_alloc", "maybe"}}), Error);
  const Symbol sym = Mlp();
  CachedOpFlags bad;
  bad.param_indices = {7};
  EXPECT_THROW(CachedOp(Rt(), sym, bad), Error);
  CachedOp op(Rt(), sym, f);
  try {
    op.Forward({test::Array(Shape{1}, {1})});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 5 input(s)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace weft
