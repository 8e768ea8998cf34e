// Autograd (weft/autograd.h): recorded imperative calls back-propagated
// against the executor's symbolic gradients, numeric gradients and closed
// forms; requests, retained and freed graphs, Grad, Detach, GetSymbol,
// training mode, errors and two threads recording at once.
#include "weft/autograd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <thread>

#include "util/test_util.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

using test::Values;

Runtime* Rt() { return &Runtime::Global(); }
const Context kCpu = Context::CPU(0);

NDArray Op(const std::string& op, const std::vector<NDArray>& in, const StringMap& p = {}) {
  return Invoke(Rt(), op, in, p)[0];
}

NDArray Zeros(const NDArray& like) {
  NDArray z(like.shape(), like.ctx(), like.dtype(), Rt());
  std::vector<NDArray> out{z};
  Invoke(Rt(), "zeros_like", {like}, {}, &out);
  return z;
}

double MaxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// x -> FC(5) -> tanh -> FC(2), recorded; its gradients equal the executor's
// Backward of the same symbol with the same values and head gradient.
TEST(Autograd, MlpGradientsEqualTheExecutors) {
  std::vector<NDArray> args = {test::RandomArray(Shape{4, 3}, DType::kFloat32, -1, 1, 1),
                               test::RandomArray(Shape{5, 3}, DType::kFloat32, -1, 1, 2),
                               test::RandomArray(Shape{5}, DType::kFloat32, -1, 1, 3),
                               test::RandomArray(Shape{2, 5}, DType::kFloat32, -1, 1, 4),
                               test::RandomArray(Shape{2}, DType::kFloat32, -1, 1, 5)};
  const NDArray head = test::RandomArray(Shape{4, 2}, DType::kFloat32, -1, 1, 6);
  std::vector<NDArray> grads;
  std::vector<NDArray*> vars;
  for (NDArray& a : args) {
    grads.push_back(Zeros(a));
    vars.push_back(&a);
  }
  autograd::MarkVariables(vars, std::vector<GradReq>(args.size(), GradReq::kWrite), grads);
  NDArray y;
  {
    autograd::RecordScope rec;
    NDArray h = Op("FullyConnected", {args[0], args[1], args[2]}, {{"num_hidden", "5"}});
    NDArray a = Op("Activation", {h}, {{"act_type", "tanh"}});
    y = Op("FullyConnected", {a, args[3], args[4]}, {{"num_hidden", "2"}});
  }
  autograd::Backward(Rt(), {y}, {head});

  NameScope scope;
  Symbol x = Symbol::CreateVariable("x");
  Symbol h = Symbol::Apply(Rt()->ops(), "FullyConnected", {x}, {{"num_hidden", "5"}}, "fc1");
  Symbol act = Symbol::Apply(Rt()->ops(), "Activation", {h}, {{"act_type", "tanh"}}, "act");
  Symbol out = Symbol::Apply(Rt()->ops(), "FullyConnected", {act}, {{"num_hidden", "2"}}, "fc2");
  std::vector<NDArray> sym_args, sym_grads;
  for (const NDArray& a : args) {
    sym_args.push_back(autograd::Detach(a).Copy(kCpu));
    sym_grads.push_back(Zeros(a));
  }
  auto ex = Executor::Bind(Rt(), out, kCpu, sym_args, sym_grads, {GradReq::kWrite}, {});
  ex->Forward(true);
  ex->Backward({head});
  EXPECT_LE(MaxDiff(Values(y), Values(ex->outputs()[0])), 1e-6);
  for (size_t i = 0; i < args.size(); ++i) {
    EXPECT_EQ(autograd::GetGrad(args[i]).dptr(), grads[i].dptr());
    EXPECT_LE(MaxDiff(Values(grads[i]), Values(sym_grads[i])), 1e-5) << "argument " << i;
  }
}

// f(x, w) = sum(tanh(x * w) + x * x) in float64 against central differences;
// write, then add (twice the gradient), and null (the buffer untouched).
TEST(Autograd, GradientsMatchNumericWithEveryRequest) {
  NDArray x = test::RandomArray(Shape{2, 3}, DType::kFloat64, -1, 1, 7);
  NDArray w = test::RandomArray(Shape{2, 3}, DType::kFloat64, -1, 1, 8);
  auto f = [&](const NDArray& xv, const NDArray& wv) {
    NDArray t = Op("tanh", {Op("elemwise_mul", {xv, wv})});
    return Op("sum", {Op("elemwise_add", {t, Op("elemwise_mul", {xv, xv})})});
  };
  for (GradReq req : {GradReq::kWrite, GradReq::kAdd}) {
    NDArray gx = Zeros(x), gw = Zeros(w);
    NDArray xv = x, wv = w;
    autograd::MarkVariables({&xv, &wv}, {req, GradReq::kNull}, {gx, NDArray()});
    for (int round = 0; round < 2; ++round) {
      NDArray loss;
      {
        autograd::RecordScope rec;
        loss = f(xv, wv);
      }
      autograd::Backward(Rt(), {loss});
    }
    std::vector<double> xs = Values(x), ws = Values(w), g = Values(gx);
    const double eps = 1e-6, times = req == GradReq::kAdd ? 2 : 1;
    for (size_t i = 0; i < xs.size(); ++i) {
      std::vector<double> up = xs, down = xs;
      up[i] += eps;
      down[i] -= eps;
      const double num = (Values(f(test::Array(x.shape(), up, DType::kFloat64), w))[0] -
                          Values(f(test::Array(x.shape(), down, DType::kFloat64), w))[0]) /
                         (2 * eps);
      EXPECT_NEAR(g[i], times * num, 1e-6) << "element " << i << " req " << GradReqName(req);
    }
    for (double v : Values(gw)) EXPECT_EQ(v, 0.0);
    EXPECT_TRUE(autograd::GetGrad(wv).is_none());
  }
}

// Grad leaves the buffers; retain_graph keeps the values for a second
// pass, and without it a second pass is refused.
TEST(Autograd, GradRetainedAndFreedGraphs) {
  NDArray x = test::Array(Shape{3}, {1, 2, 3});
  NDArray gx = Zeros(x);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {gx});
  NDArray y;
  {
    autograd::RecordScope rec;
    y = Op("elemwise_mul", {Op("elemwise_mul", {x, x}), x});  // x^3
  }
  const std::vector<NDArray> g = autograd::Grad(Rt(), {y}, {x}, {}, /*retain_graph=*/true);
  EXPECT_EQ(Values(g[0]), (std::vector<double>{3, 12, 27}));
  EXPECT_EQ(Values(gx), (std::vector<double>{0, 0, 0}));
  autograd::Backward(Rt(), {y}, {test::Array(Shape{3}, {1, 1, 2})});
  EXPECT_EQ(Values(gx), (std::vector<double>{3, 12, 54}));
  try {
    autograd::Backward(Rt(), {y});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("retain_graph"), std::string::npos) << e.what();
  }
}

// Detach stops the gradient: z = detach(x * x) * x gives dz/dx = x * x.
TEST(Autograd, DetachStopsTheGradient) {
  NDArray x = test::Array(Shape{2}, {2, 3});
  NDArray gx = Zeros(x);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {gx});
  NDArray z;
  {
    autograd::RecordScope rec;
    z = Op("elemwise_mul", {autograd::Detach(Op("elemwise_mul", {x, x})), x});
  }
  autograd::Backward(Rt(), {z});
  EXPECT_EQ(Values(gx), (std::vector<double>{4, 9}));
}

// Training mode while recording: Dropout draws a mask, and the backward
// pass uses that same mask (the recorded values, not a second draw).
TEST(Autograd, TrainingModeDropoutBackPropagatesTheRecordedMask) {
  NDArray x = test::RandomArray(Shape{64}, DType::kFloat32, 1, 2, 9);
  NDArray gx = Zeros(x);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {gx});
  NDArray y;
  {
    autograd::RecordScope rec(/*train_mode=*/true);
    EXPECT_TRUE(autograd::IsRecording());
    EXPECT_TRUE(autograd::IsTraining());
    y = Op("Dropout", {x}, {{"p", "0.5"}});
  }
  EXPECT_FALSE(autograd::IsRecording());
  EXPECT_FALSE(autograd::IsTraining());
  autograd::Backward(Rt(), {y});
  const std::vector<double> xs = Values(x), ys = Values(y), g = Values(gx);
  int dropped = 0;
  for (size_t i = 0; i < ys.size(); ++i) {
    dropped += ys[i] == 0;
    EXPECT_NEAR(g[i], ys[i] == 0 ? 0.0 : 2.0, 1e-6) << i;
    if (ys[i] != 0) {
      EXPECT_NEAR(ys[i], 2 * xs[i], 1e-5) << i;
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 64);
}

TEST(Autograd, GetSymbolGivesTheRecordedGraph) {
  NDArray x = test::Array(Shape{2}, {1, 2});
  NDArray gx = Zeros(x);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {gx});
  NDArray y;
  {
    autograd::RecordScope rec;
    y = Op("elemwise_add", {Op("sin", {x}), test::Array(Shape{2}, {10, 20})});
  }
  const Symbol s = autograd::GetSymbol(y);
  const std::vector<std::string> args = s.ListArguments();
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0].rfind("var", 0), 0u) << args[0];
  EXPECT_EQ(args[1].rfind("const", 0), 0u) << args[1];
  auto ex = Executor::Bind(
      Rt(), s, kCpu, {test::Array(Shape{2}, {1, 2}), test::Array(Shape{2}, {10, 20})}, {}, {}, {});
  ex->Forward(false);
  EXPECT_LE(MaxDiff(Values(ex->outputs()[0]), Values(y)), 1e-6);
  EXPECT_THROW(autograd::GetSymbol(x.Reshape(Shape{1, 2})), Error);  // a view: not recorded
}

TEST(Autograd, ErrorsNameWhatIsWrong) {
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  NDArray x = test::Array(Shape{2}, {1, 2});
  NDArray unrecorded = Op("sin", {x});
  EXPECT_NE(
      message([&] { autograd::Backward(Rt(), {unrecorded}); }).find("head 0 was not recorded"),
      std::string::npos);
  NDArray y;
  {
    autograd::RecordScope rec;
    y = Op("sin", {x});  // x is not marked
  }
  EXPECT_NE(message([&] { autograd::Backward(Rt(), {y}); }).find("no variable marked"),
            std::string::npos);
  NDArray gx = Zeros(x);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {gx});
  const std::string inplace = message([&] {
    autograd::RecordScope rec;
    std::vector<NDArray> out{x};
    Invoke(Rt(), "sin", {x}, {}, &out);
  });
  EXPECT_NE(inplace.find("in-place"), std::string::npos) << inplace;
  EXPECT_NE(message([&] {
              NDArray v = x;
              autograd::MarkVariables({&v}, {GradReq::kWrite}, {test::Array(Shape{3}, {0, 0, 0})});
            }).find("gradient buffer of variable 0"),
            std::string::npos);
  NDArray arg;
  {
    autograd::RecordScope rec;
    arg = Op("sgd_update", {Op("sin", {x}), x}, {{"lr", "0.1"}});  // an op without gradient
  }
  const std::string no_grad = message([&] { autograd::Backward(Rt(), {arg}); });
  EXPECT_NE(no_grad.find("sgd_update"), std::string::npos) << no_grad;
}

// Two threads recording and back-propagating their own graphs at once give
// what one thread gives.
TEST(Autograd, ThreadsRecordIndependentGraphs) {
  auto run = [](double scale) {
    NDArray x = test::Array(Shape{3}, {1 * scale, 2 * scale, 3 * scale});
    NDArray gx = Zeros(x);
    autograd::MarkVariables({&x}, {GradReq::kWrite}, {gx});
    for (int r = 0; r < 20; ++r) {
      NDArray y;
      {
        autograd::RecordScope rec;
        y = Op("elemwise_mul", {Op("exp", {x}), x});
      }
      autograd::Backward(Rt(), {y});
    }
    return Values(gx);
  };
  const std::vector<double> a = run(0.1), b = run(0.2);
  std::vector<double> ta, tb;
  std::thread t1([&] { ta = run(0.1); }), t2([&] { tb = run(0.2); });
  t1.join();
  t2.join();
  EXPECT_EQ(ta, a);
  EXPECT_EQ(tb, b);
  const std::vector<double> x = {0.1, 0.2, 0.3};
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(a[i], std::exp(x[i]) * (1 + x[i]), 1e-6);
}

}  // namespace
}  // namespace weft
