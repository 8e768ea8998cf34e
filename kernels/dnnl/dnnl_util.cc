// Plumbing of the oneDNN backend (see dnnl_util.h).
#include "dnnl/dnnl_util.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "weft/mutex.h"
#include "weft/status.h"

namespace weft {
namespace onednn {

void InitDnnl() {
  static const bool done = [] {
    dnnl_set_jit_profiling_flags(0);
    (void)Engine();
    // Every transpose combination, small and large (oneDNN picks kernels by
    // size), so their one-time JIT set-up happens now. On a thread of its
    // own: the sgemm opens an OpenMP team, and a team left behind on the
    // caller's thread (idle, but still counted by libgomp) puts libgomp
    // into its throttled mode whenever an engine worker's team runs too
    // (more OpenMP threads than cores), where team threads sleep between
    // parallel regions instead of spinning: ResNet-18 b1 on 2 threads ran
    // 1.45x slower on the threaded engine than inline (docs/engine.md).
    // The team of a thread that exits is released with it.
    std::thread([] {
      std::vector<float> a(256 * 256, 1.0f), c(256 * 256);
      for (int64_t s : {1, 3, 8, 64, 256})
        for (char ta : {'N', 'T'})
          for (char tb : {'N', 'T'})
            dnnl_sgemm(ta, tb, s, s, s, 1.0f, a.data(), s, a.data(), s, 0.0f, c.data(), s);
    }).join();
    return true;
  }();
  (void)done;
}

const dnnl::engine& Engine() {
  static const dnnl::engine* eng = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *eng;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream s(Engine());
  return s;
}

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct ScratchBuffer {
  std::unique_ptr<void, FreeDeleter> ptr;
  size_t bytes = 0;
};

}  // namespace

void* Scratch(int slot, size_t bytes) {
  thread_local ScratchBuffer buffers[kScratchSlots];
  WEFT_CHECK(slot >= 0 && slot < kScratchSlots) << "dnnl scratch slot " << slot;
  ScratchBuffer& b = buffers[slot];
  if (b.bytes < bytes) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    b.ptr.reset(std::aligned_alloc(64, rounded));
    if (!b.ptr) {
      b.bytes = 0;
      Fail(StatusCode::kOutOfMemory, "dnnl backend: cannot allocate ", rounded, " scratch bytes");
    }
    b.bytes = rounded;
  }
  return b.ptr.get();
}

dnnl::memory AsLayout(const dnnl::memory& user, const dnnl::memory::desc& want, int slot) {
  if (user.get_desc() == want) return user;
  dnnl::memory src = user, m(want, Engine(), Scratch(slot, want.get_size()));
  dnnl::reorder(src, m).execute(ThreadStream(), src, m);
  return m;
}

namespace {

// One input reordered into a backend layout, owned by the states of the
// calls using it.
struct CachedInput {
  const void* src = nullptr;
  uint64_t version = 0;
  dnnl::memory mem;  // oneDNN-allocated, in the wanted layout
};

// Reordered inputs shared between calls (VersionedShare).
VersionedShare<CachedInput>& Shared() {
  static auto* shared = new VersionedShare<CachedInput>();  // leaked: used during exit
  return *shared;
}

}  // namespace

dnnl::memory CachedLayout(const OpContext& ctx, int input, const dnnl::memory& user,
                          const dnnl::memory::desc& want, int slot) {
  if (user.get_desc() == want) return user;
  if (!ctx.state || !ctx.input_versions) return AsLayout(user, want, slot);
  auto* c = static_cast<CachedInput*>(ctx.state->get());
  const uint64_t version = ctx.input_versions[input];
  const void* src = user.get_data_handle();
  if (c && c->src == src && c->version == version && c->mem.get_desc() == want) return c->mem;
  auto same = [&want](const CachedInput& c) { return c.mem.get_desc() == want; };
  if (auto shared = Shared().Find(src, version, same)) {
    *ctx.state = shared;
    return shared->mem;
  }
  auto fresh = std::make_shared<CachedInput>();
  fresh->src = src;
  fresh->version = version;
  fresh->mem = dnnl::memory(want, Engine());
  dnnl::memory from = user;
  dnnl::reorder(from, fresh->mem).execute(ThreadStream(), from, fresh->mem);
  ThreadStream().wait();
  std::shared_ptr<CachedInput> kept = Shared().Add(src, version, fresh, same);
  *ctx.state = kept;
  return kept->mem;
}

OutputArg::OutputArg(const dnnl::memory& u, const dnnl::memory::desc& want, OpReq r, int slot)
    : user(u), req(r) {
  const bool direct = (r == OpReq::kWrite || r == OpReq::kInplace) && u.get_desc() == want;
  target = direct ? u : dnnl::memory(want, Engine(), Scratch(slot, want.get_size()));
}

void OutputArg::Finish() const {
  if (req == OpReq::kNull || target.get_data_handle() == user.get_data_handle()) return;
  dnnl::primitive_attr attr;
  if (req == OpReq::kAdd) {
    dnnl::post_ops po;
    po.append_sum(1.0f);
    attr.set_post_ops(po);
  }
  dnnl::reorder::primitive_desc pd(Engine(), target.get_desc(), Engine(), user.get_desc(), attr);
  dnnl::memory src = target, dst = user;
  dnnl::reorder(pd).execute(ThreadStream(), src, dst);
  ThreadStream().wait();
}

dnnl::memory BlobMemory(const dnnl::memory::desc& md, const TBlob& b) {
  return dnnl::memory(md, Engine(), b.dptr);
}

dnnl::memory::desc PlainDesc(const dnnl::memory::dims& dims, dnnl::memory::data_type dt) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return dnnl::memory::desc(dims, dt, strides);
}

dnnl::memory::data_type DataType(DType t) {
  WEFT_CHECK(t == DType::kFloat32 || t == DType::kBFloat16)
      << "dnnl backend: no oneDNN type for " << DTypeName(t);
  return t == DType::kFloat32 ? dnnl::memory::data_type::f32 : dnnl::memory::data_type::bf16;
}

bool BFloat16Supported() {
  static const bool yes = [] {
    const auto isa = static_cast<int>(dnnl::get_effective_cpu_isa()),
               avx512 = static_cast<int>(dnnl::cpu_isa::avx512_core);
    return (isa & avx512) == avx512;
  }();
  return yes;
}

void ReferenceInFloat32(const KernelFn& ref, const OpContext& ctx, const NodeAttrs& attrs,
                        const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                        const std::vector<TBlob>& out) {
  bool reduced = false;
  for (const auto* v : {&in, &out})
    for (const TBlob& b : *v) reduced = reduced || IsReducedFloat(b.dtype);
  if (!reduced) return ref(ctx, attrs, in, req, out);
  std::vector<std::vector<float>> wide;
  wide.reserve(in.size() + out.size());
  auto widen = [&](const TBlob& b, bool copy) {
    if (!IsReducedFloat(b.dtype)) return b;
    wide.emplace_back(static_cast<size_t>(b.Size()));
    float* w = wide.back().data();
    const size_t n = wide.back().size();
    if (copy && b.dtype == DType::kBFloat16) BFloat16ToFloat(b.data<BFloat16>(), w, n);
    if (copy && b.dtype == DType::kFloat16) HalfToFloat(b.data<Half>(), w, n);
    TBlob f = b;
    f.dtype = DType::kFloat32;
    f.dptr = w;
    return f;
  };
  std::vector<TBlob> in32, out32;
  for (const TBlob& b : in) in32.push_back(widen(b, true));
  for (size_t i = 0; i < out.size(); ++i) out32.push_back(widen(out[i], req[i] == OpReq::kAdd));
  ref(ctx, attrs, in32, req, out32);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!IsReducedFloat(out[i].dtype) || req[i] == OpReq::kNull) continue;
    const float* w = out32[i].data<float>();
    const size_t n = static_cast<size_t>(out[i].Size());
    if (out[i].dtype == DType::kBFloat16) FloatToBFloat16(w, out[i].data<BFloat16>(), n);
    if (out[i].dtype == DType::kFloat16) FloatToHalf(w, out[i].data<Half>(), n);
  }
}

int64_t PadRight(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (out - 1) * s + (k - 1) * d + 1 - in - p;
}

dnnl::memory::desc BlockedDesc(const dnnl::memory::desc& plain, int64_t block) {
  if (block == 0) return plain;
  return dnnl::memory::desc(
      plain.dims(), plain.data_type(),
      block == 8 ? dnnl::memory::format_tag::nChw8c : dnnl::memory::format_tag::nChw16c);
}

bool BlockCovered(int64_t block, int ndim) {
  return block == 0 || ((block == 8 || block == 16) && ndim == 4);
}

KernelFn ReferenceKernel(const KernelRegistry& reg, const std::string& op) {
  const Kernel* k = reg.FindBackend(op, DeviceType::kCPU, "cpu");
  WEFT_CHECK(k != nullptr) << "dnnl backend: register the cpu kernel of " << op << " first";
  return k->fn;
}

void Execute(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, dnnl::memory> args) {
  const dnnl::memory::desc sd = pd.scratchpad_desc();
  if (sd.get_size() > 0)
    args[DNNL_ARG_SCRATCHPAD] =
        dnnl::memory(sd, Engine(), Scratch(kScratchSlots - 1, sd.get_size()));
  dnnl::stream& s = ThreadStream();
  prim.execute(s, args);
  s.wait();
}

}  // namespace onednn
}  // namespace weft
