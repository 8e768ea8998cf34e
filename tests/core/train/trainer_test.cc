// Trainer (weft/trainer.h): autograd + Trainer training an MLP gives the
// parameters of the symbolic path (executor Forward/Backward and the same
// optimizer's updates, as Module steps) after several steps; errors.
#include "weft/trainer.h"

#include <gtest/gtest.h>

#include "util/test_util.h"
#include "weft/autograd.h"
#include "weft/executor.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

Runtime* Rt() { return &Runtime::Global(); }
const Context kCpu = Context::CPU(0);
constexpr int kBatch = 8;

std::unique_ptr<Optimizer> Sgd() {
  return Optimizer::Create("sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}, {"wd", "0.001"}});
}

NDArray Copy(const NDArray& a) { return a.Copy(kCpu); }

TEST(Trainer, AutogradTrainingEqualsTheSymbolicPath) {
  NameScope scope;
  Symbol h = Symbol::Apply(Rt()->ops(), "FullyConnected", {Symbol::CreateVariable("data")},
                           {{"num_hidden", "6"}}, "fc1");
  h = Symbol::Apply(Rt()->ops(), "Activation", {h}, {{"act_type", "relu"}}, "relu1");
  h = Symbol::Apply(Rt()->ops(), "FullyConnected", {h}, {{"num_hidden", "3"}}, "fc2");
  const Symbol net = Symbol::Apply(Rt()->ops(), "SoftmaxOutput",
                                   {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
  auto ex = Executor::SimpleBind(Rt(), net, kCpu,
                                 {{"data", Shape{kBatch, 4}}, {"softmax_label", Shape{kBatch}}});
  const std::vector<std::string>& names = ex->arg_names();
  std::vector<std::pair<std::string, NDArray>> params;  // the autograd copies
  for (size_t i = 0; i < names.size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    if (names[i] == "data" || names[i] == "softmax_label") continue;
    test::RandomArray(a.shape(), DType::kFloat32, -0.5, 0.5, 100 + static_cast<unsigned>(i))
        .CopyTo(&a);
    params.emplace_back(names[i], Copy(a));
  }
  std::vector<NDArray*> vars;
  std::vector<NDArray> grads;
  for (auto& [name, w] : params) {
    vars.push_back(&w);
    grads.push_back(Copy(w));
  }
  autograd::MarkVariables(vars, std::vector<GradReq>(vars.size(), GradReq::kWrite), grads);
  Trainer trainer(params, Sgd());
  const std::vector<double> initial = test::Values(params[0].second);
  auto symbolic = Sgd();
  symbolic->set_rescale_grad(1.0f / kBatch);

  for (int step = 0; step < 5; ++step) {
    const NDArray data = test::RandomArray(Shape{kBatch, 4}, DType::kFloat32, -1, 1, 7 + step);
    std::vector<double> labels;
    for (int b = 0; b < kBatch; ++b) labels.push_back((b + step) % 3);
    const NDArray label = test::Array(Shape{kBatch}, labels);
    // Symbolic: the executor and the optimizer by hand, as Module does.
    NDArray d = ex->arg_arrays()[0], l = ex->arg_arrays().back();
    data.CopyTo(&d);
    label.CopyTo(&l);
    ex->Forward(true);
    ex->Backward();
    int index = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "data" || names[i] == "softmax_label") continue;
      NDArray w = ex->arg_arrays()[i];
      symbolic->Update(index++, names[i], &w, ex->grad_arrays()[i]);
    }
    // Autograd: the same ops recorded, then the trainer.
    NDArray out;
    {
      autograd::RecordScope rec;
      NDArray x = Invoke(Rt(), "FullyConnected", {data, params[0].second, params[1].second},
                         {{"num_hidden", "6"}})[0];
      x = Invoke(Rt(), "Activation", {x}, {{"act_type", "relu"}})[0];
      x = Invoke(Rt(), "FullyConnected", {x, params[2].second, params[3].second},
                 {{"num_hidden", "3"}})[0];
      out = Invoke(Rt(), "SoftmaxOutput", {x, label})[0];
    }
    autograd::Backward(Rt(), {out});
    trainer.Step(kBatch);
  }
  ASSERT_EQ(params.size(), 4u);
  size_t p = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "data" || names[i] == "softmax_label") continue;
    ASSERT_EQ(params[p].first, names[i]);
    const std::vector<double> want = test::Values(ex->arg_arrays()[i]),
                              got = test::Values(trainer.params()[p].second);
    double diff = 0;
    for (size_t k = 0; k < want.size(); ++k) diff = std::max(diff, std::abs(want[k] - got[k]));
    EXPECT_LE(diff, 1e-5) << names[i];
    ++p;
  }
  // The parameters moved (equal but unchanged would prove nothing).
  const std::vector<double> now = test::Values(trainer.params()[0].second);
  double moved = 0;
  for (size_t k = 0; k < now.size(); ++k) moved = std::max(moved, std::abs(now[k] - initial[k]));
  EXPECT_GT(moved, 1e-3);
}

TEST(Trainer, Errors) {
  NDArray w = test::Array(Shape{2}, {1, 2});
  EXPECT_THROW(Trainer({{"w", w}}, Sgd()), Error);  // not marked
  NDArray g = test::Array(Shape{2}, {0, 0});
  autograd::MarkVariables({&w}, {GradReq::kWrite}, {g});
  EXPECT_THROW(Trainer({{"w", w}, {"w", w}}, Sgd()), Error);
  EXPECT_THROW(Trainer({{"w", w}}, nullptr), Error);
  Trainer t({{"w", w}}, Sgd());
  EXPECT_THROW(t.Step(0), Error);
}

}  // namespace
}  // namespace weft
