// CPU reference kernel of MXNet's quantized _sg_mkldnn_conv (quantized=true;
// the float32 form is inlined by pass::ExpandSubgraphs and never reaches a
// kernel). MXNet 1.9.1's SgMKLDNNConvOperator, step by step:
// - BatchNorm folded into the float32 weight and bias (alpha = gamma /
//   sqrt(var + eps), gamma = 1 with fix_gamma; bias' = beta + alpha * (bias -
//   mean));
// - data_scale = range(data) / MaxAbs(data_min, data_max);
// - weight scales: calibrated (min/max_calib_range given), one per output
//   channel, 127.5 / MaxAbs(channel's min, max), lowered where the bias would
//   pass INT32_MAX / 2; uncalibrated, one over the whole weight;
// - int8 weight = sat(rne(w * scale)), int32 bias = sat(rne(bias * scale *
//   data_scale)); int32 accumulation;
// - calibrated: out = acc * output_scale / (data_scale * scale[c]) with
//   output_scale = range(out) / MaxAbs(calib), uint8 when the last
//   activation is relu, else int8; relu, then the sum input times
//   output_scale / sum_scale, then relu as the flags say; rounded to nearest
//   even and saturated. Uncalibrated: the int32 sums with MXNet's product
//   range. The sum input counts by its own dtype's levels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cpu/channels_last_bytes.h"
#include "cpu/cpu_util.h"
#include "cpu/quantized_params.h"
#include "cpu/quantized_nn.h"
#include "cpu/sg_conv_int8.h"
#include "weft/graph.h"
#include "weft/quantization.h"

namespace weft {
namespace cpu {

namespace {

using quant::SaturateRound;

void FoldBatchNorm(const SgConv& s, const std::vector<TBlob>& in, int64_t f, int64_t per,
                   std::vector<float>* w, std::vector<float>* b) {
  const size_t k = s.bias ? 3 : 2;
  const float* gamma = in[k].data<float>();
  const float* beta = in[k + 1].data<float>();
  const float* mean = in[k + 2].data<float>();
  const float* var = in[k + 3].data<float>();
  const QuantParams& bn = s.bn->attrs.params.Decoded<QuantParams>();
  const bool fix = bn.fix_gamma;
  const double eps = bn.eps;
  for (int64_t c = 0; c < f; ++c) {
    const float alpha = static_cast<float>((fix ? 1.0f : gamma[c]) / std::sqrt(var[c] + eps));
    (*b)[c] = s.bias ? beta[c] + alpha * ((*b)[c] - mean[c]) : beta[c] - alpha * mean[c];
    for (int64_t j = 0; j < per; ++j) (*w)[c * per + j] *= alpha;
  }
}

SgDerived Derive(const SgConv& s, const std::vector<TBlob>& in, float data_scale) {
  const TBlob& wt = in[1];
  const int64_t f = wt.shape[0], per = f > 0 ? wt.Size() / f : 0;
  std::vector<float> w(wt.data<float>(), wt.data<float>() + wt.Size()), b(f, 0.f);
  if (s.bias) std::copy(in[2].data<float>(), in[2].data<float>() + f, b.begin());
  if (s.bn) FoldBatchNorm(s, in, f, per, &w, &b);
  const bool has_bias = s.bias || s.bn;
  SgDerived d;
  static_cast<Int8Weights&>(d) =
      QuantizeWeights(w.data(), has_bias ? b.data() : nullptr, f, per, data_scale, s.calibrated);
  return d;
}

// The BatchNorm moving statistics of the call (empty without BatchNorm):
// mutable inputs, whose versions advance on every run of the node whether or
// not they change, so the cache compares their values.
std::vector<float> MovingStats(const SgConv& s, const std::vector<TBlob>& in) {
  std::vector<float> v;
  if (!s.bn) return v;
  const size_t k = s.bias ? 3 : 2;
  for (size_t i = k + 2; i < k + 4; ++i)
    v.insert(v.end(), in[i].data<float>(), in[i].data<float>() + in[i].Size());
  return v;
}

// The derived weights for this call: cached in the call's state while the
// parameters (versions, or values of the moving statistics) and the data
// range are unchanged.
const SgDerived& GetSgDerived(const OpContext& ctx, const SgConv& s, const std::vector<TBlob>& in,
                              float data_scale, std::shared_ptr<SgDerived>* local) {
  std::vector<uint64_t> versions;
  const size_t params_end = s.n_args - (s.sum ? 1 : 0);
  const size_t stats_begin = s.bn ? (s.bias ? 3 : 2) + 2 : params_end;
  if (ctx.input_versions)
    for (size_t i = 1; i < params_end; ++i)
      if (i < stats_begin || i >= stats_begin + 2) versions.push_back(ctx.input_versions[i]);
  std::vector<float> stats = MovingStats(s, in);
  const float dmin = Scalar(in[s.n_args]), dmax = Scalar(in[s.n_args + 1]);
  if (ctx.state && ctx.input_versions && *ctx.state) {
    auto d = std::static_pointer_cast<SgDerived>(*ctx.state);
    if (d->versions == versions && d->moving_stats == stats && d->data_min == dmin &&
        d->data_max == dmax)
      return *d;
  }
  *local = std::make_shared<SgDerived>(Derive(s, in, data_scale));
  (*local)->versions = versions;
  (*local)->moving_stats = std::move(stats);
  (*local)->data_min = dmin;
  (*local)->data_max = dmax;
  (*local)->conv = s;
  if (ctx.state && ctx.input_versions) *ctx.state = *local;
  return **local;
}

template <typename TO>
void Requantize(const SgCall& c, const int32_t* acc, const TBlob* sum, int64_t plane, TO* y,
                int64_t n) {
  const SgConv& s = c.s;
  const std::vector<float>& scale = c.scale;
  const float sum_scale = c.sum_scale;
  const int64_t f = static_cast<int64_t>(scale.size());
  ParallelFor(n, [&](int64_t i) {
    float v = static_cast<float>(acc[i]) * scale[(i / plane) % f];
    if (s.act) v = std::min(std::max(v, c.act_lo), c.act_hi);
    if (sum) {
      const float q =
          sum->dtype == DType::kUint8 ? sum->data<uint8_t>()[i] : sum->data<int8_t>()[i];
      v += sum_scale * q;
    }
    if (s.postsum_act) v = std::max(v, 0.f);
    y[i] = SaturateRound<TO>(v);
  });
}

void SgConvPlain(const SgCall& c, const std::vector<TBlob>& in, const std::vector<TBlob>& out) {
  const SgConv& s = c.s;
  const TBlob& data = in[0];
  const ConvGeom g = MakeConvGeom(s.conv->attrs.params, data.shape, out[0].shape);
  const int64_t n = out[0].Size();
  std::vector<int32_t> acc_buf;
  int32_t* acc = out[0].dtype == DType::kInt32 ? out[0].data<int32_t>() : nullptr;
  if (!acc) {
    acc_buf.resize(static_cast<size_t>(n));
    acc = acc_buf.data();
  }
  const int32_t* b = c.d->b.empty() ? nullptr : c.d->b.data();
  if (data.dtype == DType::kUint8)
    QuantizedConvLoop(g, data.data<uint8_t>(), c.d->w.data(), b, acc);
  else
    QuantizedConvLoop(g, data.data<int8_t>(), c.d->w.data(), b, acc);
  const TBlob* sum = s.sum ? &in[s.n_args - 1] : nullptr;
  const int64_t plane = g.oh * g.ow;
  if (out[0].dtype == DType::kUint8)
    Requantize(c, acc, sum, plane, out[0].data<uint8_t>(), n);
  else if (out[0].dtype == DType::kInt8)
    Requantize(c, acc, sum, plane, out[0].data<int8_t>(), n);
  else
    Requantize(c, acc, sum, plane, out[0].data<int32_t>(), n);
}

// The reference computes in NCHW: channels-last inputs are transposed in,
// a channels-last output out.
void SgConvInt8Cpu(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const SgCall c = PrepareSgCall(ctx, attrs, in, out[0].dtype);
  const SgConv& s = c.s;
  std::vector<TBlob> ins = in;
  std::vector<uint8_t> sum_buf;
  if (s.sum && s.sum_nhwc) ins[s.n_args - 1] = TransposedBytes(in[s.n_args - 1], true, &sum_buf);
  InPlainLayout(attrs, ins, out, [&](const std::vector<TBlob>& i, const std::vector<TBlob>& o) {
    SgConvPlain(c, i, o);
  });
  out[1].data<float>()[0] = c.lo;
  out[2].data<float>()[0] = c.hi;
}

}  // namespace

SgConv SgConv::Decode(const NodeAttrs& attrs) {
  SgConv s;
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  s.sum = p.with_sum;
  s.calibrated = p.calibrated;
  s.n_args = static_cast<size_t>(p.num_args);
  const IndexedGraph g(*attrs.subgraphs.at(0));
  int acts = 0;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = g.node(nid);
    if (n.is_variable()) continue;
    const std::string& op = n.op()->name;
    if (op == "Convolution") s.conv = &n;
    if (op == "BatchNorm") s.bn = &n;
    if (op == "elemwise_add" || op == "Convolution" || op == "BatchNorm") continue;
    const bool first = acts++ == 0 && p.with_act;
    const bool relu =
        op == "Activation" && n.attrs.params.Decoded<QuantParams>().act_type == "relu";
    if (!relu && !(op == "clip" && first))
      Fail(StatusCode::kNotImplemented, "node '", attrs.name, "' (", attrs.op->name,
           "): quantized with activation '", n.attrs.name, "' (", op,
           "): int8 runs relu, and clip before the sum");
    (first ? s.act : s.postsum_act) = true;
    if (first) {
      s.act_clip = !relu;
      const QuantParams& clip = n.attrs.params.Decoded<QuantParams>();
      s.act_lo = relu ? 0.f : clip.a_min;
      s.act_hi = relu ? std::numeric_limits<float>::infinity() : clip.a_max;
    }
  }
  s.bias = !s.conv->attrs.params.Decoded<QuantParams>().no_bias;
  s.data_nhwc = StoredChannelsLast(attrs, "__data_layout__");
  s.sum_nhwc = StoredChannelsLast(attrs, "__sum_layout__");
  s.out_nhwc = StoredChannelsLast(attrs, "__out_layout__");
  return s;
}

SgCall PrepareSgCall(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     DType out_dtype) {
  const QuantParams& p = attrs.params.Decoded<QuantParams>();
  if (!p.quantized)
    Fail(StatusCode::kInternal, "node '", attrs.name,
         "' (_sg_mkldnn_conv): float32 subgraph operators run inlined (pass::ExpandSubgraphs)");
  SgCall c;
  // A call's state holds its decoded layers once it ran (GetSgDerived).
  c.s = ctx.state && *ctx.state ? std::static_pointer_cast<SgDerived>(*ctx.state)->conv
                                : SgConv::Decode(attrs);
  const SgConv& s = c.s;
  const TBlob& data = in[0];
  const float dmin = Scalar(in[s.n_args]), dmax = Scalar(in[s.n_args + 1]);
  c.data_scale = quant::QuantizeScale(data.dtype, dmin, dmax);
  c.d = &GetSgDerived(ctx, s, in, c.data_scale, &c.local);
  const SgDerived& d = *c.d;
  const TBlob* sum = s.sum ? &in[s.n_args - 1] : nullptr;
  const float sum_in =
      sum ? quant::QuantizeScale(sum->dtype, Scalar(in[s.n_args + 2]), Scalar(in[s.n_args + 3]))
          : 1.f;
  float out_scale;
  c.scale.assign(d.scales.size(), 1.f);
  if (s.calibrated) {
    c.lo = p.min_calib;
    c.hi = p.max_calib;
    out_scale = quant::QuantizeScale(out_dtype, c.lo, c.hi);
    for (size_t k = 0; k < c.scale.size(); ++k) c.scale[k] = out_scale / c.data_scale / d.scales[k];
  } else {
    c.hi = quant::ProductRangeMax(d.wmin, d.wmax, dmin, dmax, data.dtype == DType::kInt8);
    c.lo = -c.hi;
    out_scale = c.data_scale * d.scales[0];
  }
  c.sum_scale = out_scale / sum_in;
  c.act_lo = s.act_lo * out_scale;
  c.act_hi = s.act_clip ? s.act_hi * out_scale : s.act_hi;
  return c;
}

void RegisterSgConvInt8Cpu(KernelRegistry* reg) {
  reg->Add("_sg_mkldnn_conv", DeviceType::kCPU, {"cpu", 0, SgConvInt8Cpu});
}

}  // namespace cpu
}  // namespace weft
