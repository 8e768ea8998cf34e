// Autograd on models built op by op (issue 43): a small LeNet and a fused
// LSTM recorded imperatively back-propagate to the same gradients as the
// executor's Backward of the same symbol, same values, same head gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "util/test_util.h"
#include "weft/autograd.h"
#include "weft/executor.h"
#include "weft/imperative.h"
#include "weft/runtime.h"

namespace weft {
namespace {

Runtime* Rt() { return &Runtime::Global(); }
const Context kCpu = Context::CPU(0);

NDArray Op(const std::string& op, const std::vector<NDArray>& in, const StringMap& p = {}) {
  return Invoke(Rt(), op, in, p)[0];
}

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }
Symbol Apply(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
             const std::string& name) {
  return Symbol::Apply(Rt()->ops(), op, in, p, name);
}

NDArray ZerosLike(const NDArray& a) {
  NDArray z(a.shape(), a.ctx(), a.dtype(), Rt());
  std::vector<float> zeros(static_cast<size_t>(a.shape().Size()), 0.f);
  z.CopyFromHost(zeros.data(), zeros.size() * sizeof(float));
  return z;
}

double MaxDiff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// Records `forward` on random arrays of `shapes`, back-propagates `head`,
// and compares every gradient with the executor's for `sym`, whose
// arguments are `shapes` in ListArguments order.
void ExpectEqualsExecutor(const std::vector<Shape>& shapes,
                          const std::function<NDArray(const std::vector<NDArray>&)>& forward,
                          const Symbol& sym, double tol) {
  ASSERT_EQ(sym.ListArguments().size(), shapes.size());
  std::vector<NDArray> args, grads;
  std::vector<NDArray*> vars;
  for (size_t i = 0; i < shapes.size(); ++i)
    args.push_back(test::RandomArray(shapes[i], DType::kFloat32, -0.5, 0.5, 11 + i));
  for (NDArray& a : args) {
    grads.push_back(ZerosLike(a));
    vars.push_back(&a);
  }
  autograd::MarkVariables(vars, std::vector<GradReq>(args.size(), GradReq::kWrite), grads);
  NDArray y;
  {
    autograd::RecordScope rec;
    y = forward(args);
  }
  const NDArray head = test::RandomArray(y.shape(), DType::kFloat32, -1, 1, 99);
  autograd::Backward(Rt(), {y}, {head});

  std::vector<NDArray> sym_args, sym_grads;
  for (const NDArray& a : args) {
    sym_args.push_back(autograd::Detach(a).Copy(kCpu));
    sym_grads.push_back(ZerosLike(a));
  }
  auto ex = Executor::Bind(Rt(), sym, kCpu, sym_args, sym_grads, {GradReq::kWrite}, {});
  ex->Forward(true);
  ex->Backward({head});
  EXPECT_LE(MaxDiff(test::Values(y), test::Values(ex->outputs()[0])), 1e-6);
  const auto names = sym.ListArguments();
  for (size_t i = 0; i < args.size(); ++i) {
    const auto want = test::Values(sym_grads[i]);
    double scale = 0;
    for (double v : want) scale = std::max(scale, std::abs(v));
    EXPECT_GT(scale, 0) << names[i] << " has no gradient: the comparison would be empty";
    EXPECT_LE(MaxDiff(test::Values(grads[i]), want), tol) << names[i];
  }
}

// conv(3x3, 3) -> tanh -> max pool 2 -> conv(2x2, 4) -> relu -> flatten -> FC(5).
TEST(AutogradModels, LeNetGradientsEqualTheExecutors) {
  const StringMap conv1{{"kernel", "(3,3)"}, {"num_filter", "3"}};
  const StringMap conv2{{"kernel", "(2,2)"}, {"num_filter", "4"}};
  const StringMap pool{{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}};
  const StringMap fc{{"num_hidden", "5"}};
  auto forward = [&](const std::vector<NDArray>& a) {
    NDArray h = Op("Convolution", {a[0], a[1], a[2]}, conv1);
    h = Op("Pooling", {Op("Activation", {h}, {{"act_type", "tanh"}})}, pool);
    h = Op("Convolution", {h, a[3], a[4]}, conv2);
    h = Op("Flatten", {Op("Activation", {h}, {{"act_type", "relu"}})});
    return Op("FullyConnected", {h, a[5], a[6]}, fc);
  };
  NameScope scope;
  Symbol h = Apply("Convolution", {Var("x"), Var("c1_w"), Var("c1_b")}, conv1, "c1");
  h = Apply("Pooling", {Apply("Activation", {h}, {{"act_type", "tanh"}}, "t1")}, pool, "p1");
  h = Apply("Convolution", {h, Var("c2_w"), Var("c2_b")}, conv2, "c2");
  h = Apply("Flatten", {Apply("Activation", {h}, {{"act_type", "relu"}}, "r2")}, {}, "flat");
  const Symbol out = Apply("FullyConnected", {h, Var("fc_w"), Var("fc_b")}, fc, "fc");
  ExpectEqualsExecutor({Shape{2, 1, 12, 12}, Shape{3, 1, 3, 3}, Shape{3}, Shape{4, 3, 2, 2},
                        Shape{4}, Shape{5, 64}, Shape{5}},
                       forward, out, 1e-5);
}

// A one-layer fused LSTM (3 steps, batch 2, input 3, hidden 4) into the
// parameters, the input and both initial states.
TEST(AutogradModels, LstmGradientsEqualTheExecutors) {
  const StringMap p{{"mode", "lstm"}, {"state_size", "4"}, {"num_layers", "1"}};
  auto forward = [&](const std::vector<NDArray>& a) { return Op("RNN", a, p); };
  NameScope scope;
  const Symbol out =
      Apply("RNN", {Var("data"), Var("params"), Var("state"), Var("cell")}, p, "lstm");
  const int64_t gates = 4 * 4;
  ExpectEqualsExecutor(
      {Shape{3, 2, 3}, Shape{gates * (3 + 4) + 2 * gates}, Shape{1, 2, 4}, Shape{1, 2, 4}}, forward,
      out, 1e-5);
}

}  // namespace
}  // namespace weft
