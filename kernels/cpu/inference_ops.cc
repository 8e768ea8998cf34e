// CPU kernels of the inference passes' ops (core/src/op/inference_ops.cc):
// _bn_fold (float32/float64) and the reference _fused_Convolution (the
// Convolution kernel, then the sum and relu in one sweep).
#include <cmath>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"
#include "weft/status.h"

namespace weft {
namespace cpu {

namespace {

void BnFold(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const bool has_bias = !attrs.params.GetBool("no_bias");
  const bool fix_gamma = attrs.params.GetBool("fix_gamma");
  const double eps = attrs.params.GetFloat("eps");
  const size_t k = has_bias ? 2 : 1;  // gamma's input index
  DispatchFloat(in[0].dtype, "_bn_fold", [&](auto t) {
    using T = decltype(t);
    const int64_t channels = in[0].shape[0];
    const int64_t inner = channels > 0 ? in[0].Size() / channels : 0;
    const T* w = in[0].data<T>();
    const T* bias = has_bias ? in[1].data<T>() : nullptr;
    const T* gamma = in[k].data<T>();
    const T* beta = in[k + 1].data<T>();
    const T* mean = in[k + 2].data<T>();
    const T* var = in[k + 3].data<T>();
    T* wo = out[0].data<T>();
    T* bo = out[1].data<T>();
    ParallelFor(channels, [&](int64_t c) {
      // The scale in double, as BatchNorm's inference kernel computes it.
      const double sd = (fix_gamma ? 1.0 : static_cast<double>(gamma[c])) / std::sqrt(var[c] + eps);
      const T s = static_cast<T>(sd);
      for (int64_t j = 0; j < inner; ++j) Store(req[0], &wo[c * inner + j], w[c * inner + j] * s);
      const double b = bias ? static_cast<double>(bias[c]) : 0.0;
      Store(req[1], &bo[c], static_cast<T>((b - mean[c]) * sd + beta[c]));
    });
  });
}

// out = act(conv(in) + sum) with `conv` the Convolution kernel; the
// convolution goes to a temporary when the output shares the sum's memory.
void FusedConv(const KernelFn& conv, const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const bool with_sum = attrs.params.GetBool("with_sum");
  const bool relu = attrs.params.GetString("act_type") == "relu";
  const size_t n_conv = attrs.params.GetBool("no_bias") ? 2 : 3;
  const std::vector<TBlob> conv_in(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n_conv));
  const TBlob* sum = with_sum ? &in[n_conv] : nullptr;
  const bool direct = req[0] != OpReq::kAdd && !(sum && sum->dptr == out[0].dptr);
  std::vector<char> tmp(direct ? 0 : out[0].Bytes());
  TBlob dst = out[0];
  if (!direct) dst.dptr = tmp.data();
  conv(ctx, attrs, conv_in, {OpReq::kWrite}, {dst});
  if (!sum && !relu && direct) return;
  DispatchFloat(out[0].dtype, "_fused_Convolution", [&](auto t) {
    using T = decltype(t);
    const T* c = dst.data<T>();
    const T* s = sum ? sum->data<T>() : nullptr;
    T* y = out[0].data<T>();
    ParallelFor(out[0].Size(), [&](int64_t i) {
      T v = c[i] + (s ? s[i] : T(0));
      if (relu && v < T(0)) v = T(0);
      Store(req[0], &y[i], v);
    });
  });
}

}  // namespace

void RegisterInferenceOpsCpu(KernelRegistry* reg) {
  reg->Add("_bn_fold", DeviceType::kCPU, {"cpu", 0, BnFold, true});
  const Kernel* conv = reg->FindBackend("Convolution", DeviceType::kCPU, "cpu");
  WEFT_CHECK(conv != nullptr) << "register the cpu Convolution kernel before _fused_Convolution";
  KernelFn conv_fn = conv->fn;
  reg->Add("_fused_Convolution", DeviceType::kCPU,
           {"cpu", 0,
            [conv_fn](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
              FusedConv(conv_fn, ctx, attrs, in, req, out);
            },
            true});
}

}  // namespace cpu
}  // namespace weft
