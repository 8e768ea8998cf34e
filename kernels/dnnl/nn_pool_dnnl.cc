// oneDNN kernel of _blocked_Pooling (pass::BlockConvLayouts): 2-D max and
// avg pooling, float32 and bfloat16 (BFloat16Supported), reading and writing plain or
// channel-blocked data (data_block / out_block), forward_inference. It covers what matches MXNet's
// Pooling exactly: max with every window touching the input (valid or full convention), avg with
// the valid convention (count_include_pad either way) and global max/avg; anything else runs the
// reference kernel on unblocked temporaries. Also _contrib_quantized_pooling
// on int8 / uint8 data, plain or stored channels-last (pass::Int8ChannelsLast),
// through oneDNN's int8 pooling in NHWC (QuantizedPool).
#include <cstring>
#include <memory>
#include <vector>

#include "cpu/channels_last_bytes.h"
#include "cpu/quantized_params.h"
#include "dnnl/dnnl_util.h"
#include "nn_geometry.h"
#include "weft/channel_block.h"

namespace weft {
namespace onednn {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::pooling_forward;

struct PoolPrims {
  memory::desc src, dst;  // plain user layouts
  pooling_forward::primitive_desc pd;
  pooling_forward fwd;
};

// The primitive's algorithm for `g`, or false when oneDNN would not compute
// what MXNet computes.
bool Algorithm(const ParamValues& p, const PoolGeom& g, algorithm* alg) {
  const PoolParams& q = p.Decoded<PoolParams>();
  const bool global = q.global_pool, full = q.full_convention;
  if (g.kind == PoolKind::kMax) {
    // Every window must hold an input element (MXNet and oneDNN differ on
    // windows wholly in the padding).
    if (g.ph >= g.kh || g.pw >= g.kw) return false;
    if ((g.oh - 1) * g.sh - g.ph >= g.h || (g.ow - 1) * g.sw - g.pw >= g.w) return false;
    *alg = algorithm::pooling_max;
    return true;
  }
  if (g.kind != PoolKind::kAvg || (full && !global)) return false;
  *alg = g.count_include_pad ? algorithm::pooling_avg_include_padding
                             : algorithm::pooling_avg_exclude_padding;
  return true;
}

// How a pooling's data is stored: plain (0), channel-blocked (8, 16:
// nChw8c / nChw16c) or channels-last (kNhwc).
constexpr int64_t kNhwc = -1;

memory::desc StoredDesc(const memory::desc& plain, int64_t layout) {
  if (layout != kNhwc) return BlockedDesc(plain, layout);
  return memory::desc(plain.dims(), plain.data_type(), memory::format_tag::nhwc);
}

// The primitive reading `data` in `data_layout` (its output layout is the
// primitive's choice).
std::shared_ptr<PoolPrims> Build(const Shape& data, const Shape& out, const PoolGeom& g,
                                 algorithm alg, int64_t data_layout, memory::data_type dt) {
  auto p = std::make_shared<PoolPrims>();
  p->src = PlainDesc({data[0], data[1], g.h, g.w}, dt);
  p->dst = PlainDesc({out[0], out[1], g.oh, g.ow}, dt);
  const memory::desc dst_any(p->dst.dims(), dt, memory::format_tag::any);
  const memory::dims strides{g.sh, g.sw}, kernel{g.kh, g.kw}, pad_l{g.ph, g.pw},
      pad_r{PadRight(g.h, g.oh, g.kh, g.sh, g.ph), PadRight(g.w, g.ow, g.kw, g.sw, g.pw)};
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  pooling_forward::desc d(dnnl::prop_kind::forward_inference, alg, StoredDesc(p->src, data_layout),
                          dst_any, strides, kernel, pad_l, pad_r);
  p->pd = pooling_forward::primitive_desc(d, attr, Engine());
  p->fwd = pooling_forward(p->pd);
  return p;
}

// The cached primitive for (geometry, algorithm, source layout), or null
// when oneDNN refuses it.
std::shared_ptr<PoolPrims> Prims(const Shape& data, const Shape& out, const PoolGeom& g,
                                 algorithm alg, int64_t data_layout, memory::data_type dt) {
  static PrimitiveCache<PoolPrims> cache;
  const std::vector<int64_t> key{data[0],
                                 data[1],
                                 g.h,
                                 g.w,
                                 g.oh,
                                 g.ow,
                                 g.kh,
                                 g.kw,
                                 g.sh,
                                 g.sw,
                                 g.ph,
                                 g.pw,
                                 static_cast<int64_t>(alg),
                                 data_layout,
                                 static_cast<int64_t>(dt)};
  return cache.Get(key, [&] { return Build(data, out, g, alg, data_layout, dt); });
}

// _contrib_quantized_pooling through oneDNN's int8 pooling, which reads and
// writes NHWC (plain data is reordered in, a plain output out): max pooling,
// and average pooling where oneDNN rounds as the reference does (no padding
// and a window of an odd or power-of-two count: oneDNN multiplies by
// 1/count, which then rounds to the same level as the reference's quotient).
// False where it does not cover the call (the reference kernel runs).
bool QuantizedPool(const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<TBlob>& out) {
  const DType t = in[0].dtype;
  if ((t != DType::kUint8 && t != DType::kInt8) || in[0].shape.ndim() != 4) return false;
  const PoolGeom g = MakePoolGeom(attrs.params, in[0].shape, out[0].shape);
  algorithm alg;
  if (!Algorithm(attrs.params, g, &alg)) return false;
  const int64_t count = g.kh * g.kw;
  if (g.kind == PoolKind::kAvg && (g.ph || g.pw || !((count & 1) || (count & (count - 1)) == 0)))
    return false;
  const memory::data_type dt = t == DType::kUint8 ? memory::data_type::u8 : memory::data_type::s8;
  auto p = Prims(in[0].shape, out[0].shape, g, alg, kNhwc, dt);
  if (!p || std::strncmp(p->pd.impl_info_str(), "ref", 3) == 0) return false;
  const int64_t data_layout = cpu::StoredChannelsLast(attrs, "__data_layout__") ? kNhwc : 0,
                out_layout = cpu::StoredChannelsLast(attrs, "__out_layout__") ? kNhwc : 0;
  const memory src =
      AsLayout(BlobMemory(StoredDesc(p->src, data_layout), in[0]), p->pd.src_desc(), 0);
  const OutputArg dst(BlobMemory(StoredDesc(p->dst, out_layout), out[0]), p->pd.dst_desc(),
                      OpReq::kWrite, 2);
  Execute(p->fwd, p->pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst.target}});
  dst.Finish();
  for (int i : {1, 2}) out[i].data<float>()[0] = cpu::Scalar(in[i]);
  return true;
}

}  // namespace

void RegisterNNPoolDnnl(KernelRegistry* reg) {
  InitDnnl();
  KernelFn ref = ReferenceKernel(*reg, "_blocked_Pooling");
  auto fwd = [ref](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    const SlotBlocks blocks = BlockedSlots(attrs, in.size());
    const int64_t db = blocks.in[0], ob = blocks.out[0];
    const Shape data = blocks.Input(0, in[0].shape, "_blocked_Pooling input 'data'");
    const Shape y = blocks.Output(0, out[0].shape, "_blocked_Pooling output 0");
    algorithm alg;
    const DType t = in[0].dtype;
    const bool typed = t == DType::kFloat32 || (t == DType::kBFloat16 && BFloat16Supported());
    if (typed && data.ndim() == 4 && BlockCovered(db, 4) && BlockCovered(ob, 4)) {
      const PoolGeom g = MakePoolGeom(attrs.params, data, y);
      if (Algorithm(attrs.params, g, &alg)) {
        if (auto p = Prims(data, y, g, alg, db, DataType(t))) {
          const memory src =
              AsLayout(BlobMemory(BlockedDesc(p->src, db), in[0]), p->pd.src_desc(), 0);
          const OutputArg dst(BlobMemory(BlockedDesc(p->dst, ob), out[0]), p->pd.dst_desc(), req[0],
                              2);
          Execute(p->fwd, p->pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst.target}});
          dst.Finish();
          return;
        }
      }
    }
    ReferenceInFloat32(ref, ctx, attrs, in, req, out);
  };
  const uint32_t reduced = BFloat16Supported() ? Kernel::kBFloat16Bit : 0;
  reg->Add("_blocked_Pooling", DeviceType::kCPU,
           WithReducedFloats({"dnnl", 20, fwd, true}, reduced));
  KernelFn ref_int8 = ReferenceKernel(*reg, "_contrib_quantized_pooling");
  auto int8 = [ref_int8](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (!QuantizedPool(attrs, in, out)) ref_int8(ctx, attrs, in, req, out);
  };
  reg->Add("_contrib_quantized_pooling", DeviceType::kCPU, {"dnnl", 20, int8});
}

}  // namespace onednn
}  // namespace weft
