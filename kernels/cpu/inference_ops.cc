// CPU kernels of the inference passes' ops (core/src/op/inference_ops.cc):
// _bn_fold (float32/float64), _layout_block, and the reference
// _fused_Convolution (the Convolution kernel, then the sum and the activation in one
// sweep; blocked data and outputs through plain temporaries) and
// _fused_FullyConnected (the FullyConnected kernel, then the activation).
#include <cmath>
#include <vector>

#include "cpu/channel_block.h"
#include "cpu/cpu_util.h"
#include "cpu/fused_conv_act.h"
#include "cpu/fused_dense_act.h"
#include "shared_params.h"
#include "weft/channel_block.h"
#include "weft/dtype.h"
#include "weft/status.h"

namespace weft {
namespace cpu {

namespace {

// _layout_block's parameter, decoded once per node (ParamValues::Decoded;
// _bn_fold's are shared_params.h's BnFoldParams).
struct LayoutBlockParams {
  int64_t block = 1;
  static LayoutBlockParams Decode(const ParamValues& p) { return {p.GetInt("block")}; }
};

void BnFold(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const BnFoldParams& q = attrs.params.Decoded<BnFoldParams>();
  const bool has_bias = q.has_bias, fix_gamma = q.fix_gamma;
  const double eps = q.eps;
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

// Plain (N, C, S) <-> blocked (N, ceil(C / b), S, b) copies of `blob`'s data
// (float32 / float64) into `dst`; `plain` is the logical shape.
template <bool kToBlocked>
void ReorderBlob(const TBlob& src, void* dst, const Shape& plain, int64_t b) {
  DispatchFloat(src.dtype, "_layout_block", [&](auto t) {
    using T = decltype(t);
    ReorderChannelBlocks<kToBlocked>(src.data<T>(), static_cast<T*>(dst), plain[0], plain[1],
                                     plain.ProdRange(2, plain.ndim()), b);
  });
}

void LayoutBlock(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  WEFT_CHECK(req[0] != OpReq::kAdd) << "_layout_block does not accumulate";
  ReorderBlob<true>(in[0], out[0].dptr, in[0].shape,
                    attrs.params.Decoded<LayoutBlockParams>().block);
}

// out = act(conv(in) + sum) with `conv` the Convolution kernel; the
// convolution goes to a temporary when the output shares the sum's memory.
void FusedConv(const KernelFn& conv, const OpContext& ctx, const NodeAttrs& attrs,
               const std::vector<TBlob>& in, const std::vector<OpReq>& req,
               const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const FusedConvAct& act = FusedConvActOf(attrs.params);
  const bool with_sum = act.with_sum;
  const size_t n_conv = act.bias ? 3 : 2;
  const std::vector<TBlob> conv_in(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n_conv));
  const TBlob* sum = with_sum ? &in[n_conv] : nullptr;
  const bool direct = req[0] != OpReq::kAdd && !(sum && sum->dptr == out[0].dptr);
  std::vector<char> tmp(direct ? 0 : out[0].Bytes());
  TBlob dst = out[0];
  if (!direct) dst.dptr = tmp.data();
  conv(ctx, attrs, conv_in, {OpReq::kWrite}, {dst});
  if (!sum && act.kind == FusedConvAct::kNone && direct) return;
  DispatchFloat(out[0].dtype, "_fused_Convolution", [&](auto t) {
    using T = decltype(t);
    const T* c = dst.data<T>();
    const T* s = sum ? sum->data<T>() : nullptr;
    T* y = out[0].data<T>();
    ParallelFor(out[0].Size(),
                [&](int64_t i) { Store(req[0], &y[i], act.Apply(c[i] + (s ? s[i] : T(0)))); });
  });
}

// out = act(dense(in)) with `dense` the FullyConnected kernel; the product
// goes to a temporary when the output accumulates.
void FusedDense(const KernelFn& dense, const OpContext& ctx, const NodeAttrs& attrs,
                const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const FusedDenseAct& act = attrs.params.Decoded<FusedDenseAct>();
  const bool direct = req[0] != OpReq::kAdd;
  std::vector<char> tmp(direct ? 0 : out[0].Bytes());
  TBlob dst = out[0];
  if (!direct) dst.dptr = tmp.data();
  dense(ctx, attrs, in, {OpReq::kWrite}, {dst});
  if (act.kind == FusedDenseAct::kNone && direct) return;
  DispatchFloat(out[0].dtype, "_fused_FullyConnected", [&](auto t) {
    using T = decltype(t);
    const T* c = dst.data<T>();
    T* y = out[0].data<T>();
    ParallelFor(out[0].Size(), [&](int64_t i) { Store(req[0], &y[i], act.Apply(c[i])); });
  });
}

// Runs `plain` (a kernel on plain layouts) for a node whose slots may be
// channel-blocked (BlockedSlots): blocked inputs are unblocked into
// temporaries, blocked outputs computed into temporaries and blocked into
// place (added for kAdd).
void WithPlainLayouts(const KernelFn& plain, const OpContext& ctx, const NodeAttrs& attrs,
                      const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                      const std::vector<TBlob>& out) {
  const SlotBlocks blocks = BlockedSlots(attrs, in.size());
  if (!blocks.any()) return plain(ctx, attrs, in, req, out);
  std::vector<std::vector<char>> temps;
  auto plain_blob = [&](const TBlob& b, const Shape& logical) {
    TBlob p = b;
    p.shape = logical;
    temps.emplace_back(b.Bytes());
    p.dptr = temps.back().data();
    return p;
  };
  std::vector<TBlob> pin = in, pout = out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (blocks.in[i] == 0) continue;
    pin[i] = plain_blob(in[i], blocks.Input(i, in[i].shape, "blocked input"));
    ReorderBlob<false>(in[i], pin[i].dptr, pin[i].shape, blocks.in[i]);
  }
  std::vector<OpReq> preq = req;
  for (size_t i = 0; i < out.size(); ++i) {
    if (blocks.out[i] == 0) continue;
    pout[i] = plain_blob(out[i], blocks.Output(i, out[i].shape, "blocked output"));
    if (req[i] != OpReq::kNull) preq[i] = OpReq::kWrite;
  }
  plain(ctx, attrs, pin, preq, pout);
  for (size_t i = 0; i < out.size(); ++i) {
    if (blocks.out[i] == 0 || req[i] == OpReq::kNull) continue;
    if (req[i] != OpReq::kAdd) {
      ReorderBlob<true>(pout[i], out[i].dptr, pout[i].shape, blocks.out[i]);
      continue;
    }
    std::vector<char> blocked(out[i].Bytes());
    ReorderBlob<true>(pout[i], blocked.data(), pout[i].shape, blocks.out[i]);
    DispatchFloat(out[i].dtype, "blocked output", [&](auto t) {
      using T = decltype(t);
      const T* b = reinterpret_cast<const T*>(blocked.data());
      T* y = out[i].data<T>();
      ParallelFor(out[i].Size(), [&](int64_t k) { y[k] += b[k]; });
    });
  }
}

}  // namespace

void RegisterInferenceOpsCpu(KernelRegistry* reg) {
  reg->Add("_bn_fold", DeviceType::kCPU, {"cpu", 0, BnFold, true});
  reg->Add("_layout_block", DeviceType::kCPU, {"cpu", 0, LayoutBlock, false});
  const Kernel* conv = reg->FindBackend("Convolution", DeviceType::kCPU, "cpu");
  const Kernel* pool = reg->FindBackend("Pooling", DeviceType::kCPU, "cpu");
  WEFT_CHECK(conv != nullptr && pool != nullptr)
      << "register the cpu Convolution and Pooling kernels before _fused_Convolution and "
         "_blocked_Pooling";
  KernelFn conv_fn = conv->fn, pool_fn = pool->fn;
  KernelFn fused = [conv_fn](const OpContext& ctx, const NodeAttrs& attrs,
                             const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                             const std::vector<TBlob>& out) {
    FusedConv(conv_fn, ctx, attrs, in, req, out);
  };
  auto plain_layouts = [](KernelFn plain) {
    return [plain](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
      WithPlainLayouts(plain, ctx, attrs, in, req, out);
    };
  };
  reg->Add("_fused_Convolution", DeviceType::kCPU, {"cpu", 0, plain_layouts(fused), true});
  const Kernel* dense = reg->FindBackend("FullyConnected", DeviceType::kCPU, "cpu");
  WEFT_CHECK(dense != nullptr)
      << "register the cpu FullyConnected kernel before _fused_FullyConnected";
  KernelFn dense_fn = dense->fn;
  reg->Add("_fused_FullyConnected", DeviceType::kCPU,
           {"cpu", 0,
            [dense_fn](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
              FusedDense(dense_fn, ctx, attrs, in, req, out);
            },
            true});
  reg->Add("_blocked_Pooling", DeviceType::kCPU,
           {"cpu", 0, plain_layouts(pool_fn), pool->supports_add});
}

}  // namespace cpu
}  // namespace weft
