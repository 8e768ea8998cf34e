// Executors with several outputs, and several executors run at once from
// different threads.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "util/test_util.h"
#include "weft/runtime.h"
#include "weft/executor.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);
Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

GradReqSpec WriteFor(const std::string& name) {
  GradReqSpec r;
  r.by_name[name] = GradReq::kWrite;
  return r;
}

// x split into halves p, q; three outputs p*q, p+q and tanh(x), each with its
// own head gradient: dx = d/dx sum(g0*p*q + g1*(p+q) + g2*tanh(x)).
TEST(ExecutorMulti, GroupOfOutputsTakesOneHeadGradientEach) {
  NameScope scope;
  Symbol x = Var("x");
  Symbol parts = Symbol::Apply(Runtime::Global().ops(), "SliceChannel", {x},
                               {{"num_outputs", "2"}, {"axis", "0"}}, "split");
  Symbol prod =
      Symbol::Apply(Runtime::Global().ops(), "elemwise_mul", {parts[0], parts[1]}, {}, "prod");
  Symbol sum =
      Symbol::Apply(Runtime::Global().ops(), "elemwise_add", {parts[0], parts[1]}, {}, "sum");
  Symbol th = Symbol::Apply(Runtime::Global().ops(), "tanh", {x}, {}, "th");
  Symbol g = Symbol::Group({prod, sum, th});
  auto ex = Executor::SimpleBind(&Runtime::Global(), g, kCpu, {{"x", Shape{4}}}, {}, WriteFor("x"));
  ASSERT_EQ(ex->outputs().size(), 3u);
  const std::vector<float> xv{0.5f, -1.f, 2.f, 0.25f};
  NDArray(ex->arg_arrays()[0]).CopyFromHost(xv.data(), xv.size() * sizeof(float));
  ex->Forward(true);
  // p = (0.5,-1), q = (2,0.25)
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{1.0, -0.25}));
  EXPECT_EQ(test::Values(ex->outputs()[1]), (std::vector<double>{2.5, -0.75}));
  std::vector<double> th_out = test::Values(ex->outputs()[2]);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(th_out[i], std::tanh(xv[i]), 1e-6);

  const std::vector<double> g0{1, 2}, g1{-1, 0.5}, g2{0.5, 1, -2, 3};
  ex->Backward({test::Array({2}, g0), test::Array({2}, g1), test::Array({4}, g2)});
  std::vector<double> got = test::Values(ex->grad_arrays()[0]);
  // dp = g0*q + g1, dq = g0*p + g1, plus g2*(1 - tanh^2) everywhere.
  std::vector<double> want{g0[0] * xv[2] + g1[0], g0[1] * xv[3] + g1[1], g0[0] * xv[0] + g1[0],
                           g0[1] * xv[1] + g1[1]};
  for (size_t i = 0; i < 4; ++i) {
    double t = std::tanh(static_cast<double>(xv[i]));
    want[i] += g2[i] * (1 - t * t);
    EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  }
  // A wrong number of head gradients is refused, naming the counts.
  try {
    ex->Backward({test::Array({2}, g0)});
    FAIL() << "one head gradient for three outputs was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("3"), std::string::npos) << e.what();
  }
}

// Distinct executors bound and run concurrently on their own threads give
// the same results as one run alone.
TEST(ExecutorMulti, DistinctExecutorsRunConcurrently) {
  NameScope scope;
  Symbol h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {Var("data")},
                           {{"num_hidden", "16"}}, "fc1");
  h = Symbol::Apply(Runtime::Global().ops(), "Activation", {h}, {{"act_type", "relu"}}, "act1");
  h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {h}, {{"num_hidden", "4"}}, "fc2");
  const pass::ShapeMap shapes{{"data", Shape{8, 10}}};
  auto fill = [](Executor* ex) {
    for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
      NDArray a = ex->arg_arrays()[i];
      std::vector<float> v(static_cast<size_t>(a.shape().Size()));
      for (size_t k = 0; k < v.size(); ++k) v[k] = std::sin(0.37f * (k + 11 * i));
      a.CopyFromHost(v.data(), v.size() * sizeof(float));
    }
  };
  auto run = [&](Executor* ex) {
    ex->Forward(true);
    ex->Backward({test::Array({8, 4}, std::vector<double>(32, 1.0))});
    std::vector<double> r = test::Values(ex->outputs()[0]);
    for (const NDArray& g : ex->grad_arrays())
      if (!g.is_none()) {
        std::vector<double> v = test::Values(g);
        r.insert(r.end(), v.begin(), v.end());
      }
    return r;
  };
  auto ref_ex = Executor::SimpleBind(&Runtime::Global(), h, kCpu, shapes, {},
                                     GradReqSpec::All(GradReq::kWrite));
  fill(ref_ex.get());
  const std::vector<double> want = run(ref_ex.get());

  constexpr int kThreads = 4, kIters = 20;
  std::vector<std::vector<double>> got(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        auto ex = Executor::SimpleBind(&Runtime::Global(), h, kCpu, shapes, {},
                                       GradReqSpec::All(GradReq::kWrite));
        fill(ex.get());
        for (int i = 0; i < kIters; ++i) got[t] = run(ex.get());
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    EXPECT_EQ(got[t], want) << "thread " << t;
  }
}

}  // namespace
}  // namespace weft
