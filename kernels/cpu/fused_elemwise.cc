// CPU kernel of _fused_elemwise (weft/fused_elemwise.h): the chain's steps
// run over one tile of kTile elements after another, each step through the
// highest-priority CPU kernel of its op on the tile's range, intermediate
// results in a per-thread buffer that stays in cache. Tiles are split over
// the OpenMP team; the steps' own loops run serially on a tile. The decoded
// steps are kept in the bound call's state.
#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"
#include "weft/fused_elemwise.h"
#include "weft/status.h"

namespace weft {
namespace cpu {

namespace {

constexpr int64_t kTile = 4096;

struct Chain {
  std::vector<ElemwiseStep> steps;
  std::vector<KernelFn> fns;
};

std::shared_ptr<Chain> Decode(const OpRegistry& ops, const KernelRegistry& kernels,
                              const NodeAttrs& attrs) {
  auto c = std::make_shared<Chain>();
  c->steps = DecodeElemwiseSteps(ops, attrs);
  for (const ElemwiseStep& s : c->steps) {
    const Kernel* k = kernels.Find(s.attrs.op->name, DeviceType::kCPU);
    if (!k)
      Fail(StatusCode::kNotImplemented, "_fused_elemwise (node '", attrs.name, "'): operator ",
           s.attrs.op->name, " has no CPU kernel");
    c->fns.push_back(k->fn);
  }
  return c;
}

TBlob Range(const TBlob& b, int64_t begin, int64_t len) {
  TBlob r = b;
  r.dptr = static_cast<char*>(b.dptr) + begin * static_cast<int64_t>(DTypeSize(b.dtype));
  r.shape = Shape{len};
  return r;
}

void Run(const Chain& c, const OpContext& ctx, const std::vector<TBlob>& in, OpReq req,
         const TBlob& out) {
  const int64_t n = out.Size(), tiles = (n + kTile - 1) / kTile;
  const size_t esz = DTypeSize(out.dtype);
  std::exception_ptr error;
#pragma omp parallel if (n >= kParallelGrain)
  {
    thread_local std::vector<char> buf;  // no allocation per call in steady state
    buf.resize(static_cast<size_t>(kTile) * esz);
#pragma omp for schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      try {
        const int64_t begin = t * kTile, len = std::min(kTile, n - begin);
        const TBlob tmp{buf.data(), Shape{len}, out.dtype, out.ctx};
        TBlob prev;
        for (size_t s = 0; s < c.steps.size(); ++s) {
          const bool last = s + 1 == c.steps.size();
          std::vector<TBlob> args;
          for (int a : c.steps[s].args)
            args.push_back(a < 0 ? prev : Range(in[static_cast<size_t>(a)], begin, len));
          const TBlob dst = last ? Range(out, begin, len) : tmp;
          c.fns[s](ctx, c.steps[s].attrs, args, {last ? req : OpReq::kWrite}, {dst});
          prev = dst;
        }
      } catch (...) {
#pragma omp critical(weft_fused_elemwise_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace

void RegisterFusedElemwiseCpu(const OpRegistry& ops, KernelRegistry* reg) {
  const OpRegistry* o = &ops;
  const KernelRegistry* k = reg;  // owns this kernel, so it outlives it
  reg->Add("_fused_elemwise", DeviceType::kCPU,
           {"cpu", 0,
            [o, k](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
              if (req[0] == OpReq::kNull) return;
              std::shared_ptr<Chain> chain;
              if (ctx.state && *ctx.state) {
                chain = std::static_pointer_cast<Chain>(*ctx.state);
              } else {
                chain = Decode(*o, *k, attrs);
                if (ctx.state) *ctx.state = chain;
              }
              Run(*chain, ctx, in, req[0], out[0]);
            },
            false});
}

}  // namespace cpu
}  // namespace weft
