// CPU reference kernel of the quantized _sg_mkldnn_fully_connected (MXNet
// 1.9.1's SgMKLDNNFCOp, tensor-wise): int8/uint8 data times the int8
// weight (both with their ranges) summed in int32 with the int8 bias
// brought into the sums' levels (bias * data_scale * weight_scale /
// bias_scale, rounded half away from zero; when that factor would pass
// INT32_MAX / 2 / MaxAbs(bias range) / bias_scale it is capped there and the
// weights are rescaled to match, as MXNet does). The real result is
// sums / (data_scale * weight_scale); then the fused elementwise op, and
// with enable_float_output that is the float32 output; calibrated, it is
// scaled into the output's levels (uint8 after a non-negative op, else
// int8; round half to even, saturated); uncalibrated, the int32 sums with
// MXNet's product range.
#include "cpu/sg_fc_int8.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cpu/cpu_util.h"
#include "cpu/quantized_nn.h"
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
  const float real = 1.f / (c.data_scale * c.weight_scale);
  const Act act = Act::Of(c.act);
  ParallelFor(n, [&](int64_t i) {
    y[i] = quant::SaturateRound<T>(act(static_cast<float>(acc[i]) * real) * c.out_scale);
  });
}

void SgFcInt8Cpu(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const SgFcCall c = PrepareSgFc(attrs, in, out);
  std::vector<int32_t> buf;
  int32_t* acc = out[0].dtype == DType::kInt32 ? out[0].data<int32_t>() : nullptr;
  if (!acc) {
    buf.resize(static_cast<size_t>(c.rows * c.hidden));
    acc = buf.data();
  }
  QuantizedFCSums(in[0], c.w, c.bias.empty() ? nullptr : c.bias.data(), c.rows, c.k, c.hidden, acc);
  FinishSgFc(attrs, c, acc, out);
}

}  // namespace

SgFcCall PrepareSgFc(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<TBlob>& out) {
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  if (p.channel_wise)
    Fail(StatusCode::kNotImplemented, "node '", attrs.name,
         "' (_sg_mkldnn_fully_connected): channel-wise int8 is not supported (tensor-wise is)");
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
  const bool bias = n == 3;
  c.hidden = in[1].shape[0];
  c.rows = c.hidden > 0 ? out[0].Size() / c.hidden : 0;
  c.k = c.rows > 0 ? in[0].Size() / c.rows : 0;
  c.data_scale = quant::QuantizeScale(in[0].dtype, Scalar(in[n]), Scalar(in[n + 1]));
  c.weight_scale = quant::QuantizeScale(DType::kInt8, Scalar(in[n + 2]), Scalar(in[n + 3]));
  c.w = in[1].data<int8_t>();
  if (bias) {
    const float bmin = Scalar(in[n + 4]), bmax = Scalar(in[n + 5]);
    const float bias_scale = quant::QuantizeScale(DType::kInt8, bmin, bmax);
    float rescale = c.data_scale * c.weight_scale / bias_scale;
    const float cap = static_cast<float>(std::numeric_limits<int32_t>::max()) / 2 /
                      quant::MaxAbs(bmin, bmax) / bias_scale;
    if (rescale > cap) {
      const float w_rescale = cap * bias_scale / c.data_scale / c.weight_scale;
      c.rescaled.resize(static_cast<size_t>(in[1].Size()));
      for (size_t i = 0; i < c.rescaled.size(); ++i)
        c.rescaled[i] = static_cast<int8_t>(std::round(c.w[i] * w_rescale));
      c.w = c.rescaled.data();
      c.weight_scale *= w_rescale;
      rescale = cap;
    }
    const int8_t* b = in[2].data<int8_t>();
    c.bias.resize(static_cast<size_t>(c.hidden));
    for (int64_t i = 0; i < c.hidden; ++i)
      c.bias[i] = static_cast<int32_t>(std::round(b[i] * rescale));
  }
  if (c.calibrated && !c.float_out) {
    c.lo = p.min_calib;
    c.hi = p.max_calib;
    c.out_scale = quant::QuantizeScale(out[0].dtype, c.lo, c.hi);
  } else if (!c.float_out) {
    c.hi = quant::ProductRangeMax(Scalar(in[n]), Scalar(in[n + 1]), Scalar(in[n + 2]),
                                  Scalar(in[n + 3]), in[0].dtype == DType::kInt8);
    c.lo = -c.hi;
  }
  return c;
}

void FinishSgFc(const NodeAttrs&, const SgFcCall& c, const int32_t* acc,
                const std::vector<TBlob>& out) {
  const int64_t n = c.rows * c.hidden;
  if (c.float_out) {
    float* y = out[0].data<float>();
    const float real = 1.f / (c.data_scale * c.weight_scale);
    const Act act = Act::Of(c.act);
    ParallelFor(n, [&](int64_t i) { y[i] = act(static_cast<float>(acc[i]) * real); });
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
