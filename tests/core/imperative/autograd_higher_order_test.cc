// Higher-order gradients (autograd::Grad with create_graph): closed forms of
// x^3 through elementwise ops, a clear error where a gradient op has no
// gradient of its own, and through a recorded CachedOp call.
#include <gtest/gtest.h>

#include "util/test_util.h"
#include "weft/autograd.h"
#include "weft/cached_op.h"
#include "weft/imperative.h"
#include "weft/runtime.h"
#include "weft/status.h"

namespace weft {
namespace {

using test::Values;

Runtime* Rt() { return &Runtime::Global(); }

NDArray Op(const std::string& op, const std::vector<NDArray>& in, const StringMap& p = {}) {
  return Invoke(Rt(), op, in, p)[0];
}

// x marked with a zeroed gradient buffer.
NDArray Marked(const std::vector<double>& v, NDArray* grad) {
  NDArray x = test::Array(Shape{static_cast<int64_t>(v.size())}, v);
  *grad = test::Array(x.shape(), std::vector<double>(v.size(), 0));
  autograd::MarkVariables({&x}, {GradReq::kWrite}, {*grad});
  return x;
}

// y = x^3: dy/dx = 3x^2 (recorded), its gradient 6x, the next 6.
TEST(AutogradHigherOrder, ThirdPowerThroughElementwiseOps) {
  NDArray gx;
  NDArray x = Marked({1, 2, 3}, &gx);
  NDArray y;
  {
    autograd::RecordScope rec;
    y = Op("elemwise_mul", {Op("elemwise_mul", {x, x}), x});
  }
  const NDArray d1 = autograd::Grad(Rt(), {y}, {x}, {}, false, true, /*create_graph=*/true)[0];
  EXPECT_EQ(Values(d1), (std::vector<double>{3, 12, 27}));
  ASSERT_NE(d1.autograd_entry(), nullptr);  // recorded in turn
  const NDArray d2 = autograd::Grad(Rt(), {d1}, {x}, {}, false, true, true)[0];
  EXPECT_EQ(Values(d2), (std::vector<double>{6, 12, 18}));
  const NDArray d3 = autograd::Grad(Rt(), {d2}, {x}, {}, /*retain_graph=*/true)[0];
  EXPECT_EQ(Values(d3), (std::vector<double>{6, 6, 6}));
  autograd::Backward(Rt(), {d1});  // the buffer gets d(3x^2)/dx
  EXPECT_EQ(Values(gx), (std::vector<double>{6, 12, 18}));
  // Without create_graph the gradient is not recorded: nothing to go on from.
  NDArray y2;
  {
    autograd::RecordScope rec;
    y2 = Op("elemwise_mul", {x, x});
  }
  const NDArray plain = autograd::Grad(Rt(), {y2}, {x})[0];
  EXPECT_EQ(plain.autograd_entry(), nullptr);
}

// tanh through Activation: its gradient op _backward_Activation has no
// gradient, so differentiating the recorded gradient fails naming it.
TEST(AutogradHigherOrder, AGradientOpWithoutGradientIsNamed) {
  NDArray gx;
  NDArray x = Marked({0.5, -1}, &gx);
  NDArray y;
  {
    autograd::RecordScope rec;
    y = Op("Activation", {x}, {{"act_type", "tanh"}});
  }
  const NDArray d1 = autograd::Grad(Rt(), {y}, {x}, {}, false, true, true)[0];
  const double t = std::tanh(0.5);
  EXPECT_NEAR(Values(d1)[0], 1 - t * t, 1e-6);
  try {
    autograd::Backward(Rt(), {d1});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kNotImplemented) << e.what();
    EXPECT_NE(std::string(e.what()).find("_backward_Activation"), std::string::npos) << e.what();
  }
}

// A recorded CachedOp call back-propagates through its executor, unrecorded:
// create_graph through it is refused, and the plain gradient still works.
TEST(AutogradHigherOrder, CreateGraphThroughACachedOpIsRefused) {
  NameScope scope;
  Symbol x = Symbol::CreateVariable("x");
  Symbol sq = Symbol::Apply(Rt()->ops(), "elemwise_mul", {x, x}, {}, "sq");
  Symbol cube = Symbol::Apply(Rt()->ops(), "elemwise_mul", {sq, x}, {}, "cube");
  Symbol sum = Symbol::Apply(Rt()->ops(), "sum", {cube}, {}, "s");
  CachedOp op(Rt(), sum);  // three operators: one node on the tape
  NDArray gx;
  NDArray a = Marked({1, 2}, &gx);
  NDArray y;
  {
    autograd::RecordScope rec;
    y = op.Forward({a})[0];
  }
  try {
    autograd::Grad(Rt(), {y}, {a}, {}, true, true, true);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kNotImplemented) << e.what();
    EXPECT_NE(std::string(e.what()).find("_CachedOp"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Values(autograd::Grad(Rt(), {y}, {a})[0]), (std::vector<double>{3, 12}));
  try {  // the tape's node is no operator to call
    Invoke(Rt(), "_CachedOp", {a}, {{"num_inputs", "1"}, {"num_outputs", "1"}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be invoked"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace weft
