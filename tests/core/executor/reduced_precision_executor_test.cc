// Bound graphs and recorded calls on float16/bfloat16 arrays: nodes without
// a reduced-float kernel compute in float32 between Casts
// (pass::RunInFloat32), the executor lists them, outputs and gradients keep
// the arguments' dtype and agree with float32 on the same rounded values
// within the rounding the chain of ops adds; an in-place update of a
// reduced-float state is refused naming the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/pass/inference_test_util.h"
#include "weft/autograd.h"
#include "weft/executor.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::Apply;

Symbol Mlp() {
  Symbol h =
      Apply("FullyConnected", {Symbol::CreateVariable("data")}, {{"num_hidden", "16"}}, "fc1");
  h = Apply("Activation", {h}, {{"act_type", "tanh"}}, "tanh1");
  h = Apply("FullyConnected", {h}, {{"num_hidden", "4"}}, "fc2");
  return Apply("SoftmaxOutput", {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

NDArray CastTo(const NDArray& a, DType t) {
  return test::Run("Cast", {a}, {{"dtype", DTypeName(t)}})[0];
}

// |a - b| <= tol * (|b| + max|b|) elementwise.
void ExpectNear(const NDArray& got, const NDArray& want, double tol, const std::string& what) {
  const std::vector<double> a = test::Values(got), b = test::Values(want);
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 0;
  for (double v : b) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_LE(std::fabs(a[i] - b[i]), tol * (std::fabs(b[i]) + scale)) << what << "[" << i << "]";
}

struct Bound {
  std::unique_ptr<Executor> exec;
  std::vector<NDArray> args;
};

// Binds Mlp() with batch 5 on arguments of dtype `t` holding the values of
// `values` (float32 arrays, one per argument), gradients when `train`.
Bound BindMlp(DType t, const std::vector<NDArray>& values, bool train) {
  Bound b;
  std::vector<NDArray> grads;
  for (const NDArray& v : values) {
    b.args.push_back(CastTo(v, t));
    grads.push_back(NDArray(v.shape(), Context::CPU(), t, &Runtime::Global()));
  }
  std::vector<GradReq> reqs(values.size(), train ? GradReq::kWrite : GradReq::kNull);
  if (!train) grads.clear(), reqs.clear();
  b.exec = Executor::Bind(&Runtime::Global(), Mlp(), Context::CPU(), b.args, grads, reqs, {});
  return b;
}

std::vector<NDArray> MlpValues() {
  // data, fc1_weight, fc1_bias, fc2_weight, fc2_bias, softmax_label
  return {test::RandomArray(Shape{5, 8}, DType::kFloat32, -1, 1, 1),
          test::RandomArray(Shape{16, 8}, DType::kFloat32, -0.5, 0.5, 2),
          test::RandomArray(Shape{16}, DType::kFloat32, -0.5, 0.5, 3),
          test::RandomArray(Shape{4, 16}, DType::kFloat32, -0.5, 0.5, 4),
          test::RandomArray(Shape{4}, DType::kFloat32, -0.5, 0.5, 5),
          test::Array(Shape{5}, {0, 3, 1, 2, 3})};
}

class ReducedExecutor : public ::testing::TestWithParam<DType> {};

TEST_P(ReducedExecutor, InferenceComputesInFloat32BetweenCastsAndSaysWhere) {
  const DType t = GetParam();
  std::vector<NDArray> values = MlpValues();
  for (auto& v : values) v = CastTo(CastTo(v, t), DType::kFloat32);  // the rounded values
  Bound r = BindMlp(t, values, false);
  Bound f = BindMlp(DType::kFloat32, values, false);
  r.exec->Forward(false);
  f.exec->Forward(false);
  ASSERT_EQ(r.exec->outputs()[0].dtype(), t);
  // Three rounded outputs on the way (fc1, tanh1, fc2) and the softmax's.
  ExpectNear(r.exec->outputs()[0], f.exec->outputs()[0], t == DType::kBFloat16 ? 0.03 : 0.004,
             "softmax");
  // Listed: every node whose kernel lacks the dtype (FullyConnected has a
  // bfloat16 kernel where oneDNN runs it: AVX-512 machines).
  const std::vector<std::string> nodes = r.exec->placement().float32_nodes;
  const KernelRegistry& k = Runtime::Global().kernels();
  for (const auto& [n, op] : std::map<std::string, std::string>{{"fc1", "FullyConnected"},
                                                                {"tanh1", "Activation"},
                                                                {"fc2", "FullyConnected"},
                                                                {"softmax", "SoftmaxOutput"}}) {
    const bool listed = std::find(nodes.begin(), nodes.end(), n) != nodes.end();
    EXPECT_EQ(listed, !k.Find(op, DeviceType::kCPU)->Computes(t)) << n;
  }
  EXPECT_TRUE(f.exec->placement().float32_nodes.empty());
  EXPECT_NE(r.exec->DebugString().find("nodes compute in float32"), std::string::npos);
}

TEST_P(ReducedExecutor, TrainingGradientsKeepTheArgumentsDType) {
  const DType t = GetParam();
  std::vector<NDArray> values = MlpValues();
  for (auto& v : values) v = CastTo(CastTo(v, t), DType::kFloat32);
  Bound r = BindMlp(t, values, true);
  Bound f = BindMlp(DType::kFloat32, values, true);
  for (Bound* b : {&r, &f}) {
    b->exec->Forward(true);
    b->exec->Backward();
  }
  const double tol = t == DType::kBFloat16 ? 0.05 : 0.006;
  for (size_t i = 1; i < 5; ++i) {
    const NDArray& g = r.exec->grad_arrays()[i];
    ASSERT_EQ(g.dtype(), t);
    ExpectNear(g, f.exec->grad_arrays()[i], tol, r.exec->arg_names()[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(DTypes, ReducedExecutor,
                         ::testing::Values(DType::kFloat16, DType::kBFloat16),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(DTypeName(info.param));
                         });

// An optimizer update writes its weight and state in place, so a float32
// copy cannot stand in for them: bfloat16 optimizer states are refused at
// bind, naming the node and the dtype (RunInFloat32 refuses any in-place
// update of a reduced float it would have to copy).
TEST(ReducedExecutorErrors, InPlaceUpdateOfAReducedStateIsRefused) {
  Symbol y =
      Apply("sgd_mom_update",
            {Symbol::CreateVariable("w"), Symbol::CreateVariable("g"), Symbol::CreateVariable("m")},
            {{"lr", "0.1"}, {"momentum", "0.9"}}, "upd");
  auto a = [] { return NDArray(Shape{3}, Context::CPU(), DType::kBFloat16, &Runtime::Global()); };
  test::ExpectError(  // the momentum is an auxiliary state
      [&] {
        Executor::Bind(&Runtime::Global(), y, Context::CPU(), {a(), a()}, {}, {}, {a()});
      },
      StatusCode::kDType, {"node 'upd'", "bfloat16", "expected float32 or float64"});
}

// BatchNorm on float16/bfloat16 data keeps float32 parameters and
// statistics (MXNet's rule); the output has the data's dtype.
TEST(ReducedExecutor, BatchNormTakesFloat32ParametersForReducedData) {
  Symbol y = Apply("BatchNorm", {Symbol::CreateVariable("data")}, {{"fix_gamma", "False"}}, "bn");
  const pass::TypeResult t =
      pass::InferType(IndexedGraph(Graph{y.outputs}), {{"data", DType::kBFloat16}});
  EXPECT_EQ(t.arg_types, (std::vector<DType>{DType::kBFloat16, DType::kFloat32, DType::kFloat32}));
  EXPECT_EQ(t.aux_types, (std::vector<DType>{DType::kFloat32, DType::kFloat32}));
  EXPECT_EQ(t.out_types, (std::vector<DType>{DType::kBFloat16}));
  test::ExpectError(
      [] {
        Symbol z = Apply("BatchNorm", {Symbol::CreateVariable("data")}, {}, "bn");
        pass::InferType(IndexedGraph(Graph{z.outputs}),
                        {{"data", DType::kFloat16}, {"bn_gamma", DType::kFloat16}});
      },
      StatusCode::kDType, {"bn", "gamma", "expected float32, given float16"});
}

// Recorded calls on bfloat16 arrays: exp has no bfloat16 kernel, so Invoke
// records Cast, exp and Cast; the gradient flows back through the Casts.
TEST(ReducedAutograd, GradientsFlowThroughTheFallbackCasts) {
  Runtime* rt = &Runtime::Global();
  NDArray x = test::Array(Shape{3}, {-1, 0.5, 2}, DType::kBFloat16);
  NDArray gx(x.shape(), Context::CPU(), DType::kBFloat16, rt);
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {gx});
  NDArray y;
  {
    autograd::RecordScope rec;
    y = Invoke(rt, "elemwise_mul", {Invoke(rt, "exp", {x})[0], x})[0];  // x e^x
  }
  EXPECT_EQ(y.dtype(), DType::kBFloat16);
  autograd::Backward(rt, {y});
  const std::vector<double> g = test::Values(gx);
  const double xs[3] = {-1, 0.5, 2};
  for (int i = 0; i < 3; ++i) {
    const double want = std::exp(xs[i]) * (1 + xs[i]);  // d(x e^x)/dx
    EXPECT_NEAR(g[i], want, 0.02 * (std::fabs(want) + 0.1)) << i;
  }
}

}  // namespace
}  // namespace weft
