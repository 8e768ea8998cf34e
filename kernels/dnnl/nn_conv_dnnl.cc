// oneDNN kernels of Convolution and _backward_Convolution: float32, 1-D and
// 2-D, any kernel/stride/pad/dilate/num_group, with or without bias, every
// request (kAdd through a reorder with a sum post-op). The primitives pick
// their own (blocked, AVX-512 where the CPU has it) layouts; weft's plain
// NCHW / (F, C/G, KH, KW) blobs are reordered to and from them per call, as
// PyTorch's mkldnn path does, except the forward weights of a bound call
// (an executor's node), which are reordered once and reused while the
// weight array is unchanged (CachedLayout). Primitive descriptors are cached per geometry.
// float64, 3-D and geometries oneDNN refuses run the "cpu" reference kernel.
// _fused_Convolution (pass::FuseConvActivation) is one forward_inference
// convolution with post-ops: sum (the residual input, placed in the
// destination first) and eltwise_relu.
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "cpu/im2col.h"
#include "dnnl/dnnl_util.h"
#include "dnnl/nn_conv_dnnl.h"
#include "weft/dtype.h"

namespace weft {
namespace onednn {

namespace {

using dnnl::memory;
using dnnl::algorithm;
using dnnl::convolution_backward_data;
using dnnl::convolution_backward_weights;
using dnnl::convolution_forward;

// Every primitive of one convolution geometry, created on first use.
struct ConvPrims {
  memory::desc src, wei, bias, dst;  // plain user layouts
  convolution_forward::primitive_desc fwd_pd;
  convolution_forward fwd;
  convolution_backward_data::primitive_desc bwd_data_pd;
  convolution_backward_data bwd_data;
  convolution_backward_weights::primitive_desc bwd_w_pd;
  convolution_backward_weights bwd_w;
};

std::vector<int64_t> Key(const ConvGeom& g, bool bias) {
  return {g.n, g.c, g.h, g.w, g.f, g.oh, g.ow, g.groups, g.kh, g.kw, g.sh, g.sw,
          g.ph, g.pw, g.dh, g.dw, bias ? 1 : 0};
}

// The plain user layouts and oneDNN's geometry of one convolution.
struct ConvDescs {
  memory::desc src, wei, bias, dst;        // plain
  memory::desc src_any, wei_any, dst_any;  // format_tag::any
  memory::dims strides, dilates, pad_l, pad_r;
};

ConvDescs Descs(const ConvGeom& g) {
  ConvDescs d;
  const int64_t G = g.groups;
  d.src = PlainDesc({g.n, g.c, g.h, g.w});
  d.dst = PlainDesc({g.n, g.f, g.oh, g.ow});
  d.wei = G == 1 ? PlainDesc({g.f, g.c, g.kh, g.kw}) : PlainDesc({G, g.f / G, g.c / G, g.kh, g.kw});
  d.bias = PlainDesc({g.f});
  const auto any = memory::format_tag::any;
  const auto f32 = memory::data_type::f32;
  d.src_any = memory::desc(d.src.dims(), f32, any);
  d.dst_any = memory::desc(d.dst.dims(), f32, any);
  d.wei_any = memory::desc(d.wei.dims(), f32, any);
  d.strides = {g.sh, g.sw};
  d.dilates = {g.dh - 1, g.dw - 1};
  d.pad_l = {g.ph, g.pw};
  // MXNet's output extent floor((in + 2p - dk) / s) + 1: the right padding
  // that makes oneDNN's extent equal it (may be below the left one).
  d.pad_r = {(g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.h - g.ph,
             (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.w - g.pw};
  return d;
}

// Builds the primitives; throws dnnl::error when oneDNN refuses the geometry.
std::shared_ptr<ConvPrims> Build(const ConvGeom& g, bool has_bias) {
  auto p = std::make_shared<ConvPrims>();
  const ConvDescs d = Descs(g);
  p->src = d.src;
  p->dst = d.dst;
  p->wei = d.wei;
  p->bias = d.bias;
  const memory::desc &src_any = d.src_any, &dst_any = d.dst_any, &wei_any = d.wei_any;
  const memory::desc bias_md = has_bias ? p->bias : memory::desc();
  const memory::dims &strides = d.strides, &dilates = d.dilates, &pad_l = d.pad_l, &pad_r = d.pad_r;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::engine& eng = Engine();
  convolution_forward::desc fd(dnnl::prop_kind::forward_training, algorithm::convolution_direct, src_any,
                               wei_any, bias_md, dst_any, strides, dilates, pad_l, pad_r);
  p->fwd_pd = convolution_forward::primitive_desc(fd, attr, eng);
  p->fwd = convolution_forward(p->fwd_pd);
  convolution_backward_data::desc bd(algorithm::convolution_direct, src_any, wei_any, dst_any, strides,
                                     dilates, pad_l, pad_r);
  p->bwd_data_pd = convolution_backward_data::primitive_desc(bd, attr, eng, p->fwd_pd);
  p->bwd_data = convolution_backward_data(p->bwd_data_pd);
  convolution_backward_weights::desc wd(algorithm::convolution_direct, src_any, wei_any, bias_md, dst_any,
                                        strides, dilates, pad_l, pad_r);
  p->bwd_w_pd = convolution_backward_weights::primitive_desc(wd, attr, eng, p->fwd_pd);
  p->bwd_w = convolution_backward_weights(p->bwd_w_pd);
  return p;
}

// The cached primitives of (g, bias), or null when oneDNN does not cover them
// (remembered, so the refusal costs once).
std::shared_ptr<ConvPrims> Prims(const ConvGeom& g, bool bias) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, std::shared_ptr<ConvPrims>> cache;
  const std::vector<int64_t> key = Key(g, bias);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::shared_ptr<ConvPrims> p;
  try {
    p = Build(g, bias);
  } catch (const dnnl::error&) {
    p = nullptr;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 512) cache.clear();  // bound the memory held by unusual workloads
  cache[key] = p;
  return p;
}

// The inference convolution of _fused_Convolution with its post-ops.
struct FusedPrims {
  ConvDescs d;
  convolution_forward::primitive_desc pd;
  convolution_forward fwd;
};

std::shared_ptr<FusedPrims> BuildFused(const ConvGeom& g, bool has_bias, bool sum, bool relu) {
  auto p = std::make_shared<FusedPrims>();
  p->d = Descs(g);
  const ConvDescs& d = p->d;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops po;
  if (sum) po.append_sum(1.0f);
  if (relu) po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  attr.set_post_ops(po);
  convolution_forward::desc fd(dnnl::prop_kind::forward_inference, algorithm::convolution_direct, d.src_any,
                               d.wei_any, has_bias ? d.bias : memory::desc(), d.dst_any, d.strides, d.dilates,
                               d.pad_l, d.pad_r);
  p->pd = convolution_forward::primitive_desc(fd, attr, Engine());
  p->fwd = convolution_forward(p->pd);
  return p;
}

std::shared_ptr<FusedPrims> FusedPrimsFor(const ConvGeom& g, bool bias, bool sum, bool relu) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, std::shared_ptr<FusedPrims>> cache;
  std::vector<int64_t> key = Key(g, bias);
  key.push_back(sum ? 1 : 0);
  key.push_back(relu ? 1 : 0);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::shared_ptr<FusedPrims> p;
  try {
    p = BuildFused(g, bias, sum, relu);
  } catch (const dnnl::error&) {
    p = nullptr;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= 512) cache.clear();
  cache[key] = p;
  return p;
}

bool Covered(const std::vector<TBlob>& in, const Shape& data) {
  return in[0].dtype == DType::kFloat32 && (data.ndim() == 3 || data.ndim() == 4);
}

memory Mem(const memory::desc& md, const TBlob& b) {
  return memory(md, Engine(), const_cast<void*>(static_cast<const void*>(b.data<float>())));
}

void Forward(const OpContext& ctx, const ConvPrims& p, const TBlob& x, const TBlob& w, const TBlob* b, OpReq req,
             const TBlob& y) {
  const memory src = AsLayout(Mem(p.src, x), p.fwd_pd.src_desc(), 0);
  const memory wei = CachedLayout(ctx, 1, Mem(p.wei, w), p.fwd_pd.weights_desc(), 1);
  const OutputArg dst(Mem(p.dst, y), p.fwd_pd.dst_desc(), req, 2);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst.target}};
  if (b) args[DNNL_ARG_BIAS] = Mem(p.bias, *b);
  Execute(p.fwd, p.fwd_pd, std::move(args));
  dst.Finish();
}

// y = act(conv(x, w, b) + sum) for a kWrite / kInplace request: the sum is
// placed in the destination (in oneDNN's layout) before the primitive runs.
void FusedForward(const OpContext& ctx, const FusedPrims& p, const std::vector<TBlob>& in, bool has_bias,
                  const TBlob* sum, const TBlob& y) {
  const memory src = AsLayout(Mem(p.d.src, in[0]), p.pd.src_desc(), 0);
  const memory wei = CachedLayout(ctx, 1, Mem(p.d.wei, in[1]), p.pd.weights_desc(), 1);
  const OutputArg dst(Mem(p.d.dst, y), p.pd.dst_desc(), OpReq::kWrite, 2);
  if (sum && sum->dptr != dst.target.get_data_handle()) {
    memory s = Mem(p.d.dst, *sum), t = dst.target;
    dnnl::reorder(s, t).execute(ThreadStream(), s, t);
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst.target}};
  if (has_bias) args[DNNL_ARG_BIAS] = Mem(p.d.bias, in[2]);
  Execute(p.fwd, p.pd, std::move(args));
  dst.Finish();
}

// in: ograd, data, weight; out: data_grad, weight_grad[, bias_grad].
void Backward(const ConvPrims& p, const std::vector<TBlob>& in, const std::vector<OpReq>& req,
              const std::vector<TBlob>& out) {
  const bool bias = out.size() > 2;
  const bool want_w = req[1] != OpReq::kNull || (bias && req[2] != OpReq::kNull);
  if (req[0] != OpReq::kNull) {
    const memory ddst = AsLayout(Mem(p.dst, in[0]), p.bwd_data_pd.diff_dst_desc(), 0);
    const memory wei = AsLayout(Mem(p.wei, in[2]), p.bwd_data_pd.weights_desc(), 1);
    const OutputArg dsrc(Mem(p.src, out[0]), p.bwd_data_pd.diff_src_desc(), req[0], 2);
    Execute(p.bwd_data, p.bwd_data_pd,
            {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, dsrc.target}});
    dsrc.Finish();
  }
  if (!want_w) return;
  const memory ddst = AsLayout(Mem(p.dst, in[0]), p.bwd_w_pd.diff_dst_desc(), 0);
  const memory src = AsLayout(Mem(p.src, in[1]), p.bwd_w_pd.src_desc(), 1);
  // A kNull gradient still needs a destination: scratch, never copied out.
  const OutputArg dwei(Mem(p.wei, out[1]), p.bwd_w_pd.diff_weights_desc(), req[1], 2);
  std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_SRC, src},
                                       {DNNL_ARG_DIFF_WEIGHTS, dwei.target}};
  if (bias) {
    const OutputArg dbias(Mem(p.bias, out[2]), p.bwd_w_pd.diff_bias_desc(), req[2], 3);
    args[DNNL_ARG_DIFF_BIAS] = dbias.target;
    Execute(p.bwd_w, p.bwd_w_pd, std::move(args));
    dbias.Finish();
  } else {
    Execute(p.bwd_w, p.bwd_w_pd, std::move(args));
  }
  dwei.Finish();
}

}  // namespace

bool ConvolutionCovered(const ParamValues& params, const Shape& data, const Shape& out, DType dtype,
                        bool bias) {
  if (dtype != DType::kFloat32 || (data.ndim() != 3 && data.ndim() != 4)) return false;
  return Prims(MakeConvGeom(params, data, out), bias) != nullptr;
}

void RegisterNNConvDnnl(KernelRegistry* reg) {
  InitDnnl();
  KernelFn ref_fwd = ReferenceKernel(*reg, "Convolution");
  KernelFn ref_bwd = ReferenceKernel(*reg, "_backward_Convolution");
  auto fwd = [ref_fwd](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    if (Covered(in, in[0].shape)) {
      const ConvGeom g = MakeConvGeom(attrs.params, in[0].shape, out[0].shape);
      if (auto p = Prims(g, in.size() > 2)) {
        Forward(ctx, *p, in[0], in[1], in.size() > 2 ? &in[2] : nullptr, req[0], out[0]);
        return;
      }
    }
    ref_fwd(ctx, attrs, in, req, out);
  };
  auto bwd = [ref_bwd](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (Covered(in, in[1].shape)) {
      const ConvGeom g = MakeConvGeom(attrs.params, in[1].shape, in[0].shape);
      if (auto p = Prims(g, out.size() > 2)) {
        Backward(*p, in, req, out);
        return;
      }
    }
    ref_bwd(ctx, attrs, in, req, out);
  };
  KernelFn ref_fused = ReferenceKernel(*reg, "_fused_Convolution");
  auto fused = [ref_fused](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    const bool bias = !attrs.params.GetBool("no_bias"), sum = attrs.params.GetBool("with_sum");
    const bool relu = attrs.params.GetString("act_type") == "relu";
    if (req[0] != OpReq::kAdd && Covered(in, in[0].shape)) {
      const ConvGeom g = MakeConvGeom(attrs.params, in[0].shape, out[0].shape);
      if (auto p = FusedPrimsFor(g, bias, sum, relu)) {
        FusedForward(ctx, *p, in, bias, sum ? &in.back() : nullptr, out[0]);
        return;
      }
    }
    ref_fused(ctx, attrs, in, req, out);
  };
  reg->Add("Convolution", DeviceType::kCPU, {"dnnl", 20, fwd, true});
  reg->Add("_fused_Convolution", DeviceType::kCPU, {"dnnl", 20, fused, true});
  reg->Add("_backward_Convolution", DeviceType::kCPU, {"dnnl", 20, bwd, true});
}

}  // namespace onednn
}  // namespace weft
