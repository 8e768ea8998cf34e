// The optional oneDNN backend ("dnnl", kernels/dnnl/). Its numbers are
// compared with the reference kernels by the backend table
// (backend_cases_cpu.cc, backend_cases_int8.cc); here: every Convolution
// and channel-wise int8 fully connected case of that table runs oneDNN
// itself rather than its fallback (or the table would compare cpu with
// cpu), the int8 attention ops' sums are oneDNN's (on VNNI CPUs) and equal
// the reference ones, and the preferred kernel through Invoke gives a
// closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "util/backend_harness.h"
#include "weft/runtime.h"
#include "weft/executor.h"
#if WEFT_USE_DNNL
#include "dnnl/nn_conv_dnnl.h"
#include "dnnl/nn_rnn_infer_dnnl.h"
#include "cpu/selfatt_int8.h"
#include "register_kernels.h"

#include <dnnl.h>

namespace weft {
namespace onednn {
// kernels/dnnl/quantized_dnnl.cc and selfatt_int8_dnnl.cc (declared so in
// kernels/register_kernels.cc).
void RegisterQuantizedDnnl(KernelRegistry* reg);
cpu::SelfAttSums SelfAttInt8Sums();
}  // namespace onednn
}  // namespace weft
#endif

namespace weft {
namespace {

TEST(DnnlKernels, TableConvolutionsRunOneDnn) {
#if WEFT_USE_DNNL
  const OpDef& op = Runtime::Global().ops().Get("Convolution");
  int checked = 0;
  for (const test::BackendCase& c : test::BackendCases()) {
    if (c.op != "Convolution") continue;
    const ParamValues p = ParseParams(op.name, &op.params, c.params);
    const std::vector<NDArray> x = test::Randoms(c.in, DType::kFloat32, 1);
    const Shape out = test::RunCpu(c.op, x, c.params)[0].shape();
    const bool bias = c.in.size() > 2;
    EXPECT_TRUE(onednn::ConvolutionCovered(p, x[0].shape(), out, DType::kFloat32, bias))
        << x[0].shape();
    // float64 takes the fallback.
    EXPECT_FALSE(onednn::ConvolutionCovered(p, x[0].shape(), out, DType::kFloat64, bias))
        << x[0].shape();
    ++checked;
  }
  EXPECT_GE(checked, 10);
#else
  GTEST_SKIP() << "built without oneDNN";
#endif
}

// Every channel-wise _sg_mkldnn_fully_connected case of the table runs
// oneDNN's inner product rather than its fallback (or the table would
// compare cpu with cpu): the cases again on a runtime that also has the
// "dnnl" kernel built over a fallback that fails.
TEST(DnnlKernels, TableChannelWiseFullyConnectedRunsOneDnn) {
#if WEFT_USE_DNNL
  const std::string op = "_sg_mkldnn_fully_connected";
  KernelRegistry failing;
  for (const char* name : {"_contrib_quantized_conv", "_contrib_quantized_fully_connected",
                           "_sg_mkldnn_conv", "_sg_mkldnn_fully_connected"}) {
    const std::string n = name;
    failing.Add(n, DeviceType::kCPU,
                {"cpu", 0,
                 [n](const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>&,
                     const std::vector<OpReq>&, const std::vector<TBlob>&) {
                   Fail(StatusCode::kInternal, n, " '", attrs.name, "' fell back");
                 }});
  }
  onednn::RegisterQuantizedDnnl(&failing);
  Kernel only = *failing.FindBackend(op, DeviceType::kCPU, "dnnl");
  only.backend = "dnnl_only";
  only.priority = 30;
  Runtime rt;
  InstallBuiltinKernels(&rt);
  rt.mutable_kernels()->Add(op, DeviceType::kCPU, only);
  int checked = 0;
  for (test::BackendCase c : test::BackendCases()) {
    if (c.op != op || c.params.count("channel_wise_quantize") == 0) continue;
    c.opts.rt = &rt;
    EXPECT_EQ(test::RunCase(c), 2);
    ++checked;
  }
  EXPECT_GE(checked, 8);
#else
  GTEST_SKIP() << "built without oneDNN";
#endif
}

// The int8 attention ops' "dnnl" sums are oneDNN's integer gemms on a VNNI
// CPU (the reference loops elsewhere), and equal the reference loops' on a
// BERT-sized head block set (12 heads of 64, 128 positions) with levels
// at their extremes.
TEST(DnnlKernels, Int8AttentionSumsOnOneDnnEqualTheReference) {
#if WEFT_USE_DNNL
  const cpu::SelfAttSums fast = onednn::SelfAttInt8Sums(), ref = cpu::ReferenceSelfAttSums();
  const unsigned vnni = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni);
  const bool has_vnni = (static_cast<unsigned>(dnnl_get_effective_cpu_isa()) & vnni) == vnni;
  EXPECT_EQ(fast.qk != ref.qk, has_vnni);
  EXPECT_EQ(fast.val != ref.val, has_vnni);
  const int64_t l = 128, heads = 12, d = 64;
  const attention::Dims n{heads, l, l, d};
  std::vector<int8_t> qkv(static_cast<size_t>(l * heads * 3 * d));
  std::vector<uint8_t> att(static_cast<size_t>(heads * l * l));
  for (size_t i = 0; i < qkv.size(); ++i)
    qkv[i] = static_cast<int8_t>(i % 5 == 0 ? -128 : i % 7 == 0 ? 127 : (i * 37) % 256 - 128);
  for (size_t i = 0; i < att.size(); ++i) att[i] = static_cast<uint8_t>(i % 3 ? 255 : i * 11);
  const Shape s{l, 1, heads * 3 * d};
  std::vector<int32_t> a(static_cast<size_t>(heads * l * l)), b(a.size());
  fast.qk(n, attention::SelfSide<const int8_t>(qkv.data(), s, n, 0),
          attention::SelfSide<const int8_t>(qkv.data(), s, n, 1), a.data());
  ref.qk(n, attention::SelfSide<const int8_t>(qkv.data(), s, n, 0),
         attention::SelfSide<const int8_t>(qkv.data(), s, n, 1), b.data());
  EXPECT_EQ(a, b);
  std::vector<int32_t> c(static_cast<size_t>(l * heads * d)), e(c.size());
  fast.val(n, att.data(), attention::SelfSide<const int8_t>(qkv.data(), s, n, 2), c.data());
  ref.val(n, att.data(), attention::SelfSide<const int8_t>(qkv.data(), s, n, 2), e.data());
  EXPECT_EQ(c, e);
  EXPECT_NE(*std::max_element(e.begin(), e.end()), 0);
#else
  GTEST_SKIP() << "built without oneDNN";
#endif
}

// Through Invoke (the path users hit) the preferred kernel gives the
// closed-form result of a tiny convolution: all-ones 3x3 input and kernel,
// pad 1, so each output counts the in-bounds taps (4 corners, 6 edges, 9 centre).
TEST(DnnlKernels, InvokeConvolutionClosedForm) {
  NDArray x = test::Array({1, 1, 3, 3}, std::vector<double>(9, 1.0));
  NDArray w = test::Array({1, 1, 3, 3}, std::vector<double>(9, 1.0));
  auto y =
      test::Run("Convolution", {x, w},
                {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "1"}, {"no_bias", "True"}});
  EXPECT_EQ(test::Values(y[0]), (std::vector<double>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
}

// Two executors bound on one LSTM parameter array pack its weights once
// between them, again once after the array is written, and give the
// output of the same weights.
TEST(DnnlKernels, BoundRnnCallsShareOnePackedCopy) {
#if WEFT_USE_DNNL
  const int64_t T = 3, N = 2, I = 4, H = 5;
  std::vector<Symbol> in;
  for (const char* n : {"data", "lstm_parameters", "state", "state_cell"})
    in.push_back(Symbol::CreateVariable(n));
  const Symbol rnn = Symbol::Apply(
      Runtime::Global().ops(), "RNN", in,
      {{"mode", "lstm"}, {"state_size", std::to_string(H)}, {"num_layers", "1"}}, "lstm");
  const std::map<std::string, NDArray> args = {
      {"data", test::RandomArray(Shape{T, N, I}, DType::kFloat32, -1, 1, 3)},
      {"lstm_parameters",
       test::RandomArray(Shape{4 * H * (I + H) + 8 * H}, DType::kFloat32, -0.5, 0.5, 4)},
      {"state", test::RandomArray(Shape{1, N, H}, DType::kFloat32, -1, 1, 5)},
      {"state_cell", test::RandomArray(Shape{1, N, H}, DType::kFloat32, -1, 1, 6)}};
  auto a = Executor::BindByName(&Runtime::Global(), rnn, Context::CPU(0), args, {}, {}, {});
  auto b = Executor::BindByName(&Runtime::Global(), rnn, Context::CPU(0), args, {}, {}, {});
  auto run = [&] {
    const uint64_t before = onednn::RnnInferencePacks();
    a->Forward(false);
    b->Forward(false);
    const std::vector<double> ya = test::Values(a->outputs()[0]);
    EXPECT_EQ(ya, test::Values(b->outputs()[0]));
    EXPECT_EQ(onednn::RnnInferencePacks() - before, 1u);
    return ya;
  };
  const std::vector<double> first = run();
  NDArray w = args.at("lstm_parameters");
  test::RandomArray(w.shape(), w.dtype(), -0.5, 0.5, 7).CopyTo(&w);
  EXPECT_NE(run(), first);
#else
  GTEST_SKIP() << "built without oneDNN";
#endif
}

}  // namespace
}  // namespace weft
