// oneDNN kernel of _blocked_Pooling (pass::BlockConvLayouts): 2-D max and
// avg pooling, float32 and bfloat16 (BFloat16Supported), reading and writing plain or
// channel-blocked data (data_block / out_block), forward_inference. It covers what matches MXNet's
// Pooling exactly: max with every window touching the input (valid or full convention), avg with
// the valid convention (count_include_pad either way) and global max/avg; anything else runs the
// reference kernel on unblocked temporaries.
#include <memory>
#include <vector>

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

// The primitive reading `data` in the layout of `data_block` (its output
// layout is the primitive's choice).
std::shared_ptr<PoolPrims> Build(const Shape& data, const Shape& out, const PoolGeom& g,
                                 algorithm alg, int64_t data_block, memory::data_type dt) {
  auto p = std::make_shared<PoolPrims>();
  p->src = PlainDesc({data[0], data[1], g.h, g.w}, dt);
  p->dst = PlainDesc({out[0], out[1], g.oh, g.ow}, dt);
  const memory::desc dst_any(p->dst.dims(), dt, memory::format_tag::any);
  const memory::dims strides{g.sh, g.sw}, kernel{g.kh, g.kw}, pad_l{g.ph, g.pw},
      pad_r{PadRight(g.h, g.oh, g.kh, g.sh, g.ph), PadRight(g.w, g.ow, g.kw, g.sw, g.pw)};
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  pooling_forward::desc d(dnnl::prop_kind::forward_inference, alg, BlockedDesc(p->src, data_block),
                          dst_any, strides, kernel, pad_l, pad_r);
  p->pd = pooling_forward::primitive_desc(d, attr, Engine());
  p->fwd = pooling_forward(p->pd);
  return p;
}

// The cached primitive for (geometry, algorithm, source layout), or null
// when oneDNN refuses it.
std::shared_ptr<PoolPrims> Prims(const Shape& data, const Shape& out, const PoolGeom& g,
                                 algorithm alg, int64_t data_block, DType t) {
  static PrimitiveCache<PoolPrims> cache;
  const memory::data_type dt = DataType(t);
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
                                 data_block,
                                 static_cast<int64_t>(dt)};
  return cache.Get(key, [&] { return Build(data, out, g, alg, data_block, dt); });
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
        if (auto p = Prims(data, y, g, alg, db, t)) {
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
}

}  // namespace onednn
}  // namespace weft
