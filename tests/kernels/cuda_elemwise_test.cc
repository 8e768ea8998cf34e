// What every CUDA kernel does on a machine without a device (a clean
// Error(kDevice), never a crash), and which ops a CUDA build registers. The
// kernels' numbers are compared with the CPU's by the backend table
// (backend_cases_*.cc).
#include <gtest/gtest.h>

#include "util/backend_harness.h"

#if WEFT_USE_CUDA
#include "cuda/cuda_handles.h"
#endif

namespace weft {
namespace {

bool NoGpu() { return test::GpuCount() == 0; }

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
  ExpectDeviceError("_backward_FullyConnected", {{"num_hidden", "4"}}, {{2, 4}, {2, 108}, {4, 108}},
                    {{2, 108}, {4, 108}, {4}});
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
      if (which == 0)
        cuda::CublasHandle(ctx);
      else
        cuda::CudnnHandle(ctx);
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
    NDArray a(Shape({2, 3}), Context::GPU(0), DType::kFloat32, &Runtime::Global());
    test::Run("relu", {a});
    FAIL() << "running relu on gpu(0) without a device must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kDevice) << e.what();
  }
}

TEST(CudaKernels, RegisteredWhenBuiltWithCuda) {
#if WEFT_USE_CUDA
  const auto& k = Runtime::Global().kernels();
  for (const char* op : {"FullyConnected",
                         "_backward_FullyConnected",
                         "Convolution",
                         "_backward_Convolution",
                         "Pooling",
                         "_backward_Pooling",
                         "Activation",
                         "_backward_Activation",
                         "BatchNorm",
                         "_backward_BatchNorm",
                         "softmax",
                         "_backward_softmax",
                         "log_softmax",
                         "_backward_log_softmax",
                         "SoftmaxActivation",
                         "_backward_SoftmaxActivation",
                         "SoftmaxOutput",
                         "_backward_SoftmaxOutput",
                         "elemwise_add",
                         "elemwise_sub",
                         "elemwise_mul",
                         "elemwise_div",
                         "_backward_div",
                         "_plus_scalar",
                         "_power_scalar",
                         "_backward_power_scalar",
                         "relu",
                         "_backward_relu",
                         "exp",
                         "log",
                         "sqrt",
                         "_backward_sqrt",
                         "erf",
                         "_backward_erf",
                         "rsqrt",
                         "_backward_rsqrt",
                         "reciprocal",
                         "_backward_reciprocal",
                         "hard_sigmoid",
                         "_backward_hard_sigmoid",
                         "_contrib_div_sqrt_dim",
                         "_maximum",
                         "_minimum",
                         "_backward_maximum",
                         "_backward_minimum",
                         "_maximum_scalar",
                         "_minimum_scalar",
                         "_backward_maximum_scalar",
                         "_backward_minimum_scalar",
                         "_equal_scalar",
                         "_not_equal_scalar",
                         "_greater_scalar",
                         "_greater_equal_scalar",
                         "_lesser_scalar",
                         "_lesser_equal_scalar",
                         "LayerNorm",
                         "_backward_LayerNorm",
                         "SequenceMask"})
    EXPECT_NE(k.Find(op, DeviceType::kGPU), nullptr) << op;
  EXPECT_EQ(k.Find("Convolution", DeviceType::kGPU)->backend, "cudnn");
  EXPECT_EQ(k.Find("FullyConnected", DeviceType::kGPU)->backend, "cublas");
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

}  // namespace
}  // namespace weft
