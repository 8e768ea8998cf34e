// Custom operators through core's interface (weft/custom_op.h): a softplus
// with a beta attribute as a C++ prop, against the closed form and central
// differences of its symbolic gradient; unknown and in-use types; the
// ParamDecl::rest attributes; operators added to registries in use.
#include <cmath>
#include <thread>

#include <gtest/gtest.h>

#include "util/test_util.h"
#include "weft/custom_op.h"
#include "weft/engine.h"

namespace weft {
namespace {

template <typename T>
void Softplus(double beta, const TBlob& x, const TBlob& y) {
  for (int64_t i = 0; i < x.Size(); ++i)
    y.data<T>()[i] = static_cast<T>(std::log1p(std::exp(beta * x.data<T>()[i])) / beta);
}

template <typename T>
void SoftplusGrad(double beta, const TBlob& dy, const TBlob& x, const TBlob& dx) {
  for (int64_t i = 0; i < x.Size(); ++i)
    dx.data<T>()[i] = static_cast<T>(dy.data<T>()[i] / (1 + std::exp(-beta * x.data<T>()[i])));
}

class SoftplusOp : public CustomOperator {
 public:
  explicit SoftplusOp(double beta) : beta_(beta) {}
  void Forward(bool, const std::vector<OpReq>&, const std::vector<TBlob>& in,
               const std::vector<TBlob>& out, const std::vector<TBlob>&) override {
    if (in[0].dtype == DType::kFloat64)
      Softplus<double>(beta_, in[0], out[0]);
    else
      Softplus<float>(beta_, in[0], out[0]);
  }
  void Backward(const std::vector<OpReq>&, const std::vector<TBlob>& out_grad,
                const std::vector<TBlob>& in_data, const std::vector<TBlob>& out_data,
                const std::vector<TBlob>& in_grad, const std::vector<TBlob>&) override {
    EXPECT_EQ(out_data[0].dptr, nullptr);  // not declared
    if (in_data[0].dtype == DType::kFloat64)
      SoftplusGrad<double>(beta_, out_grad[0], in_data[0], in_grad[0]);
    else
      SoftplusGrad<float>(beta_, out_grad[0], in_data[0], in_grad[0]);
  }

 private:
  double beta_;
};

class SoftplusProp : public CustomOpProp {
 public:
  explicit SoftplusProp(double beta) : beta_(beta) {}
  std::vector<std::string> ListArguments() override { return {"data"}; }
  std::vector<std::string> ListOutputs() override { return {"output"}; }
  std::vector<std::string> ListAuxiliaryStates() override { return {}; }
  void InferShape(std::vector<Shape>* in, std::vector<Shape>* out, std::vector<Shape>*) override {
    (*out)[0] = (*in)[0];
  }
  void InferType(std::vector<DType>* in, std::vector<DType>* out, std::vector<DType>*) override {
    (*out)[0] = (*in)[0];
  }
  std::vector<int> DeclareBackwardDependency(const std::vector<int>& og, const std::vector<int>& in,
                                             const std::vector<int>&) override {
    return {og[0], in[0]};
  }
  std::unique_ptr<CustomOperator> CreateOperator(Context, const std::vector<Shape>&,
                                                 const std::vector<DType>&) override {
    return std::make_unique<SoftplusOp>(beta_);
  }

 private:
  double beta_;
};

void RegisterSoftplus(const std::string& type) {
  RegisterCustomOp(type, [](const std::string&, const StringMap& attrs) {
    auto it = attrs.find("beta");
    return std::make_unique<SoftplusProp>(it == attrs.end() ? 1.0 : std::stod(it->second));
  });
}

TEST(CustomOp, ForwardAndNumericGradient) {
  RegisterSoftplus("cpp_softplus");
  {
    NDArray x = test::Array({4}, {-2, -0.5, 0.5, 3});
    NDArray y = test::Run("Custom", {x}, {{"op_type", "cpp_softplus"}, {"beta", "2"}})[0];
    std::vector<double> got = test::Values(y), xs = test::Values(x);
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_NEAR(got[i], std::log1p(std::exp(2 * xs[i])) / 2, 1e-6);
    NDArray x64 = test::Array({5}, {-1.5, -0.2, 0.1, 0.7, 2}, DType::kFloat64);
    EXPECT_LT(test::GradientError("Custom", {x64}, {{"op_type", "cpp_softplus"}, {"beta", "1.5"}}),
              1e-6);
  }
  Engine::Get()->WaitForAll();
  UnregisterCustomOp("cpp_softplus");
}

TEST(CustomOp, UnknownAndInUseTypes) {
  NDArray x = test::Array({2}, {1, 2});
  test::ExpectOpError("Custom", {x}, {{"op_type", "no_such_type"}}, StatusCode::kNotFound,
                      {"no_such_type", "not registered"});
  RegisterSoftplus("cpp_softplus_in_use");
  test::ExpectError([] { RegisterSoftplus("cpp_softplus_in_use"); }, StatusCode::kInvalidArgument,
                    {"registered already"});
  {
    NodePtr v = MakeVariable("x");
    NodePtr n = MakeOpNode(Runtime::Global().ops(), "Custom", "act", {{v, 0, 0}},
                           {{"op_type", "cpp_softplus_in_use"}});
    EXPECT_EQ(n->num_outputs(), 1u);
    test::ExpectError([] { UnregisterCustomOp("cpp_softplus_in_use"); },
                      StatusCode::kInvalidArgument, {"cpp_softplus_in_use", "in use by 1 node"});
  }
  UnregisterCustomOp("cpp_softplus_in_use");
  test::ExpectError([] { UnregisterCustomOp("cpp_softplus_in_use"); }, StatusCode::kNotFound,
                    {"cpp_softplus_in_use"});
}

TEST(CustomOp, RestDeclarationCollectsOtherKeys) {
  std::vector<ParamDecl> decls(2);
  decls[0].name = "a";
  decls[0].type = ParamType::kInt;
  decls[0].default_value = "1";
  decls[1].name = "rest";
  decls[1].type = ParamType::kString;
  decls[1].rest = true;
  ParamValues p = ParseParams("op", &decls, {{"a", "3"}, {"x", "(1, 2)"}, {"__hidden__", "h"}});
  EXPECT_EQ(p.GetInt("a"), 3);
  EXPECT_EQ(p.Get("rest").rest, (StringMap{{"x", "(1, 2)"}}));
}

TEST(OpRegistry, AddLoadedWhileInUse) {
  OpRegistry reg;
  OpDef a;
  a.name = "base";
  reg.Add(a);
  std::thread reader([&] {
    for (int i = 0; i < 2000; ++i) {
      EXPECT_NE(reg.Find("base"), nullptr);
      reg.Find("loaded_7");
      reg.ListNames();
    }
  });
  for (int i = 0; i < 10; ++i) {
    OpDef d;
    d.name = "loaded_" + std::to_string(i);
    reg.AddLoaded(d);
  }
  reader.join();
  EXPECT_EQ(reg.size(), 11u);
  EXPECT_EQ(reg.ListLoaded().size(), 10u);
  EXPECT_NE(reg.Find("loaded_3"), nullptr);
  OpDef dup;
  dup.name = "base";
  test::ExpectError([&] { reg.AddLoaded(dup); }, StatusCode::kInvalidArgument, {"base", "taken"});
  KernelRegistry kr;
  kr.AddLoaded("loaded_3", DeviceType::kCPU, {"library", 0, nullptr, false});
  EXPECT_EQ(kr.Find("loaded_3", DeviceType::kCPU)->backend, "library");
  EXPECT_NE(kr.FindBackend("loaded_3", DeviceType::kCPU, "library"), nullptr);
  test::ExpectError(
      [&] {
        kr.AddLoaded("loaded_3", DeviceType::kCPU, {"x", 0, nullptr, false});
      },
      StatusCode::kInvalidArgument, {"loaded_3"});
}

}  // namespace
}  // namespace weft
