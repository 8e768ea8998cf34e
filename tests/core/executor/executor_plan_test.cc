// ExecutorPlan: one compiled plan, several executors bound to it, each
// with its own arrays, memory and constant-step state.
#include "weft/executor_plan.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/pass/inference_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

using test::Apply;

const Context kCpu = Context::CPU(0);
Runtime* Rt() { return &Runtime::Global(); }

// conv -> BatchNorm -> relu -> fc: the inference passes fold and fuse it.
Symbol ConvNet() {
  Symbol x = Symbol::CreateVariable("data");
  Symbol c = Apply("Convolution", {x}, {{"num_filter", "4"}, {"kernel", "(3,3)"}, {"pad", "(1,1)"}},
                   "conv");
  Symbol b = Apply("BatchNorm", {c}, {{"fix_gamma", "False"}}, "bn");
  Symbol r = Apply("Activation", {b}, {{"act_type", "relu"}}, "relu");
  return Apply("FullyConnected", {r}, {{"num_hidden", "3"}}, "fc");
}
const pass::ShapeMap kShapes = {{"data", Shape{2, 3, 6, 6}}};

// Fresh arrays holding copies of `src`.
std::vector<NDArray> Copies(const std::vector<NDArray>& src) {
  std::vector<NDArray> out;
  for (const NDArray& a : src) {
    out.emplace_back(a.shape(), a.ctx(), a.dtype(), Rt());
    a.CopyTo(&out.back());
  }
  return out;
}

std::unique_ptr<Executor> BindCopies(const std::shared_ptr<const ExecutorPlan>& plan,
                                     const Executor& from) {
  return Executor::Bind(Rt(), plan, Copies(from.arg_arrays()), {}, Copies(from.aux_arrays()));
}

TEST(ExecutorPlan, ExecutorsOfOnePlanKeepTheirOwnArraysAndConstantSteps) {
  NameScope scope;
  const Symbol net = ConvNet();
  auto first = test::BindInference(net, kShapes, true);
  test::FillRandom(first.get(), 1);
  auto other = test::BindInference(net, kShapes, false);  // other weights, unoptimised
  test::FillRandom(other.get(), 2);
  const std::shared_ptr<const ExecutorPlan> plan = first->plan();
  auto second = BindCopies(plan, *other);
  EXPECT_EQ(second->plan().get(), plan.get());
  EXPECT_NE(second->outputs()[0].dptr(), first->outputs()[0].dptr());
  EXPECT_NE(first->DebugString().find("(constant)"), std::string::npos);  // folded weights
  first->Forward(false);
  second->Forward(false);
  other->Forward(false);
  EXPECT_LE(test::MaxRelDiff(*second, *other), 1e-5);
  auto first_ref = test::BindInference(net, kShapes, false);
  test::CopyArrays(*first, first_ref.get());
  first_ref->Forward(false);
  EXPECT_LE(test::MaxRelDiff(*first, *first_ref), 1e-5);
  EXPECT_GT(test::MaxRelDiff(*first, *second), 1e-3);  // the weights differ
  // A new weight in the second executor reruns its constant steps only.
  NDArray w = second->arg_arrays()[1];
  test::RandomArray(w.shape(), w.dtype(), -1, 1, 7).CopyTo(&w);
  NDArray ow = other->arg_arrays()[1];
  w.CopyTo(&ow);
  second->Forward(false);
  other->Forward(false);
  first->Forward(false);
  EXPECT_LE(test::MaxRelDiff(*second, *other), 1e-5);
  EXPECT_LE(test::MaxRelDiff(*first, *first_ref), 1e-5);
}

TEST(ExecutorPlan, TrainingExecutorsShareAPlanAndWriteTheirOwnGradients) {
  NameScope scope;
  Symbol h = Apply("FullyConnected", {Symbol::CreateVariable("x")}, {{"num_hidden", "5"}}, "fc1");
  Symbol y = Apply("FullyConnected", {Apply("Activation", {h}, {{"act_type", "tanh"}}, "act")},
                   {{"num_hidden", "2"}}, "fc2");
  GradReqSpec req = GradReqSpec::All(GradReq::kWrite);
  auto a = Executor::SimpleBind(Rt(), y, kCpu, {{"x", Shape{4, 3}}}, {}, req);
  auto ref = Executor::SimpleBind(Rt(), y, kCpu, {{"x", Shape{4, 3}}}, {}, req);
  test::FillRandom(a.get(), 3);
  test::FillRandom(ref.get(), 4);
  std::vector<NDArray> grads;
  for (const NDArray& g : ref->grad_arrays())
    grads.push_back(g.is_none() ? NDArray() : NDArray(g.shape(), g.ctx(), g.dtype(), Rt()));
  auto b = Executor::Bind(Rt(), a->plan(), Copies(ref->arg_arrays()), grads, {});
  EXPECT_EQ(b->plan().get(), a->plan().get());
  const NDArray head = test::RandomArray(Shape{4, 2}, DType::kFloat32, -1, 1, 5);
  for (Executor* ex : {a.get(), b.get(), ref.get()}) {
    ex->Forward(true);
    ex->Backward({head});
  }
  for (size_t i = 0; i < ref->grad_arrays().size(); ++i) {
    if (ref->grad_arrays()[i].is_none()) continue;
    const std::vector<double> want = test::Values(ref->grad_arrays()[i]),
                              got = test::Values(b->grad_arrays()[i]),
                              mine = test::Values(a->grad_arrays()[i]);
    double diff = 0, apart = 0;
    for (size_t k = 0; k < want.size(); ++k) {
      diff = std::max(diff, std::abs(got[k] - want[k]));
      apart = std::max(apart, std::abs(mine[k] - want[k]));
    }
    EXPECT_LE(diff, 1e-6) << b->arg_names()[i];
    // a's own weights give other gradients (the last bias's is the head's sum in both)
    if (b->arg_names()[i] != "fc2_bias") {
      EXPECT_GT(apart, 1e-4) << b->arg_names()[i];
    }
  }
}

TEST(ExecutorPlan, CompiledFromASignatureAlone) {
  NameScope scope;
  const Symbol net = ConvNet();
  auto ex = test::BindInference(net, kShapes, true);
  BindSignature sig;
  sig.ctx = kCpu;
  for (const NDArray& a : ex->arg_arrays()) sig.args.push_back({a.shape(), a.dtype(), kCpu});
  for (const NDArray& a : ex->aux_arrays()) sig.aux.push_back({a.shape(), a.dtype(), kCpu});
  sig.reqs.assign(sig.args.size(), GradReq::kNull);
  sig.grad_ctx.assign(sig.args.size(), kCpu);
  const auto plan = ExecutorPlan::Compile(Rt(), net, sig);
  EXPECT_EQ(plan->output_shapes(), (std::vector<Shape>{Shape{2, 3}}));
  EXPECT_EQ(plan->memory().planned_bytes, ex->memory().planned_bytes);
  EXPECT_EQ(plan->memory().num_storage, ex->memory().num_storage);
  EXPECT_EQ(IndexedGraph(plan->graph()).num_nodes(), IndexedGraph(ex->graph()).num_nodes());
  test::FillRandom(ex.get(), 6);
  auto bound = BindCopies(plan, *ex);
  ex->Forward(false);
  bound->Forward(false);
  EXPECT_LE(test::MaxRelDiff(*bound, *ex), 1e-6);
  // A signature that does not fit the symbol is refused.
  sig.args.pop_back();
  try {
    ExecutorPlan::Compile(Rt(), net, sig);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("signature"), std::string::npos) << e.what();
  }
}

TEST(ExecutorPlan, BindRefusesArraysThePlanWasNotCompiledFor) {
  NameScope scope;
  Symbol y = Apply("FullyConnected", {Symbol::CreateVariable("x")}, {{"num_hidden", "2"}}, "fc");
  auto ex = Executor::SimpleBind(Rt(), y, kCpu, {{"x", Shape{3, 4}}}, {},
                                 GradReqSpec::All(GradReq::kWrite));
  const auto plan = ex->plan();
  auto expect_error = [&](std::vector<NDArray> args, std::vector<NDArray> grads,
                          const std::string& names) {
    try {
      Executor::Bind(Rt(), plan, std::move(args), std::move(grads), {});
      FAIL() << "no error for " << names;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
  };
  const std::vector<NDArray> args = Copies(ex->arg_arrays()), grads = Copies(ex->grad_arrays());
  std::vector<NDArray> wrong = args;
  wrong[1] = NDArray(Shape{2, 5}, kCpu, DType::kFloat32, Rt());
  expect_error(wrong, grads, "argument 'fc_weight' is (2,5) float32");
  wrong = args;
  wrong[0] = NDArray(Shape{3, 4}, kCpu, DType::kFloat64, Rt());
  expect_error(wrong, grads, "compiled for (3,4) float32");
  std::vector<NDArray> no_grad = grads;
  no_grad[2] = NDArray();
  expect_error(args, no_grad, "gradient array of 'fc_bias' is missing");
  expect_error({args[0], args[1]}, grads, "the plan takes 3 argument(s)");
  // The arrays it was compiled for bind and run.
  auto again = Executor::Bind(Rt(), plan, args, grads, {});
  again->Forward(true);
  again->Backward({test::RandomArray(Shape{3, 2}, DType::kFloat32, -1, 1, 8)});
  EXPECT_EQ(again->grad_arrays()[1].shape(), Shape({2, 4}));
}

TEST(ExecutorPlan, ExecutorsOfOnePlanRunConcurrently) {
  NameScope scope;
  const Symbol net = ConvNet();
  auto first = test::BindInference(net, kShapes, true);
  test::FillRandom(first.get(), 9);
  first->Forward(false);
  const std::vector<double> want = test::Values(first->outputs()[0]);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&] {
      auto ex = BindCopies(first->plan(), *first);
      for (int r = 0; r < 10; ++r) {
        ex->Forward(false);
        const std::vector<double> got = test::Values(ex->outputs()[0]);
        for (size_t k = 0; k < got.size(); ++k)
          if (std::abs(got[k] - want[k]) > 1e-6 * (1 + std::abs(want[k]))) ++mismatches;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace weft
