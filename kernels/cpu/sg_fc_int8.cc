// CPU reference kernel of the quantized _sg_mkldnn_fully_connected (MXNet
// 1.9.1's SgMKLDNNFCOp): int8/uint8 data times int8 weights summed in
// int32, started from the bias in the sums' levels, then per output channel
// c: out = act(acc * scale[c]) * post_scale. The weights:
// - tensor-wise: the int8 weight and bias come with their ranges; the bias
//   is brought into the sums' levels (bias * data_scale * weight_scale /
//   bias_scale, rounded half away from zero; when that factor would pass
//   INT32_MAX / 2 / MaxAbs(bias range) / bias_scale it is capped there and
//   the weights are rescaled to match, as MXNet does);
// - channel-wise (channel_wise_quantize=true): the float32 weight and bias
//   are quantized here, one scale per output channel (QuantizeWeights: the
//   channel's 127.5 / MaxAbs, lowered to keep the bias levels inside half
//   the int32 range; bias levels = rne(bias * scale[c] * data_scale)).
// The scales are the output scales MXNet hands oneDNN: scale[c] = t /
// weight_scale[c] with t = 1 / data_scale for a float32 output
// (enable_float_output: the real result) or before a fused elementwise op
// (post_scale = the output's levels per unit), else out_levels /
// data_scale. Calibrated, the result is rounded half to even and saturated
// into uint8 after a non-negative op, else int8; uncalibrated (tensor-wise
// only), the output is the int32 sums with MXNet's product range.
#include "cpu/sg_fc_int8.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/cpu_util.h"
#include "cpu/quantized_params.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

namespace {

// The fused elementwise op, decoded once per call.
struct Act {
  enum Kind {
    kNone,
    kRelu,
    kSigmoid,
    kTanh,
    kSoftRelu,
    kSoftSign,
    kLeaky,
    kSquare,
    kSqrt,
    kExp,
    kAbs,
    kClip
  } kind = kNone;
  float lo = 0, hi = 0, slope = 0;

  static Act Of(const Node* act) {
    Act a;
    if (!act) return a;
    const std::string& op = act->op()->name;
    const QuantParams& p = act->attrs.params.Decoded<QuantParams>();
    const std::string& t = p.act_type;
    a.lo = p.a_min;
    a.hi = p.a_max;
    a.slope = p.slope;
    if (op == "square")
      a.kind = kSquare;
    else if (op == "sqrt")
      a.kind = kSqrt;
    else if (op == "exp")
      a.kind = kExp;
    else if (op == "abs")
      a.kind = kAbs;
    else if (op == "clip")
      a.kind = kClip;
    else if (op == "Activation" && t == "relu")
      a.kind = kRelu;
    else if (op == "Activation" && t == "sigmoid")
      a.kind = kSigmoid;
    else if (op == "Activation" && t == "tanh")
      a.kind = kTanh;
    else if (op == "Activation" && t == "softrelu")
      a.kind = kSoftRelu;
    else if (op == "Activation" && t == "softsign")
      a.kind = kSoftSign;
    else if (op == "LeakyReLU" && t == "leaky")
      a.kind = kLeaky;
    else
      Fail(StatusCode::kNotImplemented, "int8 fully connected: fused '", act->attrs.name, "' (", op,
           " ", t, ") is not supported");
    return a;
  }

  float operator()(float x) const {
    switch (kind) {
      case kRelu:
        return std::max(x, 0.f);
      case kSigmoid:
        return 1.f / (1.f + std::exp(-x));
      case kTanh:
        return std::tanh(x);
      case kSoftRelu:
        return std::log1p(std::exp(x));
      case kSoftSign:
        return x / (1.f + std::fabs(x));
      case kLeaky:
        return x > 0 ? x : slope * x;
      case kSquare:
        return x * x;
      case kSqrt:
        return std::sqrt(x);
      case kExp:
        return std::exp(x);
      case kAbs:
        return std::fabs(x);
      case kClip:
        return std::min(std::max(x, lo), hi);
      default:
        return x;
    }
  }
};

template <typename T>
void Levels(const SgFcCall& c, const int32_t* acc, T* y, int64_t n) {
  const Act act = Act::Of(c.act);
  ParallelFor(n, [&](int64_t i) {
    y[i] = quant::SaturateRound<T>(act(static_cast<float>(acc[i]) * c.ScaleOf(i)) * c.post_scale);
  });
}

// The channel-wise weights of one call, kept in its state while the
// weight's and bias' versions and the data scale are unchanged.
struct FcDerived {
  std::vector<uint64_t> versions;
  float data_scale = 0;
  Int8Weights q;
  std::shared_ptr<void> backend;  // SgFcCall::backend
};

std::shared_ptr<FcDerived> ChannelWiseWeights(const OpContext& ctx, const std::vector<TBlob>& in,
                                              size_t n, float data_scale) {
  std::vector<uint64_t> versions;
  const bool keep = ctx.state && ctx.input_versions;
  if (keep) versions.assign(ctx.input_versions + 1, ctx.input_versions + n);
  if (keep && *ctx.state) {
    auto d = std::static_pointer_cast<FcDerived>(*ctx.state);
    if (d->versions == versions && d->data_scale == data_scale) return d;
  }
  auto d = std::make_shared<FcDerived>();
  d->versions = std::move(versions);
  d->data_scale = data_scale;
  const int64_t f = in[1].shape[0], per = f > 0 ? in[1].Size() / f : 0;
  d->q = QuantizeWeights(in[1].data<float>(), n == 3 ? in[2].data<float>() : nullptr, f, per,
                         data_scale, true);
  if (keep) *ctx.state = d;
  return d;
}

// MXNet's tensor-wise preparation: one weight scale from the weight's
// range, the int8 bias in the sums' levels, the weights rescaled (into `w`)
// when the bias factor is capped.
std::shared_ptr<const Int8Weights> TensorWiseWeights(const std::vector<TBlob>& in, size_t n,
                                                     float data_scale) {
  auto q = std::make_shared<Int8Weights>();
  q->wmin = Scalar(in[n + 2]);
  q->wmax = Scalar(in[n + 3]);
  float weight_scale = quant::QuantizeScale(DType::kInt8, q->wmin, q->wmax);
  if (n == 3) {
    const float bmin = Scalar(in[n + 4]), bmax = Scalar(in[n + 5]);
    const float bias_scale = quant::QuantizeScale(DType::kInt8, bmin, bmax);
    float rescale = data_scale * weight_scale / bias_scale;
    const float cap = static_cast<float>(std::numeric_limits<int32_t>::max()) / 2 /
                      quant::MaxAbs(bmin, bmax) / bias_scale;
    if (rescale > cap) {
      const float w_rescale = cap * bias_scale / data_scale / weight_scale;
      const int8_t* w = in[1].data<int8_t>();
      q->w.resize(static_cast<size_t>(in[1].Size()));
      for (size_t i = 0; i < q->w.size(); ++i)
        q->w[i] = static_cast<int8_t>(std::round(w[i] * w_rescale));
      weight_scale *= w_rescale;
      rescale = cap;
    }
    const int8_t* b = in[2].data<int8_t>();
    q->b.resize(static_cast<size_t>(in[1].shape[0]));
    for (size_t i = 0; i < q->b.size(); ++i)
      q->b[i] = static_cast<int32_t>(std::round(b[i] * rescale));
  }
  q->scales = {weight_scale};
  return q;
}

void SgFcInt8Cpu(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const SgFcCall c = PrepareSgFc(ctx, attrs, in, out);
  std::vector<int32_t> buf;
  int32_t* acc = out[0].dtype == DType::kInt32 ? out[0].data<int32_t>() : nullptr;
  if (!acc) {
    buf.resize(static_cast<size_t>(c.rows * c.hidden));
    acc = buf.data();
  }
  QuantizedFCSums(in[0], c.w, c.bias, c.rows, c.k, c.hidden, acc);
  FinishSgFc(c, acc, out);
}

}  // namespace

SgFcCall PrepareSgFc(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<TBlob>& out) {
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  SgFcCall c;
  const IndexedGraph g(*attrs.subgraphs.at(0));
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (!n.is_variable() && n.op()->name != "FullyConnected") c.act = &n;
  }
  Act::Of(c.act);  // an unsupported op fails before any work
  c.calibrated = p.calibrated;
  c.float_out = p.enable_float_output;
  if (!c.calibrated && !c.float_out && c.act)
    Fail(StatusCode::kNotImplemented, "node '", attrs.name,
         "' (_sg_mkldnn_fully_connected): an uncalibrated int32 output cannot fuse '",
         c.act->attrs.name, "' (calibrate it, or set enable_float_output)");
  const size_t n = static_cast<size_t>(p.num_args);
  c.hidden = in[1].shape[0];
  c.rows = c.hidden > 0 ? out[0].Size() / c.hidden : 0;
  c.k = c.rows > 0 ? in[0].Size() / c.rows : 0;
  const float dmin = Scalar(in[n]), dmax = Scalar(in[n + 1]);
  c.data_scale = quant::QuantizeScale(in[0].dtype, dmin, dmax);
  if (p.channel_wise) {
    auto d = ChannelWiseWeights(ctx, in, n, c.data_scale);
    c.q = std::shared_ptr<const Int8Weights>(d, &d->q);
    c.backend = std::shared_ptr<std::shared_ptr<void>>(d, &d->backend);
  } else {
    c.q = TensorWiseWeights(in, n, c.data_scale);
  }
  c.w = p.channel_wise || !c.q->w.empty() ? c.q->w.data() : in[1].data<int8_t>();
  c.bias = c.q->b.empty() ? nullptr : c.q->b.data();
  float t = 1.f / c.data_scale;
  if (c.calibrated && !c.float_out) {
    c.lo = p.min_calib;
    c.hi = p.max_calib;
    const float out_scale = quant::QuantizeScale(out[0].dtype, c.lo, c.hi);
    if (c.act)
      c.post_scale = out_scale;
    else
      t = out_scale / c.data_scale;
  } else if (!c.float_out) {
    c.hi = quant::ProductRangeMax(dmin, dmax, c.q->wmin, c.q->wmax, in[0].dtype == DType::kInt8);
    c.lo = -c.hi;
  }
  for (float ws : c.q->scales) c.scale.push_back(t / ws);
  return c;
}

void FinishSgFc(const SgFcCall& c, const int32_t* acc, const std::vector<TBlob>& out) {
  const int64_t n = c.rows * c.hidden;
  if (c.float_out) {
    float* y = out[0].data<float>();
    const Act act = Act::Of(c.act);
    ParallelFor(n, [&](int64_t i) { y[i] = act(static_cast<float>(acc[i]) * c.ScaleOf(i)); });
    return;
  }
  if (out[0].dtype == DType::kUint8)
    Levels(c, acc, out[0].data<uint8_t>(), n);
  else if (out[0].dtype == DType::kInt8)
    Levels(c, acc, out[0].data<int8_t>(), n);
  else if (acc != out[0].data<int32_t>())
    std::copy(acc, acc + n, out[0].data<int32_t>());
  out[1].data<float>()[0] = c.lo;
  out[2].data<float>()[0] = c.hi;
}

void RegisterSgFcInt8Cpu(KernelRegistry* reg) {
  reg->Add("_sg_mkldnn_fully_connected", DeviceType::kCPU, {"cpu", 0, SgFcInt8Cpu});
}

}  // namespace cpu
}  // namespace weft
