// oneDNN int8 kernels (AVX512-VNNI / AVX-512 / AVX2 through oneDNN's jit
// kernels) of _contrib_quantized_conv and _contrib_quantized_fully_connected
// (int8/uint8 data, int8 weights, int32 bias levels, int32 sums: equal to
// the reference kernels' exactly) and of the quantized, calibrated
// _sg_mkldnn_conv: one convolution with MXNet's per-channel output scales
// and post-ops (relu or clip, the residual sum scaled into the output's
// levels, relu) writing int8/uint8, the weights and bias derived once per version
// of the float32 parameters (cpu/sg_conv_int8.h) and reordered once into the
// primitive's layout; and of the quantized channel-wise
// _sg_mkldnn_fully_connected: one int8 inner product with per-channel output
// scales and the fused op as a post-op (SgFcInt8 below). Data and outputs
// are plain NCHW, or NHWC where pass::Int8ChannelsLast stores them so
// (reordered per call where the primitive wants another layout); a residual
// may share the output's storage (the op's in-place pair), in which case it
// is already in place. What oneDNN does not cover (uncalibrated fused convolutions,
// tensor-wise fused fully connected layers, geometries it refuses or would
// run with its slow reference implementation) runs the "cpu" reference
// kernels.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cpu/quantized_nn.h"
#include "cpu/quantized_params.h"
#include "cpu/sg_conv_int8.h"
#include "cpu/sg_fc_int8.h"
#include "dnnl/conv_dims.h"
#include "dnnl/dnnl_util.h"

namespace weft {
namespace onednn {

namespace {

using dnnl::convolution_forward;
using dnnl::inner_product_forward;
using dnnl::memory;
using dt = memory::data_type;

bool QuantizedType(DType t) {
  return t == DType::kInt8 || t == DType::kUint8 || t == DType::kInt32;
}

dt QType(DType t) { return t == DType::kInt8 ? dt::s8 : t == DType::kUint8 ? dt::u8 : dt::s32; }

// oneDNN's reference implementations are slower than weft's own loops.
void RefuseReference(const char* impl) {
  if (std::strncmp(impl, "ref", 3) == 0) throw dnnl::error(dnnl_unimplemented, "reference");
}

struct QConvPrims {
  memory::desc src, wei, bias, dst;  // user layouts: plain NCHW, or NHWC where stored so
  bool sum_nhwc = false;             // the residual is stored NHWC
  convolution_forward::primitive_desc pd;
  convolution_forward fwd;
};

// Where the data / output are stored channels-last (pass::Int8ChannelsLast)
// the primitive takes that layout as it is; elsewhere it picks its own.
struct Layouts {
  bool src_nhwc = false, dst_nhwc = false, sum_nhwc = false;
};

std::shared_ptr<QConvPrims> BuildConv(const ConvDims& g, dt src_dt, dt dst_dt, bool bias,
                                      const dnnl::primitive_attr& attr, Layouts l = {}) {
  auto p = std::make_shared<QConvPrims>();
  const auto nhwc = memory::format_tag::nhwc, any = memory::format_tag::any;
  p->src = l.src_nhwc ? memory::desc(g.src, src_dt, nhwc) : PlainDesc(g.src, src_dt);
  p->wei = PlainDesc(g.wei, dt::s8);
  p->bias = PlainDesc(g.bias, dt::s32);
  p->dst = l.dst_nhwc ? memory::desc(g.dst, dst_dt, nhwc) : PlainDesc(g.dst, dst_dt);
  p->sum_nhwc = l.sum_nhwc;
  convolution_forward::desc fd(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      l.src_nhwc ? p->src : memory::desc(g.src, src_dt, any), memory::desc(g.wei, dt::s8, any),
      bias ? p->bias : memory::desc(), l.dst_nhwc ? p->dst : memory::desc(g.dst, dst_dt, any),
      g.strides, g.dilates, g.pad_l, g.pad_r);
  p->pd = convolution_forward::primitive_desc(fd, attr, Engine());
  RefuseReference(p->pd.impl_info_str());
  p->fwd = convolution_forward(p->pd);
  return p;
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// Runs `p` on data `x` into `y` (in p's user layouts), with `wei` already
// in the primitive's layout and `bias` (int32 levels) when not null; `sum`
// (the residual, int8 or uint8) is placed in the destination first.
void RunConv(const QConvPrims& p, const TBlob& x, const memory& wei, const int32_t* bias,
             const TBlob* sum, const TBlob& y) {
  const memory src = AsLayout(BlobMemory(p.src, x), p.pd.src_desc(), 0);
  const OutputArg dst(BlobMemory(p.dst, y), p.pd.dst_desc(), OpReq::kWrite, 2);
  if (sum) {
    // The residual in the destination's layout, in its own dtype (the sum
    // post-op reads it as such: int8 into uint8 or the converse).
    dnnl_memory_desc_t raw = dst.target.get_desc().data;
    raw.data_type = memory::convert_to_c(QType(sum->dtype));
    const memory::dims& dims = p.dst.dims();
    const memory::desc sum_md =
        p.sum_nhwc ? memory::desc(dims, QType(sum->dtype), memory::format_tag::nhwc)
                   : PlainDesc(dims, QType(sum->dtype));
    memory s = BlobMemory(sum_md, *sum);
    memory t(memory::desc(raw), Engine(), dst.target.get_data_handle());
    if (sum->dptr != t.get_data_handle()) {
      dnnl::reorder(s, t).execute(ThreadStream(), s, t);
    } else if (s.get_desc() != t.get_desc()) {  // in place, stored in another layout
      memory moved(t.get_desc(), Engine(), Scratch(3, t.get_desc().get_size()));
      dnnl::reorder(s, moved).execute(ThreadStream(), s, moved);
      dnnl::reorder(moved, t).execute(ThreadStream(), moved, t);
    }
  }
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst.target}};
  if (bias)
    args[DNNL_ARG_BIAS] = memory(p.bias, Engine(), const_cast<int32_t*>(bias));  // read only
  Execute(p.fwd, p.pd, std::move(args));
  dst.Finish();
}

// _contrib_quantized_conv: int32 sums, no scales.
bool QuantizedConv(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<TBlob>& out) {
  if (in[0].shape.ndim() != 4 || in[0].dtype == DType::kInt32) return false;
  static PrimitiveCache<QConvPrims> cache;
  const bool no_bias = attrs.params.Decoded<cpu::QuantParams>().no_bias;
  const ConvDims g = DimsOf(attrs.params, in[0].shape, out[0].shape);
  const dt src_dt = QType(in[0].dtype);
  auto p = cache.Get(Key(g, !no_bias, src_dt),
                     [&] { return BuildConv(g, src_dt, dt::s32, !no_bias, UserScratchpad()); });
  if (!p) return false;
  std::vector<int32_t> bias;
  if (!no_bias) bias = cpu::BiasLevels(in, g.bias[0]);
  const memory wei = CachedLayout(ctx, 1, BlobMemory(p->wei, in[1]), p->pd.weights_desc(), 1);
  RunConv(*p, in[0], wei, no_bias ? nullptr : bias.data(), nullptr, out[0]);
  cpu::SetProductRange(in, no_bias ? 2 : 3, true, out);
  return true;
}

struct QFcPrims {
  memory::desc src, wei, bias, dst;
  inner_product_forward::primitive_desc pd;
  inner_product_forward fwd;
};

// _contrib_quantized_fully_connected: (rows, k) x (hidden, k)^T in int32.
bool QuantizedFC(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<TBlob>& out) {
  if (in[0].dtype == DType::kInt32) return false;
  static PrimitiveCache<QFcPrims> cache;
  const bool no_bias = attrs.params.Decoded<cpu::QuantParams>().no_bias;
  const int64_t hidden = in[1].shape[0];
  const int64_t rows = hidden > 0 ? out[0].Size() / hidden : 0;
  if (rows == 0) return false;
  const int64_t k = in[0].Size() / rows;
  const dt src_dt = QType(in[0].dtype);
  auto p = cache.Get({rows, k, hidden, no_bias ? 0 : 1, static_cast<int64_t>(src_dt)}, [&] {
    auto q = std::make_shared<QFcPrims>();
    q->src = PlainDesc({rows, k}, src_dt);
    q->wei = PlainDesc({hidden, k}, dt::s8);
    q->bias = PlainDesc({hidden}, dt::s32);
    q->dst = PlainDesc({rows, hidden}, dt::s32);
    const auto any = memory::format_tag::any;
    inner_product_forward::desc d(dnnl::prop_kind::forward_inference, q->src,
                                  memory::desc({hidden, k}, dt::s8, any),
                                  no_bias ? memory::desc() : q->bias, q->dst);
    q->pd = inner_product_forward::primitive_desc(d, UserScratchpad(), Engine());
    RefuseReference(q->pd.impl_info_str());
    q->fwd = inner_product_forward(q->pd);
    return q;
  });
  if (!p) return false;
  std::vector<int32_t> bias;
  if (!no_bias) bias = cpu::BiasLevels(in, hidden);
  const memory wei = CachedLayout(ctx, 1, BlobMemory(p->wei, in[1]), p->pd.weights_desc(), 1);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, BlobMemory(p->src, in[0])},
                                       {DNNL_ARG_WEIGHTS, wei},
                                       {DNNL_ARG_DST, BlobMemory(p->dst, out[0])}};
  if (!no_bias) args[DNNL_ARG_BIAS] = memory(p->bias, Engine(), bias.data());
  Execute(p->fwd, p->pd, std::move(args));
  cpu::SetProductRange(in, no_bias ? 2 : 3, in[0].dtype == DType::kInt8, out);
  return true;
}

// The fused convolution's primitive and reordered weights, built once per
// SgDerived (the derived weights and the scales they imply).
struct SgPrepared {
  std::shared_ptr<QConvPrims> prims;
  memory wei;
};

std::shared_ptr<SgPrepared> PrepareSg(const cpu::SgCall& c, const ConvDims& g, DType src, DType dst,
                                      const TBlob* sum) {
  dnnl::primitive_attr attr = UserScratchpad();
  attr.set_output_scales(1 << 1, c.scale);
  dnnl::post_ops po;
  if (c.s.act && c.s.act_clip)
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, c.act_lo, c.act_hi);
  else if (c.s.act)
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (sum) po.append_sum(c.sum_scale, sum->dtype == dst ? dt::undef : QType(sum->dtype));
  if (c.s.postsum_act) po.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  attr.set_post_ops(po);
  auto out = std::make_shared<SgPrepared>();
  try {
    out->prims = BuildConv(g, QType(src), QType(dst), !c.d->b.empty(), attr,
                           {c.s.data_nhwc, c.s.out_nhwc, sum && c.s.sum_nhwc});
  } catch (const dnnl::error&) {
    return out;  // no primitive: the reference kernel runs
  }
  memory user(out->prims->wei, Engine(), const_cast<int8_t*>(c.d->w.data()));  // read only
  out->wei = memory(out->prims->pd.weights_desc(), Engine());
  dnnl::reorder(user, out->wei).execute(ThreadStream(), user, out->wei);
  ThreadStream().wait();
  return out;
}

bool SgConvInt8(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<TBlob>& out) {
  const cpu::QuantParams& p = attrs.params.Decoded<cpu::QuantParams>();
  const DType y = out[0].dtype;
  if (!p.quantized || !p.calibrated || y == DType::kInt32 || in[0].shape.ndim() != 4 ||
      !QuantizedType(in[0].dtype) || in[0].dtype == DType::kInt32)
    return false;
  const cpu::SgCall c = cpu::PrepareSgCall(ctx, attrs, in, y);
  const TBlob* sum = c.s.sum ? &in[c.s.n_args - 1] : nullptr;
  if (sum && (sum->dtype == DType::kInt32 || !QuantizedType(sum->dtype))) return false;
  auto prepared = std::static_pointer_cast<SgPrepared>(c.d->backend);
  if (!prepared) {
    const ConvDims g = DimsOf(c.s.conv->attrs.params, in[0].shape, out[0].shape);
    prepared = PrepareSg(c, g, in[0].dtype, y, sum);
    const_cast<cpu::SgDerived*>(c.d)->backend = prepared;  // the call's own state
  }
  if (!prepared->prims) return false;
  RunConv(*prepared->prims, in[0], prepared->wei, c.d->b.empty() ? nullptr : c.d->b.data(), sum,
          out[0]);
  out[1].data<float>()[0] = c.lo;
  out[2].data<float>()[0] = c.hi;
  return true;
}

// The fused elementwise op of a fully connected layer as a oneDNN eltwise
// post-op, for the ops oneDNN computes as the reference does, bit for bit
// (relu, leaky, abs, clip, square, sqrt: one IEEE operation each); false
// for those it approximates (sigmoid, tanh, softrelu, exp) or lacks.
struct Eltwise {
  dnnl::algorithm alg = dnnl::algorithm::undef;
  float alpha = 0, beta = 0;
};

bool ExactEltwise(const Node& act, Eltwise* e) {
  const std::string& op = act.op()->name;
  const cpu::QuantParams& p = act.attrs.params.Decoded<cpu::QuantParams>();
  using dnnl::algorithm;
  if (op == "Activation" && p.act_type == "relu")
    *e = {algorithm::eltwise_relu, 0.f, 0.f};
  else if (op == "LeakyReLU" && p.act_type == "leaky")
    *e = {algorithm::eltwise_relu, p.slope, 0.f};
  else if (op == "abs")
    *e = {algorithm::eltwise_abs, 0.f, 0.f};
  else if (op == "clip" && p.a_min <= p.a_max)
    *e = {algorithm::eltwise_clip, p.a_min, p.a_max};
  else if (op == "square")
    *e = {algorithm::eltwise_square, 0.f, 0.f};
  else if (op == "sqrt")
    *e = {algorithm::eltwise_sqrt, 0.f, 0.f};
  else
    return false;
  return true;
}

struct SgFcPrims {
  memory::desc src, bias, dst;
  inner_product_forward::primitive_desc pd;
  inner_product_forward fwd;
};

// What the channel-wise kernel prepared from one version of a layer's
// derived weights (cpu::SgFcCall::backend): a primitive per geometry (row
// count, data and output types, OpenMP team; null where oneDNN refused it)
// and the weights reordered once into each layout those primitives take.
struct SgFcPrepared {
  Mutex mu;
  std::map<std::vector<int64_t>, std::shared_ptr<SgFcPrims>> prims WEFT_GUARDED_BY(mu);
  std::vector<std::pair<memory::desc, memory>> weights WEFT_GUARDED_BY(mu);
};

// `dst_dt` s32: the int32 sums alone (no bias: oneDNN would add it in
// float32), for the reference epilogue; otherwise with the bias levels, the
// output scales (one per channel, or one) and the exact fused op `act`
// (scaled by post_scale) in the primitive.
std::shared_ptr<SgFcPrims> BuildSgFc(const cpu::SgFcCall& c, int64_t rows, dt src_dt, dt dst_dt,
                                     const Eltwise* act) {
  auto p = std::make_shared<SgFcPrims>();
  p->src = PlainDesc({rows, c.k}, src_dt);
  p->bias = PlainDesc({c.hidden}, dt::s32);
  p->dst = PlainDesc({rows, c.hidden}, dst_dt);
  dnnl::primitive_attr attr = UserScratchpad();
  if (dst_dt != dt::s32) {
    attr.set_output_scales(c.scale.size() == 1 ? 0 : 1 << 1, c.scale);
    if (act) {
      dnnl::post_ops po;
      po.append_eltwise(c.post_scale, act->alg, act->alpha, act->beta);
      attr.set_post_ops(po);
    }
  }
  inner_product_forward::desc d(dnnl::prop_kind::forward_inference, p->src,
                                memory::desc({c.hidden, c.k}, dt::s8, memory::format_tag::any),
                                c.bias && dst_dt != dt::s32 ? p->bias : memory::desc(), p->dst);
  p->pd = inner_product_forward::primitive_desc(d, attr, Engine());
  RefuseReference(p->pd.impl_info_str());
  p->fwd = inner_product_forward(p->pd);
  return p;
}

// The derived weights in the layout `want`, reordered on first use.
memory SgFcWeights(SgFcPrepared* prep, const cpu::SgFcCall& c, const memory::desc& want) {
  MutexLock lock(&prep->mu);
  for (const auto& [md, m] : prep->weights)
    if (md == want) return m;
  memory user(PlainDesc({c.hidden, c.k}, dt::s8), Engine(), const_cast<int8_t*>(c.w));  // read
  memory m(want, Engine());
  dnnl::reorder(user, m).execute(ThreadStream(), user, m);
  ThreadStream().wait();
  prep->weights.emplace_back(want, m);
  return m;
}

// The quantized channel-wise _sg_mkldnn_fully_connected on one int8 inner
// product: per output channel c, out = act(acc * scale[c]) * post_scale
// rounded half to even and saturated, as the reference computes it. oneDNN
// (2.6's brgemm kernels) turns the int32 sums into float32 before it adds
// the bias levels, where the reference adds them in int32: the results are
// equal while the sums and the bias levels stay below 2^24 in magnitude
// (every value exact in float32), and past that one float32 rounding apart
// (at most one level of an int8/uint8 output). A fused op oneDNN would
// approximate runs as int32 sums there, the bias added here in int32, and
// the reference epilogue: equal always.
bool SgFcInt8(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<TBlob>& out) {
  const cpu::QuantParams& qp = attrs.params.Decoded<cpu::QuantParams>();
  const DType x = in[0].dtype, y = out[0].dtype;
  if (!qp.quantized || !qp.channel_wise || (x != DType::kInt8 && x != DType::kUint8) ||
      (y != DType::kFloat32 && y != DType::kInt8 && y != DType::kUint8))
    return false;
  const cpu::SgFcCall c = cpu::PrepareSgFc(ctx, attrs, in, out);
  if (c.rows == 0 || c.k == 0 || c.hidden == 0) return false;
  Eltwise act;
  const bool fused = !c.act || ExactEltwise(*c.act, &act);
  const dt src_dt = QType(x), dst_dt = !fused ? dt::s32 : y == DType::kFloat32 ? dt::f32 : QType(y);
  std::shared_ptr<void> local;
  std::shared_ptr<void>& slot = c.backend ? *c.backend : local;
  if (!slot) slot = std::make_shared<SgFcPrepared>();
  SgFcPrepared* prep = static_cast<SgFcPrepared*>(slot.get());
  const std::vector<int64_t> key = {c.rows, static_cast<int64_t>(src_dt),
                                    static_cast<int64_t>(dst_dt), omp_get_max_threads()};
  std::shared_ptr<SgFcPrims> p;
  {
    MutexLock lock(&prep->mu);
    auto it = prep->prims.find(key);
    if (it != prep->prims.end()) {
      p = it->second;
    } else {
      try {
        p = BuildSgFc(c, c.rows, src_dt, dst_dt, c.act ? &act : nullptr);
      } catch (const dnnl::error&) {
        p = nullptr;  // refused (or only a reference implementation): the cpu kernel runs
      }
      prep->prims[key] = p;
    }
  }
  if (!p) return false;
  const memory wei = SgFcWeights(prep, c, p->pd.weights_desc());
  std::vector<int32_t> acc;
  void* dst = out[0].dptr;
  if (!fused) {
    acc.resize(static_cast<size_t>(c.rows * c.hidden));
    dst = acc.data();
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, BlobMemory(p->src, in[0])},
                                       {DNNL_ARG_WEIGHTS, wei},
                                       {DNNL_ARG_DST, memory(p->dst, Engine(), dst)}};
  if (c.bias && fused)
    args[DNNL_ARG_BIAS] = memory(p->bias, Engine(), const_cast<int32_t*>(c.bias));  // read only
  Execute(p->fwd, p->pd, std::move(args));
  if (!fused) {
    if (c.bias)
      for (int64_t r = 0; r < c.rows; ++r)
        for (int64_t h = 0; h < c.hidden; ++h) acc[r * c.hidden + h] += c.bias[h];
    cpu::FinishSgFc(c, acc.data(), out);
  } else if (y != DType::kFloat32) {
    out[1].data<float>()[0] = c.lo;
    out[2].data<float>()[0] = c.hi;
  }
  return true;
}

using Fast = bool (*)(const OpContext&, const NodeAttrs&, const std::vector<TBlob>&,
                      const std::vector<TBlob>&);

KernelFn WithFallback(Fast fast, KernelFn ref) {
  return [fast, ref](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (!fast(ctx, attrs, in, out)) ref(ctx, attrs, in, req, out);
  };
}

}  // namespace

void RegisterQuantizedDnnl(KernelRegistry* reg) {
  InitDnnl();
  for (const auto& [op, fast] :
       {std::pair<const char*, Fast>{"_contrib_quantized_conv", QuantizedConv},
        {"_contrib_quantized_fully_connected", QuantizedFC},
        {"_sg_mkldnn_conv", SgConvInt8},
        {"_sg_mkldnn_fully_connected", SgFcInt8}})
    reg->Add(op, DeviceType::kCPU, {"dnnl", 20, WithFallback(fast, ReferenceKernel(*reg, op))});
}

}  // namespace onednn
}  // namespace weft
