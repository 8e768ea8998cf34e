// The CUDA elementwise kernels against the CPU reference (skipped without
// a device), and what every CUDA kernel does on a machine without one: a
// clean Error(kDevice), never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/cuda_test_util.h"

#if WEFT_USE_CUDA
#include "cuda/cuda_handles.h"
#endif

namespace weft {
namespace {

using test::Compare;
using test::In;

bool NoGpu() { return test::GpuCount() == 0; }

TEST(CudaElemwise, UnaryForwardAndBackward) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape s{5, 7};
  // Positive inputs where the op needs them (log, sqrt).
  for (const char* op : {"relu", "sigmoid", "tanh", "exp", "square", "abs", "negative"})
    Compare(op, {{s, -2, 2}}, {});
  for (const char* op : {"log", "sqrt"}) Compare(op, {{s, 0.5, 3}}, {});
  for (const char* op : {"_backward_relu", "_backward_sigmoid", "_backward_tanh",
                         "_backward_square", "_backward_abs"})
    Compare(op, {{s, -1, 1}, {s, -2, 2}}, {});
  for (const char* op : {"_backward_sqrt", "_backward_log"})
    Compare(op, {{s, -1, 1}, {s, 0.5, 3}}, {});
}

TEST(CudaElemwise, BinaryForwardAndBackward) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape s{3, 4, 5};
  for (const char* op : {"elemwise_add", "elemwise_sub", "elemwise_mul"})
    Compare(op, {{s, -2, 2}, {s, -2, 2}}, {});
  Compare("elemwise_div", {{s, -2, 2}, {s, 0.5, 2}}, {});
  Compare("_backward_div", {{s, -1, 1}, {s, -2, 2}, {s, 0.5, 2}}, {});
}

TEST(CudaElemwise, BroadcastAndComparisonForward) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape big{2, 3, 4}, row{3, 1}, col{2, 1, 4};
  for (const char* op : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_maximum", "broadcast_minimum",
                         "broadcast_equal", "broadcast_not_equal", "broadcast_greater", "broadcast_greater_equal",
                         "broadcast_lesser", "broadcast_lesser_equal"}) {
    Compare(op, {{big, -2, 2}, {row, -2, 2}}, {});
    Compare(op, {{col, -2, 2}, {big, -2, 2}}, {});
  }
  Compare("broadcast_div", {{big, -2, 2}, {row, 0.5, 2}}, {});
  Compare("broadcast_power", {{big, 0.5, 2}, {col, -1, 2}}, {});
  const Shape s{3, 5};
  for (const char* op : {"_equal", "_not_equal", "_greater", "_greater_equal", "_lesser", "_lesser_equal"})
    Compare(op, {{s, -1, 1}, {s, -1, 1}}, {});
  Compare("_power", {{s, 0.5, 2}, {s, -1, 2}}, {});
}

TEST(CudaElemwise, ScalarForwardAndBackward) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape s{4, 9};
  const StringMap p{{"scalar", "1.75"}};
  for (const char* op : {"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar",
                         "_div_scalar"})
    Compare(op, {{s, -2, 2}}, p);
  for (const char* op : {"_rdiv_scalar", "_power_scalar"}) Compare(op, {{s, 0.5, 2}}, p);
  for (const char* op : {"_backward_rdiv_scalar", "_backward_power_scalar"})
    Compare(op, {{s, -1, 1}, {s, 0.5, 2}}, p);
}

TEST(CudaElemwise, MathForwardAndBackward) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape s{4, 9};
  Compare("erf", {{s, -2.5, 2.5}}, {});
  for (const char* op : {"rsqrt", "reciprocal"}) Compare(op, {{s, 0.5, 3}}, {});
  Compare("reciprocal", {{s, -3, -0.5}}, {});
  Compare("_contrib_div_sqrt_dim", {{s, -2, 2}}, {});  // divided by 3
  Compare("_contrib_div_sqrt_dim", {{{3, 2, 5}, -2, 2}}, {});
  Compare("_backward_erf", {{s, -1, 1}, {s, -2.5, 2.5}}, {});
  for (const char* op : {"_backward_rsqrt", "_backward_reciprocal"})
    Compare(op, {{s, -1, 1}, {s, 0.5, 3}}, {});
  // alpha = 0.1 is not a float32: float64 results differ by ~1e-9 unless
  // alpha and beta are rounded to float32 as on the CPU; the range reaches
  // both clipped sides.
  for (const StringMap& p : {StringMap{}, StringMap{{"alpha", "0.1"}, {"beta", "0.3"}}}) {
    Compare("hard_sigmoid", {{s, -8, 8}}, p);
    Compare("_backward_hard_sigmoid", {{s, -1, 1}, {s, -8, 8}}, p);
  }
}

// Values with ties (against each other and the scalars 0.5 and 6) and,
// when `nan`, NaNs: uniform draws (seeded by `seed`) from a small set.
NDArray TieValues(const Shape& s, DType t, unsigned seed, bool nan) {
  const double set[] = {-1, -0.5, 0, 0.5, 1, 6, 7, 0.5, 6, std::nan("")};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, nan ? 9 : 8);
  std::vector<double> v(s.Size());
  for (double& e : v) e = set[pick(rng)];
  return test::Array(s, v, t);
}

// `op` on gpu(0) and cpu(0) (write request) must agree exactly, NaN with NaN.
void CompareExact(const std::string& op, const std::vector<NDArray>& in, const StringMap& p) {
  const test::DeviceRun c = test::RunOn(Context::CPU(0), op, in, p, false, OpReq::kWrite, {});
  const test::DeviceRun g = test::RunOn(Context::GPU(0), op, in, p, false, OpReq::kWrite, {});
  ASSERT_EQ(c.outs.size(), g.outs.size()) << op;
  for (size_t k = 0; k < c.outs.size(); ++k) {
    ASSERT_EQ(c.outs[k].size(), g.outs[k].size()) << op;
    for (size_t i = 0; i < c.outs[k].size(); ++i) {
      const double a = c.outs[k][i], b = g.outs[k][i];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b)))
          << op << " output " << k << " element " << i << ": gpu " << b << " cpu " << a;
    }
  }
}

TEST(CudaElemwise, MaximumMinimumAndComparisons) {
  if (NoGpu()) GTEST_SKIP() << "no CUDA device";
  const Shape s{6, 10};
  const char* scalar_ops[] = {"_maximum_scalar", "_minimum_scalar", "_equal_scalar",
                              "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar",
                              "_lesser_scalar", "_lesser_equal_scalar"};
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    for (const char* sc : {"0.5", "6"}) {
      const StringMap p{{"scalar", sc}};
      for (bool nan : {true, false}) {
        const NDArray x = TieValues(s, t, 1, nan), og = test::RandomArray(s, t, -1, 1, 9);
        for (const char* op : scalar_ops) CompareExact(op, {x}, p);
        for (const char* op : {"_backward_maximum_scalar", "_backward_minimum_scalar"})
          CompareExact(op, {og, x}, p);
        if (!nan) {  // write and add requests
          for (const char* op : scalar_ops) test::CompareArrays(op, {x}, p);
          test::CompareArrays("_backward_maximum_scalar", {og, x}, p);
        }
      }
    }
    for (bool nan : {true, false}) {
      const NDArray l = TieValues(s, t, 1, nan), r = TieValues(s, t, 4, nan);
      const NDArray og = test::RandomArray(s, t, -1, 1, 9);
      for (const char* op : {"_maximum", "_minimum"}) CompareExact(op, {l, r}, {});
      for (const char* op : {"_backward_maximum", "_backward_minimum"})
        CompareExact(op, {og, l, r}, {});
      if (!nan) {
        test::CompareArrays("_minimum", {l, r}, {});
        test::CompareArrays("_backward_maximum", {og, l, r}, {});
      }
    }
  }
}

// ------------------------------------------------------- without a device

#if WEFT_USE_CUDA
// A GPU kernel called on gpu(0) blobs must throw Error(kDevice) naming the
// op or the failing call when there is no device.
void ExpectDeviceError(const std::string& op_name, const StringMap& params,
                       const std::vector<Shape>& in, const std::vector<Shape>& out) {
  Runtime& rt = Runtime::Global();
  const OpDef& op = rt.ops().Get(op_name);
  const Kernel* k = rt.kernels().Find(op_name, DeviceType::kGPU);
  ASSERT_NE(k, nullptr) << op_name << " has no GPU kernel";
  NodeAttrs attrs;
  attrs.op = &op;
  attrs.name = op.name;
  attrs.params = ParseParams(op.name, &op.params, params);
  auto blobs = [](const std::vector<Shape>& shapes) {
    std::vector<TBlob> b;
    for (const Shape& s : shapes) {
      TBlob t;
      t.shape = s;
      t.ctx = Context::GPU(0);
      b.push_back(t);
    }
    return b;
  };
  OpContext ctx;
  ctx.ctx = Context::GPU(0);
  ctx.is_train = true;
  try {
    k->fn(ctx, attrs, blobs(in), std::vector<OpReq>(out.size(), OpReq::kWrite), blobs(out));
    ADD_FAILURE() << op_name << " on gpu(0) without a device did not fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice) << op_name << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("gpu(0)"), std::string::npos) << e.what();
  }
}
#endif

TEST(CudaNoDevice, EveryKernelFailsCleanly) {
#if WEFT_USE_CUDA
  if (!NoGpu()) GTEST_SKIP() << "a GPU is present";
  const Shape x{2, 3, 6, 6};
  ExpectDeviceError("FullyConnected", {{"num_hidden", "4"}}, {{2, 108}, {4, 108}, {4}}, {{2, 4}});
  ExpectDeviceError("_backward_FullyConnected", {{"num_hidden", "4"}},
                    {{2, 4}, {2, 108}, {4, 108}}, {{2, 108}, {4, 108}, {4}});
  const StringMap conv{{"kernel", "(3,3)"}, {"num_filter", "4"}};
  ExpectDeviceError("Convolution", conv, {x, {4, 3, 3, 3}, {4}}, {{2, 4, 4, 4}});
  ExpectDeviceError("_backward_Convolution", conv, {{2, 4, 4, 4}, x, {4, 3, 3, 3}},
                    {x, {4, 3, 3, 3}, {4}});
  const StringMap pool{{"kernel", "(2,2)"}, {"stride", "(2,2)"}};
  ExpectDeviceError("Pooling", pool, {x}, {{2, 3, 3, 3}});
  ExpectDeviceError("_backward_Pooling", pool, {{2, 3, 3, 3}, x}, {x});
  for (const char* act : {"relu", "softrelu"}) {
    ExpectDeviceError("Activation", {{"act_type", act}}, {x}, {x});
    ExpectDeviceError("_backward_Activation", {{"act_type", act}}, {x, x, x}, {x});
  }
  ExpectDeviceError("BatchNorm", {}, {x, {3}, {3}, {3}, {3}}, {x});
  ExpectDeviceError("_backward_BatchNorm", {}, {x, x, {3}, {3}, {3}}, {x, {3}, {3}});
  ExpectDeviceError("softmax", {}, {x}, {x});
  ExpectDeviceError("_backward_log_softmax", {}, {x, x}, {x});
  ExpectDeviceError("SoftmaxOutput", {}, {{2, 5}, {2}}, {{2, 5}});
  ExpectDeviceError("_backward_SoftmaxOutput", {}, {{2, 5}, {2, 5}, {2}}, {{2, 5}, {2}});
  ExpectDeviceError("elemwise_add", {}, {x, x}, {x});
  ExpectDeviceError("_backward_div", {}, {x, x, x}, {x, x});
  ExpectDeviceError("_plus_scalar", {{"scalar", "1"}}, {x}, {x});
  ExpectDeviceError("exp", {}, {x}, {x});
  ExpectDeviceError("_maximum_scalar", {{"scalar", "6"}}, {x}, {x});
  ExpectDeviceError("_backward_maximum", {}, {x, x, x}, {x, x});
  ExpectDeviceError("hard_sigmoid", {}, {x}, {x});
  ExpectDeviceError("_contrib_div_sqrt_dim", {}, {x}, {x});
  ExpectDeviceError("LayerNorm", {}, {x, {6}, {6}}, {x});
  ExpectDeviceError("_backward_LayerNorm", {}, {x, x, {6}}, {x, {6}, {6}});
  ExpectDeviceError("SequenceMask", {{"use_sequence_length", "True"}}, {x, {3}}, {x});
  ExpectDeviceError("zeros_like", {}, {x}, {x});
  ExpectDeviceError("Flatten", {}, {x}, {{2, 108}});
  ExpectDeviceError("ElementWiseSum", {{"num_args", "2"}}, {x, x}, {x});
  ExpectDeviceError("_full", {{"shape", "(2,3,6,6)"}, {"value", "2"}}, {}, {x});
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

TEST(CudaNoDevice, LibraryHandlesFailCleanly) {
#if WEFT_USE_CUDA
  if (!NoGpu()) GTEST_SKIP() << "a GPU is present";
  OpContext ctx;
  ctx.ctx = Context::GPU(0);
  for (int which = 0; which < 2; ++which) {
    try {
      if (which == 0) cuda::CublasHandle(ctx);
      else cuda::CudnnHandle(ctx);
      ADD_FAILURE() << "a library handle was created without a device";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::kDevice) << e.what();
      EXPECT_NE(std::string(e.what()).find("cudaSetDevice"), std::string::npos) << e.what();
    }
  }
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

TEST(CudaNoDevice, InvokeOnGpuGivesDeviceError) {
  if (!NoGpu()) GTEST_SKIP() << "a GPU is present";
  try {
    NDArray a(Shape({2, 3}), Context::GPU(0), DType::kFloat32);
    test::Run("relu", {a});
    FAIL() << "running relu on gpu(0) without a device must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice) << e.what();
  }
}

TEST(CudaKernels, RegisteredWhenBuiltWithCuda) {
#if WEFT_USE_CUDA
  const auto& k = Runtime::Global().kernels();
  for (const char* op :
       {"FullyConnected", "_backward_FullyConnected", "Convolution", "_backward_Convolution",
        "Pooling", "_backward_Pooling", "Activation", "_backward_Activation", "BatchNorm",
        "_backward_BatchNorm", "softmax", "_backward_softmax", "log_softmax",
        "_backward_log_softmax", "SoftmaxActivation", "_backward_SoftmaxActivation",
        "SoftmaxOutput", "_backward_SoftmaxOutput",
        "elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "_backward_div",
        "_plus_scalar", "_power_scalar", "_backward_power_scalar", "relu", "_backward_relu",
        "exp", "log", "sqrt", "_backward_sqrt", "erf", "_backward_erf", "rsqrt",
        "_backward_rsqrt", "reciprocal", "_backward_reciprocal", "hard_sigmoid",
        "_backward_hard_sigmoid", "_contrib_div_sqrt_dim", "_maximum", "_minimum",
        "_backward_maximum", "_backward_minimum", "_maximum_scalar", "_minimum_scalar",
        "_backward_maximum_scalar", "_backward_minimum_scalar", "_equal_scalar",
        "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar",
        "_lesser_equal_scalar", "LayerNorm", "_backward_LayerNorm", "SequenceMask"})
    EXPECT_NE(k.Find(op, DeviceType::kGPU), nullptr) << op;
  EXPECT_EQ(k.Find("Convolution", DeviceType::kGPU)->backend, "cudnn");
  EXPECT_EQ(k.Find("FullyConnected", DeviceType::kGPU)->backend, "cublas");
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

}  // namespace
}  // namespace weft
