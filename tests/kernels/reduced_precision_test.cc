// float16 and bfloat16: the conversions against their closed forms, and
// every case of the backend table (util/backend_harness.h) run on float16 and
// bfloat16 inputs against the float32 result on the same (rounded) values,
// within the dtype's rounding of the outputs. Ops whose kernel computes a
// reduced float natively and ops computing in float32 between Casts
// (Invoke's float32 fallback) are both covered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "util/backend_harness.h"
#include "weft/float16.h"

namespace weft {
namespace {

float Bits(uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof(f));
  return f;
}

TEST(ReducedFloat, BFloat16RoundsToNearestEven) {
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even 1.
  EXPECT_EQ(FloatToBFloat16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: the even one.
  EXPECT_EQ(FloatToBFloat16Bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  // Just above the halfway point rounds up.
  EXPECT_EQ(FloatToBFloat16Bits(Bits(0x3f808001u)), 0x3f81);
  EXPECT_EQ(FloatToBFloat16Bits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToBFloat16Bits(INFINITY), 0x7f80);
  // The largest float rounds up to infinity; NaN stays a NaN.
  EXPECT_EQ(FloatToBFloat16Bits(Bits(0x7f7fffffu)), 0x7f80);
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(FloatToBFloat16Bits(NAN))));
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(FloatToBFloat16Bits(Bits(0x7f800001u)))));
  EXPECT_EQ(BFloat16BitsToFloat(0x4049), 3.140625f);
}

// Every float16 converts to float and back to itself; the bulk conversions
// (F16C where present) agree with the scalar ones bit for bit.
TEST(ReducedFloat, BulkConversionsAgreeWithScalar) {
  std::vector<Half> h(65536);
  for (uint32_t i = 0; i < 65536; ++i) h[i].bits = static_cast<uint16_t>(i);
  std::vector<float> f(h.size());
  HalfToFloat(h.data(), f.data(), f.size());
  std::vector<Half> back(h.size());
  FloatToHalf(f.data(), back.data(), f.size());
  for (uint32_t i = 0; i < 65536; ++i) {
    const bool nan = std::isnan(HalfBitsToFloat(h[i].bits));
    ASSERT_EQ(std::isnan(f[i]), nan) << i;
    if (!nan) {
      ASSERT_EQ(f[i], HalfBitsToFloat(h[i].bits)) << i;
      ASSERT_EQ(back[i].bits, h[i].bits) << i;
    }
  }
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-70000.0f, 70000.0f);
  std::vector<float> x(1003);
  for (auto& v : x) v = u(gen) * (gen() % 2 ? 1.0f : 1e-6f);
  std::vector<Half> xh(x.size());
  std::vector<BFloat16> xb(x.size());
  FloatToHalf(x.data(), xh.data(), x.size());
  FloatToBFloat16(x.data(), xb.data(), x.size());
  std::vector<float> yb(x.size());
  BFloat16ToFloat(xb.data(), yb.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(xh[i].bits, FloatToHalfBits(x[i])) << x[i];
    ASSERT_EQ(xb[i].bits, FloatToBFloat16Bits(x[i])) << x[i];
    ASSERT_EQ(yb[i], BFloat16BitsToFloat(xb[i].bits));
  }
}

// `a` cast to `t` (Cast's kernel).
NDArray CastTo(const NDArray& a, DType t) {
  return test::Run("Cast", {a}, {{"dtype", DTypeName(t)}})[0];
}

// Output rounding of `t`: 2^-7 relative for bfloat16 (8 significant bits),
// 2^-10 for float16 (11), with the harness's absolute floors.
double Tolerance(DType t) { return t == DType::kBFloat16 ? 1.0 / 128 : 1.0 / 1024; }

// The inputs of case `c` as float32 values.
std::vector<NDArray> CaseInputs(const test::BackendCase& c) {
  return c.make ? c.make(DType::kFloat32) : test::Randoms(c.in, DType::kFloat32, 1);
}

// Cases a reduced float cannot take as they are built: random draws (two
// runs differ), in-place state updates, cases pinned to a dtype (a `dtype`
// parameter, or no float32 variant), and the int8 fused operators (a
// `quantized` parameter: int8 levels with float32 ranges and weights, and a
// nested graph this table does not pass).
bool Comparable(const test::BackendCase& c) {
  const OpDef& op = Runtime::Global().ops().Get(c.op);
  const bool f32 = std::find(c.dtypes.begin(), c.dtypes.end(), DType::kFloat32) != c.dtypes.end();
  return f32 && !c.params.count("dtype") && !c.params.count("quantized") &&
         c.opts.subgraphs.empty() && !op.uses_rng && !op.mutate_inputs;
}

class ReducedTable : public ::testing::TestWithParam<DType> {};

TEST_P(ReducedTable, EveryCaseMatchesFloat32OnTheRoundedInputs) {
  const DType t = GetParam();
  int compared = 0;
  for (const test::BackendCase& c : test::BackendCases()) {
    if (!Comparable(c)) continue;
    SCOPED_TRACE(c.group + ": " + c.op + " in " + DTypeName(t));
    std::vector<NDArray> reduced, rounded;
    for (const NDArray& a : CaseInputs(c)) {
      reduced.push_back(a.dtype() == DType::kFloat32 ? CastTo(a, t) : a);
      rounded.push_back(a.dtype() == DType::kFloat32 ? CastTo(reduced.back(), DType::kFloat32) : a);
    }
    const std::vector<NDArray> ref = test::RunCpu(c.op, rounded, c.params, c.opts.train);
    const std::vector<NDArray> got = test::RunCpu(c.op, reduced, c.params, c.opts.train);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (ref[i].dtype() == DType::kFloat32) {
        EXPECT_EQ(got[i].dtype(), t) << "output " << i;
      }
      test::ExpectClose(test::Values(got[i]), test::Values(CastTo(ref[i], got[i].dtype())),
                        c.opts.exact ? 0 : Tolerance(t), "output " + std::to_string(i),
                        c.opts.exact);
    }
    ++compared;
  }
  EXPECT_GT(compared, 100);
}

// The same table on the GPU (skipped without one): every comparable case
// whose op has a GPU kernel, invoked on gpu(0) with float16/bfloat16 inputs
// (kernels computing the reduced floats themselves: cuDNN and cuBLAS on
// tensor cores and the map kernels, in float; the others in float32
// between Casts), against the CPU's float32 result on the rounded inputs.
// Inputs the op wants in float32 beside reduced data (a BatchNorm's
// parameters and statistics) stay float32 (test::ReducedDTypes). Two
// roundings of the dtype: reductions in another order (tensor cores).
TEST_P(ReducedTable, GpuMatchesFloat32OnTheRoundedInputs) {
  if (test::GpuCount() == 0) GTEST_SKIP() << "no GPU";
  const DType t = GetParam();
  const KernelRegistry& kernels = Runtime::Global().kernels();
  int compared = 0, native = 0;
  for (const test::BackendCase& c : test::BackendCases()) {
    const Kernel* k = Comparable(c) ? kernels.Find(c.op, DeviceType::kGPU) : nullptr;
    if (!k || std::count(c.opts.skip.begin(), c.opts.skip.end(), "gpu/" + k->backend)) continue;
    SCOPED_TRACE(c.group + ": " + c.op + " in " + DTypeName(t) + " on gpu/" + k->backend);
    const std::vector<NDArray> inputs = CaseInputs(c);
    const test::CaseDTypes types = test::ReducedDTypes(c.op, c.params, inputs, t);
    std::vector<NDArray> reduced, rounded;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const NDArray& a = inputs[i];
      const bool cast = a.dtype() == DType::kFloat32 && types.in[i] == t;
      reduced.push_back(cast ? CastTo(a, t) : a);
      rounded.push_back(cast ? CastTo(reduced.back(), DType::kFloat32) : a);
    }
    const std::vector<NDArray> ref = test::RunCpu(c.op, rounded, c.params, c.opts.train);
    const std::vector<NDArray> got =
        test::RunOn(Context::GPU(0), c.op, reduced, c.params, c.opts.train);
    ASSERT_EQ(got.size(), ref.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (i < types.out.size() && types.out[i] != DType::kUnknown) {
        EXPECT_EQ(got[i].dtype(), types.out[i]) << "output " << i;
      }
      test::ExpectClose(test::Values(got[i]), test::Values(CastTo(ref[i], got[i].dtype())),
                        c.opts.exact ? 0 : 2 * Tolerance(t), "output " + std::to_string(i),
                        c.opts.exact);
    }
    ++compared;
    native += k->Computes(t);
  }
  EXPECT_GT(native, 10) << "cases run by GPU kernels computing " << DTypeName(t) << " themselves";
  EXPECT_GT(compared, native);
}

INSTANTIATE_TEST_SUITE_P(DTypes, ReducedTable, ::testing::Values(DType::kFloat16, DType::kBFloat16),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(DTypeName(info.param));
                         });

// A kernel that computes reduced floats natively is not routed through
// float32 (Concat keeps float16 bits exactly, no Cast in between), and one
// that does not gets Casts: the output dtype is the input's either way.
TEST(ReducedFloat, NativeKernelsSkipTheFallback) {
  const KernelRegistry& k = Runtime::Global().kernels();
  EXPECT_TRUE(k.Find("Concat", DeviceType::kCPU)->Computes(DType::kBFloat16));
  EXPECT_TRUE(k.Find("Cast", DeviceType::kCPU)->Computes(DType::kFloat16));
  EXPECT_FALSE(k.Find("exp", DeviceType::kCPU)->Computes(DType::kBFloat16));
  EXPECT_TRUE(k.Find("exp", DeviceType::kCPU)->Computes(DType::kInt32));
  NDArray a = test::Array(Shape{2}, {1.5, -2}, DType::kBFloat16);
  NDArray b = test::Array(Shape{1}, {3.140625}, DType::kBFloat16);
  NDArray c = test::Run("Concat", {a, b}, {{"num_args", "2"}, {"dim", "0"}})[0];
  EXPECT_EQ(c.dtype(), DType::kBFloat16);
  EXPECT_EQ(test::Values(c), (std::vector<double>{1.5, -2, 3.140625}));
  NDArray e = test::Run("exp", {a})[0];
  EXPECT_EQ(e.dtype(), DType::kBFloat16);
  EXPECT_EQ(test::Values(e), (std::vector<double>{ToFloat(ToBFloat16(std::exp(1.5f))),
                                                  ToFloat(ToBFloat16(std::exp(-2.0f)))}));
}

// A call computed in float32 between Casts gives each output the dtype the
// op infers: BatchNorm on float16 data (float32 parameters, MXNet's rule)
// returns float16 data but float32 mean and variance, and its gradient
// float32 gamma and beta gradients, with the float32 run's values.
TEST(ReducedFloat, FallbackOutputsTakeTheInferredDTypes) {
  const NDArray x =
      CastTo(test::RandomArray(Shape{2, 3, 4, 4}, DType::kFloat32, -1, 1, 3), DType::kFloat16);
  const NDArray x32 = CastTo(x, DType::kFloat32);
  std::vector<NDArray> p;
  for (unsigned i = 0; i < 4; ++i)
    p.push_back(test::RandomArray(Shape{3}, DType::kFloat32, 0.5, 1.5, 10 + i));
  const StringMap bn = {{"output_mean_var", "True"}, {"fix_gamma", "False"}};
  const std::vector<NDArray> got = test::Run("BatchNorm", {x, p[0], p[1], p[2], p[3]}, bn);
  const std::vector<NDArray> ref = test::Run("BatchNorm", {x32, p[0], p[1], p[2], p[3]}, bn);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].dtype(), DType::kFloat16);
  test::ExpectClose(test::Values(got[0]), test::Values(CastTo(ref[0], DType::kFloat16)), 0,
                    "output", true);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(got[i].dtype(), DType::kFloat32) << i;
    EXPECT_EQ(test::Values(got[i]), test::Values(ref[i])) << i;
  }
  const NDArray dy =
      CastTo(test::RandomArray(x.shape(), DType::kFloat32, -1, 1, 4), DType::kFloat16);
  const std::vector<NDArray> grads =
      test::Run("_backward_BatchNorm", {dy, x, p[0], p[2], p[3]}, bn);
  ASSERT_EQ(grads.size(), 3u);
  EXPECT_EQ(grads[0].dtype(), DType::kFloat16);
  EXPECT_EQ(grads[1].dtype(), DType::kFloat32);
  EXPECT_EQ(grads[2].dtype(), DType::kFloat32);
}

// The GPU kernels that compute float16 and bfloat16 themselves in a CUDA
// build (the rest reach the GPU in float32 between Casts, listed by
// weft_executor_float32_nodes).
TEST(ReducedFloat, GpuKernelsComputingReducedFloats) {
#if WEFT_USE_CUDA
  const KernelRegistry& k = Runtime::Global().kernels();
  for (const char* op : {"Convolution",
                         "_backward_Convolution",
                         "_fused_Convolution",
                         "Deconvolution",
                         "_backward_Deconvolution",
                         "FullyConnected",
                         "_backward_FullyConnected",
                         "Pooling",
                         "_backward_Pooling",
                         "Activation",
                         "_backward_Activation",
                         "BatchNorm",
                         "_backward_BatchNorm",
                         "dot",
                         "batch_dot",
                         "_backward_batch_dot",
                         "relu",
                         "elemwise_add",
                         "_plus_scalar",
                         "broadcast_mul",
                         "Cast",
                         "amp_cast",
                         "amp_multicast"}) {
    const Kernel* g = k.Find(op, DeviceType::kGPU);
    ASSERT_NE(g, nullptr) << op;
    EXPECT_TRUE(g->Computes(DType::kFloat16) && g->Computes(DType::kBFloat16)) << op;
  }
  for (const char* op : {"softmax", "_backward_div", "LayerNorm", "_bn_fold", "sum"}) {
    const Kernel* g = k.Find(op, DeviceType::kGPU);
    ASSERT_NE(g, nullptr) << op;
    EXPECT_FALSE(g->Computes(DType::kFloat16) || g->Computes(DType::kBFloat16)) << op;
  }
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// A source op asked for a reduced float it cannot make computes in float32
// and casts: _random_uniform(dtype=float16) draws like float32 and rounds.
TEST(ReducedFloat, SourceOpsWithAReducedDTypeParameter) {
  NDArray r = test::Run("_random_uniform", {}, {{"shape", "(64,)"}, {"dtype", "float16"}})[0];
  EXPECT_EQ(r.dtype(), DType::kFloat16);
  for (double v : test::Values(r)) EXPECT_TRUE(v >= 0 && v <= 1) << v;
  NDArray z =
      test::Run("_full", {}, {{"shape", "(3,)"}, {"value", "0.1"}, {"dtype", "bfloat16"}})[0];
  EXPECT_EQ(z.dtype(), DType::kBFloat16);
  EXPECT_EQ(test::Values(z)[0], ToFloat(ToBFloat16(0.1f)));
}

}  // namespace
}  // namespace weft
