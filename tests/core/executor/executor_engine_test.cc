// The executor on the dependency engine: Forward/Backward return before the
// nodes run, independent branches run in parallel on the threaded engine,
// reuse of planned blocks is ordered, mutated inputs (BatchNorm's moving
// statistics) and the caller's pending writes are ordered, and kernel
// failures surface at the wait naming the node.
//
// A test op `_test_hook` (out = data + 1 after calling the current hook with
// the node's name) lives in a runtime of its own. Tests that need two
// workers at once skip on the naive engine or a single worker (WEFT_ENGINE /
// WEFT_ENGINE_THREADS select the global engine).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "core/engine/engine_test_util.h"
#include "op/op_common.h"
#include "register_kernels.h"
#include "util/test_util.h"
#include "weft/engine.h"
#include "weft/executor.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);

// Called by every _test_hook kernel with its node's name; set per test.
std::mutex hook_mu;
std::function<void(const std::string&)> hook;  // GUARDED_BY(hook_mu) for assignment

void SetHook(std::function<void(const std::string&)> f) {
  std::lock_guard<std::mutex> l(hook_mu);
  hook = std::move(f);
}

// The global operators plus _test_hook. Leaked like the global runtime.
Runtime* TestRuntime() {
  static Runtime* rt = [] {
    auto* r = new Runtime();
    InstallBuiltinKernels(r);
    OpDef d;
    d.name = "_test_hook";
    d.num_inputs = 1;
    d.infer_shape = op::ElemwiseShape;
    d.infer_type = op::ElemwiseType;
    r->mutable_ops()->Add(d);
    Kernel k;
    k.backend = "test";
    k.fn = [](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>&, const std::vector<TBlob>& out) {
      std::function<void(const std::string&)> f;
      {
        std::lock_guard<std::mutex> l(hook_mu);
        f = hook;
      }
      if (f) f(attrs.name);
      const float* x = in[0].data<float>();
      float* y = out[0].data<float>();
      for (int64_t i = 0; i < out[0].shape.Size(); ++i) y[i] = x[i] + 1;
    };
    r->mutable_kernels()->Add("_test_hook", DeviceType::kCPU, k);
    return r;
  }();
  return rt;
}

Symbol Hook(const Symbol& x, const std::string& name) {
  return Symbol::Apply(TestRuntime()->ops(), "_test_hook", {x}, {}, name);
}

Symbol Op(const std::string& op, const std::vector<Symbol>& in, const StringMap& params,
          const std::string& name) {
  return Symbol::Apply(TestRuntime()->ops(), op, in, params, name);
}

bool TwoWorkers() {
  Engine* e = Engine::Get();
  return e->kind() == EngineKind::kThreaded && e->num_cpu_workers() >= 2;
}

// A rendezvous of `n` parties: Arrive returns true when all arrived within
// the timeout (never deadlocks when they cannot run at once).
class Latch {
 public:
  explicit Latch(int n) : n_(n) {}
  bool Arrive() {
    std::unique_lock<std::mutex> l(mu_);
    if (++count_ >= n_) cv_.notify_all();
    return cv_.wait_for(l, std::chrono::seconds(10), [&] { return count_ >= n_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, count_ = 0;
};

void SetX(Executor* ex, const std::vector<float>& v) {
  NDArray(ex->arg_arrays()[0]).CopyFromHost(v.data(), v.size() * sizeof(float));
}

// Two independent chains x -> a1 -> a2 and x -> b1 -> b2, joined by a sum.
// Each step of one chain waits until the same step of the other has
// started, so both chains must run at once (num_groups 2 keeps the plan
// from reusing one chain's blocks in the other, which would order them).
TEST(ExecutorEngine, IndependentBranchesRunInParallel) {
  if (!TwoWorkers()) GTEST_SKIP() << "needs the threaded engine with >= 2 workers";
  NameScope scope;
  Symbol x = Symbol::CreateVariable("x");
  Symbol y = Op("elemwise_add", {Hook(Hook(x, "a1"), "a2"), Hook(Hook(x, "b1"), "b2")}, {}, "sum");
  ExecutorOptions opt;
  opt.num_groups = 2;
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{4}}}, {},
                                 GradReqSpec::All(GradReq::kNull), opt);
  SetX(ex.get(), {1, 2, 3, 4});
  Latch first(2), second(2);
  std::mutex mu;
  std::map<std::string, bool> met;
  SetHook([&](const std::string& node) {
    Latch* l = node[1] == '1' ? &first : &second;
    bool ok = l->Arrive();
    std::lock_guard<std::mutex> g(mu);
    met[node] = ok;
  });
  ex->Forward(false);
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{6, 8, 10, 12}));
  SetHook(nullptr);
  for (const char* n : {"a1", "b1", "a2", "b2"})
    EXPECT_TRUE(met[n]) << n << " did not run beside its twin";
}

// Forward returns while its nodes are still blocked in the engine.
TEST(ExecutorEngine, ForwardReturnsBeforeTheNodesRun) {
  if (Engine::Get()->kind() != EngineKind::kThreaded)
    GTEST_SKIP() << "the naive engine runs inside Forward";
  NameScope scope;
  Symbol y = Hook(Symbol::CreateVariable("x"), "gate");
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{2}}}, {},
                                 GradReqSpec::All(GradReq::kNull), {});
  SetX(ex.get(), {1, 2});
  std::mutex mu;
  std::condition_variable cv;
  bool open = false, ran_before_open = false;
  SetHook([&](const std::string&) {
    std::unique_lock<std::mutex> l(mu);
    cv.wait_for(l, std::chrono::seconds(10), [&] { return open; });
    ran_before_open = !open;
  });
  ex->Forward(false);
  {
    std::lock_guard<std::mutex> l(mu);
    open = true;
  }
  cv.notify_all();
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{2, 3}));
  SetHook(nullptr);
  EXPECT_FALSE(ran_before_open) << "Forward waited for its nodes";
}

// a = 2x is read only by the slow node b; c = x + 100 is then planned into
// a's freed block. c must wait for b's read of a: if each entry had its own
// engine variable, c would overwrite a while b sleeps (on >= 2 workers) and
// y would be 2x + 201 instead of 3x + 101.
TEST(ExecutorEngine, ReusedBlockWaitsForItsLastReader) {
  NameScope scope;
  Symbol x = Symbol::CreateVariable("x");
  Symbol a = Op("_mul_scalar", {x}, {{"scalar", "2"}}, "a");
  Symbol b = Hook(a, "slow");
  Symbol c = Op("_plus_scalar", {x}, {{"scalar", "100"}}, "c");
  Symbol y = Op("elemwise_add", {b, c}, {}, "y");
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{3}}}, {},
                                 GradReqSpec::All(GradReq::kNull), {});
  // Two blocks: b's (then y's, in place) and a's, reused by c.
  EXPECT_EQ(ex->memory().num_storage, 2u);
  EXPECT_EQ(ex->memory().num_reused, 1u);
  SetX(ex.get(), {1, 2, 3});
  SetHook([](const std::string&) { std::this_thread::sleep_for(std::chrono::milliseconds(60)); });
  for (int i = 0; i < 3; ++i) {
    ex->Forward(false);
    EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{104, 107, 110}));
  }
  SetHook(nullptr);
}

// A write the caller pushed on an argument (slow, asynchronous) is ordered
// before the Forward that reads it.
TEST(ExecutorEngine, PendingWritesToArgumentsComeFirst) {
  NameScope scope;
  Symbol y = Op("_mul_scalar", {Symbol::CreateVariable("x")}, {{"scalar", "10"}}, "y");
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{2}}}, {},
                                 GradReqSpec::All(GradReq::kNull), {});
  NDArray src = test::Array({2}, {1, 2});
  SetHook([](const std::string&) { std::this_thread::sleep_for(std::chrono::milliseconds(60)); });
  std::vector<NDArray> outs{ex->arg_arrays()[0]};
  Invoke(TestRuntime(), "_test_hook", {src}, {}, &outs);  // x = src + 1, later
  ex->Forward(false);
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{20, 30}));
  SetHook(nullptr);
}

// BatchNorm mutates its moving mean (an input): waiting on the aux array
// must wait for the update, though the slow node before it delays it.
TEST(ExecutorEngine, WaitOnAuxStateSeesTheBatchNormUpdate) {
  NameScope scope;
  Symbol h = Hook(Symbol::CreateVariable("x"), "slow");
  Symbol y = Op("BatchNorm", {h}, {{"fix_gamma", "False"}, {"momentum", "0.9"}}, "bn");
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{2, 3}}}, {},
                                 GradReqSpec::All(GradReq::kNull), {});
  ASSERT_EQ(ex->aux_names()[0], "bn_moving_mean");
  SetX(ex.get(), {0, 1, 2, 2, 3, 4});  // after +1: channel means 2, 3, 4
  SetHook([](const std::string&) { std::this_thread::sleep_for(std::chrono::milliseconds(60)); });
  ex->Forward(true);
  std::vector<double> mean = test::Values(ex->aux_arrays()[0]);
  SetHook(nullptr);
  ASSERT_EQ(mean.size(), 3u);
  EXPECT_NEAR(mean[0], 0.2, 1e-6);
  EXPECT_NEAR(mean[1], 0.3, 1e-6);
  EXPECT_NEAR(mean[2], 0.4, 1e-6);
}

// A kernel failure in Forward surfaces at the output's wait, naming the node
// and op; every wait reports it until the next Forward, which runs normally.
TEST(ExecutorEngine, KernelErrorSurfacesAtTheWaitNamingTheNode) {
  NameScope scope;
  Symbol y = Op("_mul_scalar", {Hook(Symbol::CreateVariable("x"), "bad")}, {{"scalar", "2"}}, "y");
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{2}}}, {},
                                 GradReqSpec::All(GradReq::kNull), {});
  SetX(ex.get(), {1, 2});
  SetHook([](const std::string& node) {
    Fail(StatusCode::kInvalidArgument, "node ", node, " refuses");
  });
  ex->Forward(false);  // does not throw: the failure is deferred
  try {
    ex->outputs()[0].WaitToRead();
    ADD_FAILURE() << "expected the kernel error at the wait";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("_test_hook:bad"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("node bad refuses"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ex->outputs()[0].WaitToRead(), Error);  // not consumed by the first wait
  SetHook(nullptr);
  ex->Forward(false);
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{4, 6}));
}

// With bulk execution the failing node sits inside one engine operation
// with its neighbours: the error still names it, not the segment.
TEST(ExecutorEngine, KernelErrorInsideABulkedSegmentNamesTheNode) {
  NameScope scope;
  Symbol h = Op("_plus_scalar", {Symbol::CreateVariable("x")}, {{"scalar", "1"}}, "before");
  Symbol y = Op("_mul_scalar", {Hook(h, "middle")}, {{"scalar", "2"}}, "after");
  ExecutorOptions opt;
  opt.bulk_max_nodes = 64;
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{2}}}, {},
                                 GradReqSpec::All(GradReq::kNull), opt);
  EXPECT_NE(ex->DebugString().find("Engine operations: 1 forward"), std::string::npos)
      << ex->DebugString();
  SetX(ex.get(), {1, 2});
  SetHook([](const std::string& node) {
    Fail(StatusCode::kInvalidArgument, "node ", node, " refuses");
  });
  ex->Forward(false);
  try {
    ex->outputs()[0].WaitToRead();
    ADD_FAILURE() << "expected the kernel error at the wait";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(
        std::string(e.what()).find("engine op '_test_hook:middle' failed: node middle refuses"),
        std::string::npos)
        << e.what();
  }
  SetHook(nullptr);
  ex->Forward(false);
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{6, 8}));
}

// A failure in a gradient node (SoftmaxOutput's label check) surfaces at
// the gradient array, and Backward still returns normally.
TEST(ExecutorEngine, BackwardKernelErrorSurfacesAtTheGradient) {
  NameScope scope;
  Symbol y =
      Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput",
                    {Symbol::CreateVariable("data"), Symbol::CreateVariable("label")}, {}, "sm");
  GradReqSpec req;
  req.by_name["data"] = GradReq::kWrite;
  auto ex = Executor::SimpleBind(&Runtime::Global(), y, kCpu, {{"data", Shape{1, 3}}}, {}, req);
  NDArray(ex->arg_arrays()[0]).CopyFromHost(std::vector<float>{0, 0, 0}.data(), 12);
  NDArray(ex->arg_arrays()[1]).CopyFromHost(std::vector<float>{7}.data(), 4);
  ex->Forward(true);
  EXPECT_NO_THROW(ex->Backward());
  try {
    test::Values(ex->grad_arrays()[0]);
    ADD_FAILURE() << "expected the label error at the gradient";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SoftmaxOutput:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("label 7"), std::string::npos) << e.what();
  }
  NDArray(ex->arg_arrays()[1]).CopyFromHost(std::vector<float>{2}.data(), 4);
  ex->Forward(true);
  ex->Backward();
  std::vector<double> g = test::Values(ex->grad_arrays()[0]);
  EXPECT_NEAR(g[2], 1.0 / 3 - 1, 1e-6);
}

// Many Forward/Backward rounds queued without waiting, with grad_req add:
// every round is ordered after the previous one ((x+1)^2's gradient summed
// 5 times).
TEST(ExecutorEngine, QueuedRoundsAccumulateInOrder) {
  NameScope scope;
  Symbol h = Op("_plus_scalar", {Symbol::CreateVariable("x")}, {{"scalar", "1"}}, "h");
  Symbol y = Op("square", {h}, {}, "sq");
  GradReqSpec req;
  req.by_name["x"] = GradReq::kAdd;
  auto ex = Executor::SimpleBind(TestRuntime(), y, kCpu, {{"x", Shape{2}}}, {}, req, {});
  SetX(ex.get(), {1, 3});  // h = x + 1 = (2, 4); d/dx (h^2) = 2h
  NDArray head = test::Array({2}, {1, 1});
  for (int i = 0; i < 5; ++i) {
    ex->Forward(true);
    ex->Backward({head});
  }
  EXPECT_EQ(test::Values(ex->grad_arrays()[0]), (std::vector<double>{20, 40}));
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{4, 16}));
}

}  // namespace
}  // namespace weft
