// oneDNN kernels of Convolution and _backward_Convolution: float32 and
// bfloat16 (where the CPU has AVX-512; BFloat16Supported), 1-D,
// 2-D and 3-D, any kernel/stride/pad/dilate/num_group, with or without bias, every
// request (kAdd through a reorder with a sum post-op). The primitives pick
// their own (blocked, AVX-512 where the CPU has it) layouts; weft's plain
// NCHW / (F, C/G, KH, KW) blobs are reordered to and from them per call, as
// PyTorch's mkldnn path does, except the forward weights of a bound call
// (an executor's node), which are reordered once and reused while the
// weight array is unchanged (CachedLayout). Primitive descriptors are cached
// per geometry. float64 and geometries oneDNN refuses run the "cpu"
// reference kernel. _fused_Convolution (pass::FuseConvActivation) is one
// forward_inference convolution with post-ops: sum (the residual input,
// placed in the destination first) and eltwise_relu or eltwise_clip (ReLU6 as
// clip(0, 6)); its data, sum and output
// may be channel-blocked (data_block / out_block: nChw8c / nChw16c), which
// saves the reorders when the primitive uses that layout (the pass picks
// the block this backend registers: channel_block). A bound fused call
// prepares its primitive and argument memory once (FusedCall).
#include <cstdlib>
#include <cstring>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "cpu/fused_conv_act.h"
#include "cpu/im2col.h"
#include "dnnl/conv_dims.h"
#include "dnnl/dnnl_util.h"
#include "dnnl/nn_conv_dnnl.h"
#include "weft/channel_block.h"
#include "weft/dtype.h"

namespace weft {
namespace onednn {

namespace {

using dnnl::algorithm;
using dnnl::convolution_backward_data;
using dnnl::convolution_backward_weights;
using dnnl::convolution_forward;
using dnnl::memory;

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

// Builds the primitives; throws dnnl::error when oneDNN refuses the geometry.
std::shared_ptr<ConvPrims> Build(const ConvDims& g, bool has_bias, memory::data_type dt) {
  auto p = std::make_shared<ConvPrims>();
  p->src = PlainDesc(g.src, dt);
  p->dst = PlainDesc(g.dst, dt);
  p->wei = PlainDesc(g.wei, dt);
  p->bias = PlainDesc(g.bias, dt);
  const auto any = memory::format_tag::any;
  const memory::desc src_any(p->src.dims(), dt, any), dst_any(p->dst.dims(), dt, any),
      wei_any(p->wei.dims(), dt, any);
  const memory::desc bias_md = has_bias ? p->bias : memory::desc();
  const memory::dims &strides = g.strides, &dilates = g.dilates, &pad_l = g.pad_l, &pad_r = g.pad_r;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::engine& eng = Engine();
  convolution_forward::desc fd(dnnl::prop_kind::forward_training, algorithm::convolution_direct,
                               src_any, wei_any, bias_md, dst_any, strides, dilates, pad_l, pad_r);
  p->fwd_pd = convolution_forward::primitive_desc(fd, attr, eng);
  p->fwd = convolution_forward(p->fwd_pd);
  convolution_backward_data::desc bd(algorithm::convolution_direct, src_any, wei_any, dst_any,
                                     strides, dilates, pad_l, pad_r);
  p->bwd_data_pd = convolution_backward_data::primitive_desc(bd, attr, eng, p->fwd_pd);
  p->bwd_data = convolution_backward_data(p->bwd_data_pd);
  convolution_backward_weights::desc wd(algorithm::convolution_direct, src_any, wei_any, bias_md,
                                        dst_any, strides, dilates, pad_l, pad_r);
  p->bwd_w_pd = convolution_backward_weights::primitive_desc(wd, attr, eng, p->fwd_pd);
  p->bwd_w = convolution_backward_weights(p->bwd_w_pd);
  return p;
}

// The cached primitives of (g, bias, dtype), or null when oneDNN does not
// cover them.
std::shared_ptr<ConvPrims> Prims(const ConvDims& g, bool bias, DType t) {
  static PrimitiveCache<ConvPrims> cache;
  const memory::data_type dt = DataType(t);
  return cache.Get(Key(g, bias, dt), [&] { return Build(g, bias, dt); });
}

// The inference convolution of _fused_Convolution with its post-ops.
struct FusedPrims {
  memory::desc src, wei, bias, dst;  // plain user layouts
  convolution_forward::primitive_desc pd;
  convolution_forward fwd;
};

// oneDNN's Winograd kernels (F(2x2,3x3) and F(4x4,3x3), AVX-512 only in
// oneDNN 2.6) take a 3x3, stride-1, undilated, ungrouped float32 inference
// convolution in about half the direct kernel's time at batch 1 and 8 on
// every ResNet geometry (bench/README.md, 2026-11-30 b); oneDNN's own
// convolution_auto keeps direct at batch 1. WEFT_DNNL_WINOGRAD=0 turns them
// off (the direct kernels round differently: relative differences of a few
// 1e-7 per output).
bool WinogradFits(const ConvDims& g, memory::data_type dt) {
  static const bool on = [] {
    const char* env = std::getenv("WEFT_DNNL_WINOGRAD");
    return !(env && std::string(env) == "0");
  }();
  const memory::dims one{1, 1}, none{0, 0};
  return on && dt == memory::data_type::f32 && g.wei.size() == 4 && g.wei[2] == 3 &&
         g.wei[3] == 3 && g.strides == one && g.dilates == none;
}

// Data and output in the layouts of data_block / out_block when they are
// blocked (nChw8c / nChw16c): oneDNN then picks a kernel for that layout
// instead of its favourite. On AVX-512 oneDNN 2.6 favours its brgemm
// kernels in NHWC, and a chain kept blocked between convolutions
// (pass::BlockConvLayouts) paid two reorders per convolution to reach them:
// 69 % of MobileNet-v2's oneDNN time at batch 16. Plain data, or a layout no
// kernel takes, leave the choice to oneDNN ("any").
std::shared_ptr<FusedPrims> BuildFused(const ConvDims& g, bool has_bias, bool sum,
                                       const cpu::FusedConvAct& act, int64_t data_block,
                                       int64_t out_block, memory::data_type dt) {
  auto p = std::make_shared<FusedPrims>();
  p->src = PlainDesc(g.src, dt);
  p->dst = PlainDesc(g.dst, dt);
  p->wei = PlainDesc(g.wei, dt);
  p->bias = PlainDesc(g.bias, dt);
  const auto any = memory::format_tag::any;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops po;
  if (sum) po.append_sum(1.0f);
  if (act.kind == cpu::FusedConvAct::kRelu)
    po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  if (act.kind == cpu::FusedConvAct::kClip)
    po.append_eltwise(1.0f, algorithm::eltwise_clip, act.lo, act.hi);
  attr.set_post_ops(po);
  auto layout = [&](const memory::dims& dims, const memory::desc& plain, int64_t block) {
    return block > 0 && BlockCovered(block, static_cast<int>(dims.size()))
               ? BlockedDesc(plain, block)
               : memory::desc(dims, dt, any);
  };
  auto make = [&](algorithm alg, const memory::desc& src, const memory::desc& dst) {
    convolution_forward::desc fd(dnnl::prop_kind::forward_inference, alg, src,
                                 memory::desc(g.wei, dt, any), has_bias ? p->bias : memory::desc(),
                                 dst, g.strides, g.dilates, g.pad_l, g.pad_r);
    return convolution_forward::primitive_desc(fd, attr, Engine());
  };
  // Winograd where it fits, else direct, in the fixed layouts; no kernel for
  // them, or only oneDNN's reference one (seconds per call): oneDNN's choice
  // of a direct kernel, behind reorders.
  std::vector<algorithm> algs{algorithm::convolution_direct};
  if (WinogradFits(g, dt)) algs.insert(algs.begin(), algorithm::convolution_winograd);
  bool fixed = false;
  for (std::size_t i = 0; i < algs.size() && !fixed; ++i) {
    try {
      p->pd = make(algs[i], layout(g.src, p->src, data_block), layout(g.dst, p->dst, out_block));
      fixed = std::strncmp(p->pd.impl_info_str(), "ref", 3) != 0;
    } catch (const dnnl::error&) {
    }
  }
  if (!fixed)
    p->pd = make(algorithm::convolution_direct, memory::desc(g.src, dt, any),
                 memory::desc(g.dst, dt, any));
  p->fwd = convolution_forward(p->pd);
  return p;
}

// As Prims, for the fused forward.
std::shared_ptr<FusedPrims> FusedPrimsFor(const ConvDims& g, bool bias, bool sum,
                                          const cpu::FusedConvAct& act, int64_t data_block,
                                          int64_t out_block, DType t) {
  static PrimitiveCache<FusedPrims> cache;
  const memory::data_type dt = DataType(t);
  std::vector<int64_t> key = Key(g, bias, dt);
  key.push_back(sum ? 1 : 0);
  key.push_back(act.kind);
  for (float bound : {act.lo, act.hi}) {  // the bounds' bits
    int32_t bits = 0;
    std::memcpy(&bits, &bound, sizeof bits);
    key.push_back(bits);
  }
  key.push_back(data_block);
  key.push_back(out_block);
  return cache.Get(key, [&] { return BuildFused(g, bias, sum, act, data_block, out_block, dt); });
}

bool CoveredDType(DType t) {
  return t == DType::kFloat32 || (t == DType::kBFloat16 && BFloat16Supported());
}

bool Covered(const std::vector<TBlob>& in, const Shape& data) {
  return CoveredDType(in[0].dtype) && data.ndim() >= 3 && data.ndim() <= 5;
}

void Forward(const OpContext& ctx, const ConvPrims& p, const TBlob& x, const TBlob& w,
             const TBlob* b, OpReq req, const TBlob& y) {
  const memory src = AsLayout(BlobMemory(p.src, x), p.fwd_pd.src_desc(), 0);
  const memory wei = CachedLayout(ctx, 1, BlobMemory(p.wei, w), p.fwd_pd.weights_desc(), 1);
  const OutputArg dst(BlobMemory(p.dst, y), p.fwd_pd.dst_desc(), req, 2);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst.target}};
  if (b) args[DNNL_ARG_BIAS] = BlobMemory(p.bias, *b);
  Execute(p.fwd, p.fwd_pd, std::move(args));
  dst.Finish();
}

// A _fused_Convolution call prepared once: its primitive, the layouts it
// wants and the memory objects of its arguments, repointed at each run's
// blobs. A bound call (an executor's node) keeps it in ctx.state, so its
// runs decode no geometry, look up no cache and create no oneDNN objects
// (at MobileNet-v2 batch 1 that work was about 5 % of the forward); a
// one-off call prepares a fresh one. `prims` is null where oneDNN does not
// cover the call (the reference kernel runs).
struct FusedCall {
  Shape in_shape, out_shape;  // the blobs' shapes it was prepared for
  DType dtype = DType::kFloat32;
  size_t num_inputs = 0;
  // The calling thread's OpenMP team size: a primitive keeps the team it
  // was created for (PrimitiveCache), and the engines shrink the team
  // under contention, so a changed team prepares the call again.
  int team = 0;
  bool bias = false, sum = false;
  std::shared_ptr<FusedPrims> prims;
  memory::desc src_want, wei_want, dst_want;
  memory src_user, wei_user, dst_user, scratch;
  bool src_direct = false;
  std::shared_ptr<void> weights;  // CachedLayout's state of the weight
  std::unordered_map<int, memory> args;

  bool Fits(const std::vector<TBlob>& in, const TBlob& y) const {
    return in.size() == num_inputs && in[0].dtype == dtype && in[0].shape == in_shape &&
           y.shape == out_shape && team == omp_get_max_threads();
  }
};

std::shared_ptr<FusedCall> PrepareFused(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                                        const TBlob& y_blob) {
  auto c = std::make_shared<FusedCall>();
  c->in_shape = in[0].shape;
  c->out_shape = y_blob.shape;
  c->dtype = in[0].dtype;
  c->num_inputs = in.size();
  c->team = omp_get_max_threads();
  const cpu::FusedConvAct& act = attrs.params.Decoded<cpu::FusedConvAct>();
  c->bias = act.bias;
  c->sum = act.with_sum;
  const SlotBlocks blocks = BlockedSlots(attrs, in.size());
  const int64_t db = blocks.in[0], ob = blocks.out[0];
  const Shape data = blocks.Input(0, in[0].shape, "_fused_Convolution input 'data'");
  const Shape y = blocks.Output(0, y_blob.shape, "_fused_Convolution output 0");
  if (!Covered(in, data) || !BlockCovered(db, data.ndim()) || !BlockCovered(ob, y.ndim())) return c;
  c->prims = FusedPrimsFor(DimsOf(attrs.params, data, y), c->bias, c->sum, act, db, ob, c->dtype);
  if (!c->prims) return c;
  const FusedPrims& p = *c->prims;
  c->src_want = p.pd.src_desc();
  c->wei_want = p.pd.weights_desc();
  c->dst_want = p.pd.dst_desc();
  c->src_user = BlobMemory(BlockedDesc(p.src, db), in[0]);
  c->wei_user = BlobMemory(p.wei, in[1]);
  c->dst_user = BlobMemory(BlockedDesc(p.dst, ob), y_blob);
  c->src_direct = c->src_user.get_desc() == c->src_want;
  if (c->bias) c->args[DNNL_ARG_BIAS] = BlobMemory(p.bias, in[2]);
  const memory::desc sd = p.pd.scratchpad_desc();
  if (sd.get_size() > 0) c->scratch = memory(sd, Engine(), Scratch(kScratchSlots - 1, 64));
  return c;
}

// y = act(conv(x, w, b) + sum) for a kWrite / kInplace request: the sum is
// placed in the destination (in oneDNN's layout) before the primitive runs.
void RunFused(const OpContext& ctx, FusedCall& c, const std::vector<TBlob>& in, const TBlob& y) {
  c.src_user.set_data_handle(in[0].dptr);
  c.args[DNNL_ARG_SRC] = c.src_direct ? c.src_user : AsLayout(c.src_user, c.src_want, 0);
  c.wei_user.set_data_handle(in[1].dptr);
  OpContext weight_ctx = ctx;
  weight_ctx.state = &c.weights;
  c.args[DNNL_ARG_WEIGHTS] = CachedLayout(weight_ctx, 1, c.wei_user, c.wei_want, 1);
  if (c.bias) c.args[DNNL_ARG_BIAS].set_data_handle(in[2].dptr);
  c.dst_user.set_data_handle(y.dptr);
  const OutputArg dst(c.dst_user, c.dst_want, OpReq::kWrite, 2);
  if (c.sum && in.back().dptr != dst.target.get_data_handle()) {
    memory s = BlobMemory(c.dst_user.get_desc(), in.back()), t = dst.target;
    dnnl::reorder(s, t).execute(ThreadStream(), s, t);
  }
  c.args[DNNL_ARG_DST] = dst.target;
  if (c.scratch) {
    c.scratch.set_data_handle(Scratch(kScratchSlots - 1, c.scratch.get_desc().get_size()));
    c.args[DNNL_ARG_SCRATCHPAD] = c.scratch;
  }
  dnnl::stream& s = ThreadStream();
  c.prims->fwd.execute(s, c.args);
  s.wait();
  dst.Finish();
}

// in: ograd, data, weight; out: data_grad, weight_grad[, bias_grad].
void Backward(const ConvPrims& p, const std::vector<TBlob>& in, const std::vector<OpReq>& req,
              const std::vector<TBlob>& out) {
  const bool bias = out.size() > 2;
  const bool want_w = req[1] != OpReq::kNull || (bias && req[2] != OpReq::kNull);
  if (req[0] != OpReq::kNull) {
    const memory ddst = AsLayout(BlobMemory(p.dst, in[0]), p.bwd_data_pd.diff_dst_desc(), 0);
    const memory wei = AsLayout(BlobMemory(p.wei, in[2]), p.bwd_data_pd.weights_desc(), 1);
    const OutputArg dsrc(BlobMemory(p.src, out[0]), p.bwd_data_pd.diff_src_desc(), req[0], 2);
    Execute(p.bwd_data, p.bwd_data_pd,
            {{DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, dsrc.target}});
    dsrc.Finish();
  }
  if (!want_w) return;
  const memory ddst = AsLayout(BlobMemory(p.dst, in[0]), p.bwd_w_pd.diff_dst_desc(), 0);
  const memory src = AsLayout(BlobMemory(p.src, in[1]), p.bwd_w_pd.src_desc(), 1);
  // A kNull gradient still needs a destination: scratch, never copied out.
  const OutputArg dwei(BlobMemory(p.wei, out[1]), p.bwd_w_pd.diff_weights_desc(), req[1], 2);
  std::unordered_map<int, memory> args{
      {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_WEIGHTS, dwei.target}};
  if (bias) {
    const OutputArg dbias(BlobMemory(p.bias, out[2]), p.bwd_w_pd.diff_bias_desc(), req[2], 3);
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
  if (!CoveredDType(dtype) || data.ndim() < 3 || data.ndim() > 5) return false;
  return Prims(DimsOf(params, data, out), bias, dtype) != nullptr;
}

void RegisterNNConvDnnl(KernelRegistry* reg) {
  InitDnnl();
  KernelFn ref_fwd = ReferenceKernel(*reg, "Convolution");
  KernelFn ref_bwd = ReferenceKernel(*reg, "_backward_Convolution");
  auto fwd = [ref_fwd](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    if (Covered(in, in[0].shape)) {
      if (auto p =
              Prims(DimsOf(attrs.params, in[0].shape, out[0].shape), in.size() > 2, in[0].dtype)) {
        Forward(ctx, *p, in[0], in[1], in.size() > 2 ? &in[2] : nullptr, req[0], out[0]);
        return;
      }
    }
    ReferenceInFloat32(ref_fwd, ctx, attrs, in, req, out);
  };
  auto bwd = [ref_bwd](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (Covered(in, in[1].shape)) {
      if (auto p =
              Prims(DimsOf(attrs.params, in[1].shape, in[0].shape), out.size() > 2, in[0].dtype)) {
        Backward(*p, in, req, out);
        return;
      }
    }
    ReferenceInFloat32(ref_bwd, ctx, attrs, in, req, out);
  };
  KernelFn ref_fused = ReferenceKernel(*reg, "_fused_Convolution");
  auto fused = [ref_fused](const OpContext& ctx, const NodeAttrs& attrs,
                           const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                           const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    std::shared_ptr<FusedCall> call;
    if (ctx.state && *ctx.state) call = std::static_pointer_cast<FusedCall>(*ctx.state);
    if (!call || !call->Fits(in, out[0])) {
      std::shared_ptr<FusedCall> fresh = PrepareFused(attrs, in, out[0]);
      if (call) fresh->weights = call->weights;  // CachedLayout checks it still fits
      call = fresh;
      if (ctx.state) *ctx.state = call;
    }
    if (req[0] != OpReq::kAdd && call->prims) return RunFused(ctx, *call, in, out[0]);
    OpContext plain = ctx;  // the state holds this kernel's FusedCall
    plain.state = nullptr;
    ReferenceInFloat32(ref_fused, plain, attrs, in, req, out);
  };
  // bfloat16 where oneDNN runs it (AVX-512); float32 between Casts elsewhere.
  const uint32_t reduced = BFloat16Supported() ? Kernel::kBFloat16Bit : 0;
  reg->Add("Convolution", DeviceType::kCPU, WithReducedFloats({"dnnl", 20, fwd, true}, reduced));
  // oneDNN's direct convolutions block channels by the vector width.
  const auto isa = static_cast<int>(dnnl::get_effective_cpu_isa()),
             avx512 = static_cast<int>(dnnl::cpu_isa::avx512_core);
  const int block = (isa & avx512) == avx512 ? 16 : 8;
  reg->Add("_fused_Convolution", DeviceType::kCPU,
           WithReducedFloats({"dnnl", 20, fused, true, block}, reduced));
  reg->Add("_backward_Convolution", DeviceType::kCPU,
           WithReducedFloats({"dnnl", 20, bwd, true}, reduced));
}

}  // namespace onednn
}  // namespace weft
