#include <gtest/gtest.h>

#include "register_kernels.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(OpRegistry, FindsNamesAndAliases) {
  Runtime rt;  // a fresh runtime has its own registries
  const OpDef* q = rt.ops().Find("quadratic");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(rt.ops().Find("_contrib_quadratic"), q);
  EXPECT_EQ(rt.ops().Find("no_such_op"), nullptr);
  try {
    rt.ops().Get("no_such_op");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("no_such_op"), std::string::npos);
  }
  auto names = rt.ops().ListNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(names.size(), rt.ops().size());
}

TEST(Runtime, AFreshRuntimeHasTheKernelsItsAssemblerInstalls) {
  Runtime rt;  // core registers operators only
  EXPECT_NE(rt.ops().Find("Convolution"), nullptr);
  EXPECT_EQ(rt.kernels().Find("Convolution", DeviceType::kCPU), nullptr);
  InstallBuiltinKernels(&rt);
  EXPECT_NE(rt.kernels().Find("Convolution", DeviceType::kCPU), nullptr);
}

TEST(OpRegistry, DuplicateNameIsABug) {
  OpRegistry reg;
  OpDef a;
  a.name = "x";
  reg.Add(a);
  OpDef b;
  b.name = "y";
  b.aliases = {"x"};
  EXPECT_THROW(reg.Add(b), Error);
}

TEST(OpRegistry, EveryOpIsCompleteAndHasACpuKernel) {
  Runtime& rt = Runtime::Global();
  for (const auto& name : rt.ops().ListNames()) {
    const OpDef& op = rt.ops().Get(name);
    EXPECT_FALSE(op.doc.empty()) << name;
    for (const auto& p : op.params) EXPECT_FALSE(p.name.empty()) << name;
    if (op.tape_only) {  // recorded by autograd only: never bound nor invoked
      EXPECT_EQ(rt.kernels().Find(name, DeviceType::kCPU), nullptr) << name;
      continue;
    }
    EXPECT_TRUE(op.infer_shape) << name;
    EXPECT_TRUE(op.infer_type) << name;
    if (op.check_subgraphs) continue;  // expanded into its subgraph before a graph runs
    EXPECT_NE(rt.kernels().Find(name, DeviceType::kCPU), nullptr) << name << " has no CPU kernel";
  }
}

TEST(KernelRegistry, PriorityPicksBackendAndKeepsOthers) {
  KernelRegistry reg;
  reg.Add("op", DeviceType::kCPU, {"cpu", 0, nullptr, false});
  reg.Add("op", DeviceType::kCPU, {"blas", 10, nullptr, false});
  EXPECT_EQ(reg.Find("op", DeviceType::kCPU)->backend, "blas");
  EXPECT_NE(reg.FindBackend("op", DeviceType::kCPU, "cpu"), nullptr);
  EXPECT_EQ(reg.Backends("op", DeviceType::kCPU), (std::vector<std::string>{"blas", "cpu"}));
  EXPECT_EQ(reg.Find("op", DeviceType::kGPU), nullptr);
  EXPECT_THROW(reg.Add("op", DeviceType::kCPU, {"cpu", 1, nullptr, false}), Error);
}

TEST(Invoke, ChecksArityAndOutputs) {
  NDArray x = test::Array({2}, {1, 2});
  try {
    Invoke(&Runtime::Global(), "quadratic", {x, x});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("expected 1 input"), std::string::npos) << e.what();
  }
  std::vector<NDArray> outs{
      NDArray(Shape({3}), Context::CPU(0), DType::kFloat32, &Runtime::Global())};
  try {
    Invoke(&Runtime::Global(), "quadratic", {x}, {}, &outs);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kShape);
    EXPECT_NE(std::string(e.what()).find("(3,)"), std::string::npos) << e.what();
  }
  std::vector<NDArray> wrong_type{
      NDArray(Shape({2}), Context::CPU(0), DType::kFloat64, &Runtime::Global())};
  EXPECT_THROW(Invoke(&Runtime::Global(), "quadratic", {x}, {}, &wrong_type), Error);
}

TEST(Invoke, WriteAddAndNullRequests) {
  NDArray x = test::Array({3}, {1, 2, 3});
  StringMap p{{"a", "1"}};
  std::vector<NDArray> outs{test::Array({3}, {10, 10, 10})};
  InvokeOptions add;
  add.reqs = {OpReq::kAdd};
  Invoke(&Runtime::Global(), "quadratic", {x}, p, &outs, add);
  EXPECT_EQ(test::Values(outs[0]), (std::vector<double>{11, 14, 19}));
  InvokeOptions null;
  null.reqs = {OpReq::kNull};
  Invoke(&Runtime::Global(), "quadratic", {x}, p, &outs, null);
  EXPECT_EQ(test::Values(outs[0]), (std::vector<double>{11, 14, 19}));
  Invoke(&Runtime::Global(), "quadratic", {x}, p, &outs);
  EXPECT_EQ(test::Values(outs[0]), (std::vector<double>{1, 4, 9}));
}

TEST(Invoke, InPlaceOnTheInput) {
  NDArray x = test::Array({3}, {1, 2, 3});
  std::vector<NDArray> outs{x};
  Invoke(&Runtime::Global(), "quadratic", {x}, {{"a", "1"}, {"c", "1"}}, &outs);
  EXPECT_EQ(test::Values(x), (std::vector<double>{2, 5, 10}));
}

TEST(Invoke, UnsupportedDTypeNamesTheOp) {
  NDArray x = test::Array({2}, {1, 2}, DType::kInt32);
  try {
    // The kernel rejects int32 when it runs: the error surfaces at the wait.
    Invoke(&Runtime::Global(), "quadratic", {x})[0].WaitToRead();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDType);
    EXPECT_NE(std::string(e.what()).find("quadratic"), std::string::npos) << e.what();
  }
}

TEST(Status, CheckThrowsInternalWithLocation) {
  try {
    WEFT_CHECK(1 + 1 == 3) << "arithmetic";
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInternal);
    EXPECT_NE(std::string(e.what()).find("arithmetic"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("registry_test.cc"), std::string::npos);
  }
}

}  // namespace
}  // namespace weft
