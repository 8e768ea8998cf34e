#include "weft/runtime.h"
#include "weft/executor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/test_util.h"
#include "weft/imperative.h"
#include "weft/status.h"

namespace weft {
namespace {

const Context kCpu = Context::CPU(0);

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

NDArray Filled(const Shape& s, double v, DType dt = DType::kFloat32) {
  return test::Array(s, std::vector<double>(static_cast<size_t>(s.Size()), v), dt);
}

// MXNet's FC reshape example: weight ones, bias 0, x ones -> every output 4;
// the reshaped executor shares the weight.
TEST(Executor, ForwardAndReshapeShareParameters) {
  NameScope scope;
  Symbol fc = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {Var("x")},
                            {{"num_hidden", "4"}}, "fc");
  auto ex = Executor::SimpleBind(&Runtime::Global(), fc, kCpu, {{"x", Shape{5, 4}}}, {},
                                 GradReqSpec::All(GradReq::kNull));
  ASSERT_EQ(ex->arg_names(), (std::vector<std::string>{"x", "fc_weight", "fc_bias"}));
  std::vector<double> ones4x4(16, 1.0);
  NDArray(ex->arg_arrays()[0]).CopyFromHost(std::vector<float>(20, 1.f).data(), 20 * sizeof(float));
  NDArray(ex->arg_arrays()[1]).CopyFromHost(std::vector<float>(16, 1.f).data(), 16 * sizeof(float));
  ex->Forward(false);
  for (double v : test::Values(ex->outputs()[0])) EXPECT_EQ(v, 4.0);

  auto small = ex->Reshape({{"x", Shape{3, 4}}});
  EXPECT_EQ(small->arg_arrays()[1].dptr(), ex->arg_arrays()[1].dptr());  // weight shared
  EXPECT_EQ(small->arg_arrays()[0].dptr(), ex->arg_arrays()[0].dptr());  // x a view of the old one
  small->Forward(false);
  ASSERT_EQ(small->outputs()[0].shape(), Shape({3, 4}));
  for (double v : test::Values(small->outputs()[0])) EXPECT_EQ(v, 4.0);
  EXPECT_THROW(ex->Reshape({{"x", Shape{9, 4}}}), Error);  // grows without allow_up_sizing
  auto big = ex->Reshape({{"x", Shape{9, 4}}}, false, true);
  EXPECT_EQ(big->outputs()[0].shape(), Shape({9, 4}));
}

// sum(w . f(x)) for the numeric gradient of a whole graph.
double Project(Executor* ex, const std::vector<double>& w) {
  ex->Forward(true);
  std::vector<double> y = test::Values(ex->outputs()[0]);
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) s += w[i] * y[i];
  return s;
}

void SetValues(NDArray* a, const std::vector<double>& v) {
  a->CopyFromHost(v.data(), v.size() * sizeof(double));
}

// Central differences of the projected output against Backward.
void CheckGraphGradient(const Symbol& sym, const pass::ShapeMap& shapes, unsigned seed) {
  pass::DTypeMap types;
  for (const auto& kv : shapes) types[kv.first] = DType::kFloat64;
  GradReqSpec req;
  for (const auto& n : sym.ListArguments()) req.by_name[n] = GradReq::kWrite;
  auto ex = Executor::SimpleBind(&Runtime::Global(), sym, kCpu, shapes, types, req);
  for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    SetValues(&a, test::Values(test::RandomArray(a.shape(), DType::kFloat64, -1, 1, seed + i)));
  }
  NDArray head = test::RandomArray(ex->outputs()[0].shape(), DType::kFloat64, -1, 1, seed + 99);
  std::vector<double> w = test::Values(head);
  ex->Forward(true);
  ex->Backward({head});
  const double eps = 1e-6;
  for (size_t i = 0; i < ex->arg_arrays().size(); ++i) {
    NDArray a = ex->arg_arrays()[i];
    std::vector<double> x = test::Values(a), g = test::Values(ex->grad_arrays()[i]);
    for (size_t k = 0; k < x.size(); ++k) {
      std::vector<double> xp = x, xm = x;
      xp[k] += eps;
      xm[k] -= eps;
      SetValues(&a, xp);
      double fp = Project(ex.get(), w);
      SetValues(&a, xm);
      double fm = Project(ex.get(), w);
      double num = (fp - fm) / (2 * eps);
      EXPECT_NEAR(g[k], num, 1e-5 * std::max(1.0, std::fabs(num)))
          << ex->arg_names()[i] << "[" << k << "]";
    }
    SetValues(&a, x);
  }
}

TEST(Executor, MlpGradientMatchesNumeric) {
  NameScope scope;
  Symbol h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {Var("data")},
                           {{"num_hidden", "5"}}, "fc1");
  h = Symbol::Apply(Runtime::Global().ops(), "Activation", {h}, {{"act_type", "tanh"}}, "act1");
  h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {h}, {{"num_hidden", "3"}}, "fc2");
  CheckGraphGradient(h, {{"data", Shape{4, 6}}}, 10);
}

TEST(Executor, ConvNetWithBatchNormGradientMatchesNumeric) {
  NameScope scope;
  Symbol h = Symbol::Apply(Runtime::Global().ops(), "Convolution", {Var("data")},
                           {{"kernel", "(3,3)"}, {"num_filter", "2"}, {"pad", "(1,1)"}}, "conv");
  h = Symbol::Apply(Runtime::Global().ops(), "BatchNorm", {h}, {{"fix_gamma", "False"}}, "bn");
  h = Symbol::Apply(Runtime::Global().ops(), "Activation", {h}, {{"act_type", "sigmoid"}}, "act");
  h = Symbol::Apply(Runtime::Global().ops(), "Pooling", {h},
                    {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "avg"}}, "pool");
  h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {h}, {{"num_hidden", "3"}}, "fc");
  CheckGraphGradient(h, {{"data", Shape{2, 1, 4, 4}}}, 20);
}

// data + data + ... (8 uses of one input): the gradient is 8 x head.
TEST(Executor, SharedInputGradientsAreSummed) {
  NameScope scope;
  Symbol d = Var("data");
  Symbol s = d;
  for (int i = 0; i < 7; ++i) s = s + d;
  auto ex = Executor::SimpleBind(&Runtime::Global(), s, kCpu, {{"data", Shape{3}}}, {}, [] {
    GradReqSpec r;
    r.by_name["data"] = GradReq::kWrite;
    return r;
  }());
  NDArray x = ex->arg_arrays()[0];
  x.CopyFromHost(std::vector<float>{1, 2, 3}.data(), 12);
  ex->Forward(true);
  EXPECT_EQ(test::Values(ex->outputs()[0]), (std::vector<double>{8, 16, 24}));
  ex->Backward({test::Array({3}, {1, 0.5, -1})});
  EXPECT_EQ(test::Values(ex->grad_arrays()[0]), (std::vector<double>{8, 4, -8}));
}

TEST(Executor, GradReqAddAccumulates) {
  NameScope scope;
  Symbol y = Symbol::Apply(Runtime::Global().ops(), "square", {Var("x")}, {}, "sq");
  GradReqSpec req;
  req.by_name["x"] = GradReq::kAdd;
  auto ex = Executor::SimpleBind(&Runtime::Global(), y, kCpu, {{"x", Shape{2}}}, {}, req);
  NDArray(ex->arg_arrays()[0]).CopyFromHost(std::vector<float>{1, 3}.data(), 8);
  NDArray head = test::Array({2}, {1, 1});
  for (int i = 0; i < 2; ++i) {
    ex->Forward(true);
    ex->Backward({head});
  }
  EXPECT_EQ(test::Values(ex->grad_arrays()[0]), (std::vector<double>{4, 12}));
}

// SoftmaxOutput needs no head gradient: d data = softmax - onehot(label).
TEST(Executor, LossOutputNeedsNoHeadGradient) {
  NameScope scope;
  Symbol y = Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput", {Var("data"), Var("label")},
                           {}, "sm");
  GradReqSpec req;
  req.by_name["data"] = GradReq::kWrite;
  auto ex = Executor::SimpleBind(&Runtime::Global(), y, kCpu, {{"data", Shape{1, 3}}}, {}, req);
  NDArray(ex->arg_arrays()[0]).CopyFromHost(std::vector<float>{0, 0, 0}.data(), 12);
  NDArray(ex->arg_arrays()[1]).CopyFromHost(std::vector<float>{2}.data(), 4);
  ex->Forward(true);
  ex->Backward();
  std::vector<double> g = test::Values(ex->grad_arrays()[0]);
  EXPECT_NEAR(g[0], 1.0 / 3, 1e-6);
  EXPECT_NEAR(g[1], 1.0 / 3, 1e-6);
  EXPECT_NEAR(g[2], 1.0 / 3 - 1, 1e-6);
}

// A chain of unary ops runs in place: one block for the whole chain.
TEST(Executor, PlanReusesMemoryInPlace) {
  NameScope scope;
  Symbol h = Var("x");
  for (const char* op : {"relu", "sigmoid", "tanh", "exp", "square"})
    h = Symbol::Apply(Runtime::Global().ops(), op, {h});
  ExecutorOptions unfused;  // the chain as written (FuseElemwiseChains would make it one node)
  unfused.optimize_inference = false;
  auto ex = Executor::SimpleBind(&Runtime::Global(), h, kCpu, {{"x", Shape{1000}}}, {},
                                 GradReqSpec::All(GradReq::kNull), unfused);
  ExecutorMemory m = ex->memory();
  EXPECT_EQ(m.naive_bytes, 5u * 4000u);
  EXPECT_EQ(m.planned_bytes, 4000u);
  EXPECT_EQ(m.num_storage, 1u);
  EXPECT_EQ(m.num_inplace, 4u);
  NDArray(ex->arg_arrays()[0]).CopyFromHost(std::vector<float>(1000, -2.f).data(), 4000);
  ex->Forward(false);
  const double want = std::pow(std::exp(std::tanh(0.5)), 2);
  EXPECT_NEAR(test::Values(ex->outputs()[0])[7], want, 1e-5);
  EXPECT_NE(ex->DebugString().find("in place"), std::string::npos);
}

// Without in-place options, blocks are reused once their readers have run.
TEST(Executor, PlanReusesFreedBlocks) {
  NameScope scope;
  Symbol x = Var("x");
  Symbol a =
      Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {x}, {{"num_hidden", "64"}}, "a");
  Symbol b =
      Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {a}, {{"num_hidden", "64"}}, "b");
  Symbol c =
      Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {b}, {{"num_hidden", "64"}}, "c");
  Symbol d =
      Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {c}, {{"num_hidden", "64"}}, "d");
  auto ex = Executor::SimpleBind(&Runtime::Global(), d, kCpu, {{"x", Shape{8, 64}}}, {},
                                 GradReqSpec::All(GradReq::kNull));
  ExecutorMemory m = ex->memory();
  EXPECT_EQ(m.naive_bytes, 4u * 8 * 64 * 4);
  EXPECT_EQ(m.num_storage, 2u);  // a, c share one block; b, d the other
  EXPECT_EQ(m.num_reused, 2u);
  EXPECT_LT(m.planned_bytes, m.naive_bytes);
}

// assign(w, w - 0.5): the temporary rhs is computed straight into w.
TEST(Executor, AssignComputesTemporaryIntoVariable) {
  NameScope scope;
  Symbol w = Var("w");
  Symbol upd = Symbol::Apply(Runtime::Global().ops(), "assign", {w, w - 0.5}, {}, "upd");
  auto ex = Executor::SimpleBind(&Runtime::Global(), upd, kCpu, {{"w", Shape{3}}}, {},
                                 GradReqSpec::All(GradReq::kNull));
  ASSERT_EQ(ex->aux_names(), (std::vector<std::string>{"w"}));
  NDArray warr = ex->aux_arrays()[0];
  warr.CopyFromHost(std::vector<float>{1, 2, 3}.data(), 12);
  EXPECT_NE(ex->DebugString().find("(no-op)"), std::string::npos);
  EXPECT_EQ(ex->memory().planned_bytes, 0u);
  ex->Forward(false);
  EXPECT_EQ(test::Values(warr), (std::vector<double>{0.5, 1.5, 2.5}));
  EXPECT_EQ(ex->outputs()[0].dptr(), warr.dptr());
  ex->Forward(false);
  EXPECT_EQ(test::Values(warr), (std::vector<double>{0, 1, 2}));
}

// assign(w, v): rhs is another variable, so the assign copies.
TEST(Executor, AssignFromVariableCopies) {
  NameScope scope;
  Symbol upd = Symbol::Apply(Runtime::Global().ops(), "assign", {Var("w"), Var("v")}, {}, "upd");
  auto ex = Executor::SimpleBind(&Runtime::Global(), upd, kCpu, {{"w", Shape{2}}, {"v", Shape{2}}},
                                 {}, GradReqSpec::All(GradReq::kNull));
  NDArray(ex->arg_arrays()[0]).CopyFromHost(std::vector<float>{7, 8}.data(), 8);
  EXPECT_EQ(ex->DebugString().find("(no-op)"), std::string::npos);
  ex->Forward(false);
  EXPECT_EQ(test::Values(ex->aux_arrays()[0]), (std::vector<double>{7, 8}));
}

StatusCode CodeOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return StatusCode::kOk;
}

TEST(Executor, BindErrorsNameTheArgument) {
  NameScope scope;
  Symbol fc = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {Var("x")},
                            {{"num_hidden", "2"}}, "fc");
  NDArray x = Filled({3, 4}, 1), w = Filled({2, 4}, 1), b = Filled({2}, 0);
  // Missing argument.
  EXPECT_EQ(CodeOf([&] {
              Executor::Bind(&Runtime::Global(), fc, kCpu, {x, w}, {}, {}, {});
            }),
            StatusCode::kInvalidArgument);
  // Wrong weight shape.
  try {
    Executor::Bind(&Runtime::Global(), fc, kCpu, {x, Filled({2, 5}, 1), b}, {}, {}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("fc"), std::string::npos) << e.what();
  }
  // Wrong dtype.
  EXPECT_EQ(CodeOf([&] {
              Executor::Bind(&Runtime::Global(), fc, kCpu,
                             {x, Filled({2, 4}, 1, DType::kFloat64), b}, {}, {}, {});
            }),
            StatusCode::kDType);
  // Gradient array of the wrong size.
  try {
    Executor::Bind(&Runtime::Global(), fc, kCpu, {x, w, b},
                   {Filled({3, 4}, 0), Filled({2, 3}, 0), Filled({2}, 0)}, {GradReq::kWrite}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("fc_weight"), std::string::npos) << e.what();
  }
  // By name: unknown and missing names.
  EXPECT_EQ(CodeOf([&] {
              Executor::BindByName(&Runtime::Global(), fc, kCpu, {{"x", x}, {"fc_weight", w}}, {},
                                   {}, {});
            }),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] {
              Executor::BindByName(&Runtime::Global(), fc, kCpu,
                                   {{"x", x}, {"fc_weight", w}, {"fc_bias", b}, {"zz", b}}, {}, {},
                                   {});
            }),
            StatusCode::kInvalidArgument);
  // Backward without gradients or before Forward; missing head gradient.
  auto ex = Executor::Bind(&Runtime::Global(), fc, kCpu, {x, w, b}, {}, {}, {});
  EXPECT_EQ(CodeOf([&] { ex->Backward({}); }), StatusCode::kInvalidArgument);
  auto ex2 =
      Executor::Bind(&Runtime::Global(), fc, kCpu, {x, w, b},
                     {Filled({3, 4}, 0), Filled({2, 4}, 0), Filled({2}, 0)}, {GradReq::kWrite}, {});
  EXPECT_EQ(CodeOf([&] { ex2->Backward({Filled({3, 2}, 1)}); }), StatusCode::kInvalidArgument);
  ex2->Forward(true);
  EXPECT_EQ(CodeOf([&] { ex2->Backward({}); }), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeOf([&] { ex2->Backward({Filled({3, 3}, 1)}); }), StatusCode::kShape);
  EXPECT_EQ(CodeOf([] { ParseGradReq("sometimes"); }), StatusCode::kInvalidArgument);
}

TEST(Executor, GradientOfOpWithoutGradientIsAnError) {
  NameScope scope;
  Symbol y =
      Symbol::Apply(Runtime::Global().ops(), "assign", {Var("w"), Var("x") * 2.0}, {}, "upd");
  GradReqSpec req;
  req.by_name["x"] = GradReq::kWrite;
  try {
    Executor::SimpleBind(&Runtime::Global(), y, kCpu, {{"w", Shape{2}}, {"x", Shape{2}}}, {}, req);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kNotImplemented);
    EXPECT_NE(std::string(e.what()).find("assign"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace weft
