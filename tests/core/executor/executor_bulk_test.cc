// Bulk execution (ExecutorOptions::bulk_max_nodes): consecutive dependent
// nodes are pushed as one engine operation. Results equal the one-op-per-node
// run bit for bit; chains become one operation, independent branches and
// caller-visible outputs end segments, the size cap holds, a failing node
// inside a segment is named at the wait, and a bad environment value fails
// the bind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/executor.h"
#include "weft/status.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);

Symbol Op(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
          const std::string& name) {
  return Symbol::Apply(Runtime::Global().ops(), op, in, p, name);
}

Symbol Chain(Symbol h, int n, const std::string& prefix) {
  for (int i = 0; i < n; ++i)
    h = Op("_plus_scalar", {h}, {{"scalar", "1"}}, prefix + std::to_string(i));
  return h;
}

// "Engine operations: F forward, B backward" from DebugString.
std::pair<int, int> EngineOps(const Executor& ex) {
  const std::string s = ex.DebugString();
  const size_t at = s.find("Engine operations: ");
  EXPECT_NE(at, std::string::npos) << s;
  int f = -1, b = -1;
  std::sscanf(s.c_str() + at, "Engine operations: %d forward, %d backward", &f, &b);
  return {f, b};
}

std::unique_ptr<Executor> Bind(const Symbol& y, const std::map<std::string, Shape>& shapes,
                               GradReq req, int bulk) {
  ExecutorOptions opt;
  opt.bulk_max_nodes = bulk;
  opt.optimize_inference =
      false;  // the graphs as written (FuseElemwiseChains would fuse the chains)
  return Executor::SimpleBind(&Runtime::Global(), y, kCpu, shapes, {}, GradReqSpec::All(req), opt);
}

// A small CNN with a residual branch, BatchNorm and a loss.
Symbol SmallResNet() {
  Symbol x = Symbol::CreateVariable("data");
  auto conv = [](const Symbol& in, const std::string& name) {
    return Op("Convolution", {in}, {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "4"}},
              name);
  };
  Symbol h = Op("Activation", {Op("BatchNorm", {conv(x, "c1")}, {{"fix_gamma", "False"}}, "bn1")},
                {{"act_type", "relu"}}, "r1");
  Symbol b = Op("BatchNorm", {conv(h, "c2")}, {{"fix_gamma", "False"}}, "bn2");
  Symbol sc = conv(x, "sc");
  h = Op("Activation", {Op("elemwise_add", {b, sc}, {}, "add")}, {{"act_type", "relu"}}, "r2");
  h = Op("FullyConnected", {Op("Flatten", {h}, {}, "flat")}, {{"num_hidden", "3"}}, "fc");
  return Op("SoftmaxOutput", {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

void Fill(Executor* ex) {
  const auto names = ex->symbol().ListArguments();
  for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    NDArray r = names[i] == "softmax_label" ? test::Array(a.shape(), {0, 2}, a.dtype())
                                            : test::RandomArray(a.shape(), a.dtype(), -1, 1, 7 + i);
    r.CopyTo(&a);
  }
}

TEST(ExecutorBulk, TrainingResultsEqualOneOperationPerNode) {
  NameScope scope;
  Symbol y = SmallResNet();
  const std::map<std::string, Shape> shapes{{"data", Shape{2, 3, 5, 5}}};
  auto one = Bind(y, shapes, GradReq::kWrite, 0);
  auto bulk = Bind(y, shapes, GradReq::kWrite, 64);
  Fill(one.get());
  Fill(bulk.get());
  for (int round = 0; round < 2; ++round) {
    for (Executor* ex : {one.get(), bulk.get()}) {
      ex->Forward(true);
      ex->Backward();
    }
    EXPECT_EQ(test::Values(one->outputs()[0]), test::Values(bulk->outputs()[0]));
    for (size_t i = 0; i < one->grad_arrays().size(); ++i) {
      if (!one->grad_arrays()[i].is_none()) {
        EXPECT_EQ(test::Values(one->grad_arrays()[i]), test::Values(bulk->grad_arrays()[i]))
            << "grad " << i;
      }
    }
    for (size_t i = 0; i < one->aux_arrays().size(); ++i)
      EXPECT_EQ(test::Values(one->aux_arrays()[i]), test::Values(bulk->aux_arrays()[i]))
          << "aux " << i;
  }
  const auto [f1, b1] = EngineOps(*one);
  const auto [fb, bb] = EngineOps(*bulk);
  EXPECT_LT(fb, f1);
  EXPECT_LT(bb, b1);
}

TEST(ExecutorBulk, ChainIsOneOperationUpToTheCap) {
  NameScope scope;
  Symbol y = Chain(Symbol::CreateVariable("x"), 10, "p");
  auto all = Bind(y, {{"x", Shape{3}}}, GradReq::kNull, 64);
  EXPECT_EQ(EngineOps(*all).first, 1);
  auto capped = Bind(y, {{"x", Shape{3}}}, GradReq::kNull, 4);
  EXPECT_EQ(EngineOps(*capped).first, 3);  // 4 + 4 + 2
  auto none = Bind(y, {{"x", Shape{3}}}, GradReq::kNull, 1);
  EXPECT_EQ(EngineOps(*none).first, 10);
  NDArray x = capped->arg_arrays()[0];
  test::Array(Shape{3}, {1, 2, 3}).CopyTo(&x);
  capped->Forward(false);
  EXPECT_EQ(test::Values(capped->outputs()[0]), (std::vector<double>{11, 12, 13}));
}

TEST(ExecutorBulk, IndependentBranchesAndVisibleOutputsEndSegments) {
  NameScope scope;
  Symbol x = Symbol::CreateVariable("x");
  // Two independent chains of 3 joined by a sum: a, then b (independent of
  // a), then the sum on its own (joining b's segment would make b wait for
  // a).
  ExecutorOptions opt;
  opt.num_groups = 2;
  opt.bulk_max_nodes = 64;
  opt.optimize_inference = false;
  Symbol y = Op("elemwise_add", {Chain(x, 3, "a"), Chain(x, 3, "b")}, {}, "sum");
  auto ex = Executor::SimpleBind(&Runtime::Global(), y, kCpu, {{"x", Shape{2}}}, {},
                                 GradReqSpec::All(GradReq::kNull), opt);
  EXPECT_EQ(EngineOps(*ex).first, 3);
  // A caller-visible output in the middle of a chain ends its segment.
  Symbol first = Chain(x, 2, "u");
  Symbol both = Symbol::Group({first, Chain(first, 2, "v")});
  auto ex2 = Bind(both, {{"x", Shape{2}}}, GradReq::kNull, 64);
  EXPECT_EQ(EngineOps(*ex2).first, 2);
  NDArray in = ex2->arg_arrays()[0];
  test::Array(Shape{2}, {0, 10}).CopyTo(&in);
  ex2->Forward(false);
  EXPECT_EQ(test::Values(ex2->outputs()[0]), (std::vector<double>{2, 12}));
  EXPECT_EQ(test::Values(ex2->outputs()[1]), (std::vector<double>{4, 14}));
}

// An optimised inference graph of convolutions with BatchNorm: each fold
// (a constant step reading parameters only) would start an operation of
// its own and cut the chain of convolutions after it. The folds are pushed
// first, as one operation, and the convolutions chain: 2 operations instead
// of one per fold and per convolution; the outputs equal the unbulked run,
// and a weight written between forwards is folded again.
TEST(ExecutorBulk, FoldedBatchNormsDoNotSplitTheChain) {
  NameScope scope;
  Symbol h = Symbol::CreateVariable("data");
  for (int i = 0; i < 4; ++i) {
    const std::string k = std::to_string(i);
    h = Op("Convolution", {h},
           {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "4"}, {"no_bias", "True"}},
           "c" + k);
    h = Op("Activation", {Op("BatchNorm", {h}, {{"fix_gamma", "False"}}, "bn" + k)},
           {{"act_type", "relu"}}, "r" + k);
  }
  auto bind = [&](int bulk) {
    ExecutorOptions opt;
    opt.bulk_max_nodes = bulk;
    auto ex = Executor::SimpleBind(&Runtime::Global(), h, kCpu, {{"data", Shape{1, 4, 5, 5}}}, {},
                                   GradReqSpec::All(GradReq::kNull), opt);
    for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
      NDArray a = ex->arg_arrays()[i];
      test::RandomArray(a.shape(), a.dtype(), -1, 1, 11 + i).CopyTo(&a);
    }
    for (size_t i = 0; i < ex->aux_arrays().size(); ++i) {
      NDArray a = ex->aux_arrays()[i];
      test::RandomArray(a.shape(), a.dtype(), 0.5, 1.5, 31 + i).CopyTo(&a);
    }
    return ex;
  };
  auto bulk = bind(64), one = bind(1);
  ASSERT_NE(bulk->DebugString().find("Op:_bn_fold, Name=bn3_fold (constant)"), std::string::npos)
      << bulk->DebugString();
  EXPECT_EQ(EngineOps(*bulk).first, 2);
  EXPECT_EQ(EngineOps(*one).first, 8);  // 4 folds, 4 fused convolutions
  for (int round = 0; round < 2; ++round) {
    if (round == 1)  // a new weight for the last layer: folded again in both
      for (Executor* ex : {bulk.get(), one.get()}) {
        const auto names = ex->symbol().ListArguments();
        const size_t at = std::find(names.begin(), names.end(), "c3_weight") - names.begin();
        ASSERT_LT(at, names.size());
        NDArray w = ex->arg_arrays()[at];
        test::RandomArray(w.shape(), w.dtype(), -2, 2, 99).CopyTo(&w);
      }
    bulk->Forward(false);
    one->Forward(false);
    EXPECT_EQ(test::Values(bulk->outputs()[0]), test::Values(one->outputs()[0])) << round;
  }
}

TEST(ExecutorBulk, MalformedEnvironmentValueFailsTheBind) {
  NameScope scope;
  Symbol y = Chain(Symbol::CreateVariable("x"), 2, "p");
  setenv("WEFT_EXEC_BULK_MAX_NODES", "lots", 1);
  try {
    Bind(y, {{"x", Shape{2}}}, GradReq::kNull, -1);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("WEFT_EXEC_BULK_MAX_NODES is 'lots'"), std::string::npos)
        << e.what();
  }
  setenv("WEFT_EXEC_BULK_MAX_NODES", "3", 1);
  EXPECT_EQ(EngineOps(*Bind(Chain(Symbol::CreateVariable("x"), 7, "q"), {{"x", Shape{2}}},
                            GradReq::kNull, -1))
                .first,
            3);
  unsetenv("WEFT_EXEC_BULK_MAX_NODES");
}

}  // namespace
}  // namespace weft
