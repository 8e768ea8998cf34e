// Shared plumbing of the optional oneDNN backend (kernels/dnnl/, built when
// CMake finds oneDNN; backend name "dnnl"): the CPU engine, a stream and
// reusable scratch buffers per thread, layout conversion between weft's
// plain row-major blobs and the layouts a oneDNN primitive asks for, and the
// fallback to the reference kernel for what the backend does not cover.
// oneDNN runs its primitives on the same OpenMP runtime as the CPU kernels
// (OMP_NUM_THREADS applies). Every function is thread-safe; the scratch
// buffers are per thread, so a kernel must not hold one across calls.
#ifndef WEFT_KERNELS_DNNL_DNNL_UTIL_H_
#define WEFT_KERNELS_DNNL_DNNL_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <omp.h>

#include <dnnl.hpp>

#include "weft/mutex.h"
#include "weft/op.h"

namespace weft {
namespace onednn {

// Sets oneDNN up once per process (idempotent); called when the backend's
// kernels are registered. It turns off oneDNN's JIT profiling hooks (ITT /
// perf maps; DNNL_JIT_PROFILE is overridden): their state is set up lazily by
// the first JIT-compiled kernel and was torn down under a kernel still
// compiling while the process exited (a crash in tests that exit without
// waiting), and it creates the engine and the sgemm kernels before the
// runtime's dependency engine exists, so they outlive it at exit.
void InitDnnl();

// The process-wide CPU engine (created on first use).
const dnnl::engine& Engine();
// This thread's stream on Engine().
dnnl::stream& ThreadStream();

// This thread's scratch buffer number `slot` (0..kScratchSlots-1), grown to
// at least `bytes` and 64-byte aligned; valid until the next call with the
// same slot on this thread.
constexpr int kScratchSlots = 6;
void* Scratch(int slot, size_t bytes);

// `user` (plain memory on Engine()) as memory of layout `want`: `user`
// itself when the layouts match, else a copy reordered into scratch `slot`.
dnnl::memory AsLayout(const dnnl::memory& user, const dnnl::memory::desc& want, int slot);

// Like AsLayout for input `input` of a bound call: the reordered copy is
// kept in ctx.state and reused while the input's version and address are
// unchanged (weights reordered once per bind, not per call). Falls back to
// AsLayout when the call has no state (one-off imperative calls). The call's
// state holds one cached input: use it for one input per kernel. Calls of
// other executors reading the same array at the same version share the
// reordered copy (a predictor's executors hold one copy of each weight).
dnnl::memory CachedLayout(const OpContext& ctx, int input, const dnnl::memory& user,
                          const dnnl::memory::desc& want, int slot);

// Where a primitive writes an output of layout `want` destined for `user`
// under `req`: `user` itself for kWrite/kInplace when the layouts match,
// else scratch `slot`. Finish() then moves the result into `user`
// (reordering, and adding to it for kAdd).
struct OutputArg {
  dnnl::memory user, target;
  OpReq req = OpReq::kWrite;
  OutputArg(const dnnl::memory& user, const dnnl::memory::desc& want, OpReq req, int slot);
  void Finish() const;
};

// The right padding that makes a oneDNN window op's output extent equal
// `out` for input extent `in`, kernel `k`, stride `s`, left padding `p` and
// dilation `d` (MXNet's floor or ceil conventions; may be below `p`).
int64_t PadRight(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d = 1);

// `b`'s data as memory of layout `md` on Engine() (no copy).
dnnl::memory BlobMemory(const dnnl::memory::desc& md, const TBlob& b);

// A memory descriptor of `dims` in plain row-major order.
dnnl::memory::desc PlainDesc(const dnnl::memory::dims& dims,
                             dnnl::memory::data_type dt = dnnl::memory::data_type::f32);

// oneDNN's type of float32 (f32) or bfloat16 (bf16); other dtypes are a bug.
dnnl::memory::data_type DataType(DType t);

// Whether this CPU runs oneDNN's bfloat16 primitives (AVX-512: natively with
// AVX512-BF16, emulated on plain AVX-512); the kernels then take bfloat16
// data (Kernel::reduced_dtypes), and AVX2 machines compute it in float32.
bool BFloat16Supported();

// Runs `ref` (a reference kernel, which computes float32 and float64) for
// what oneDNN does not cover: on the blobs as they are, or, when some are
// bfloat16 or float16, on float32 copies of those, rounding the outputs back
// (kAdd accumulates in float32).
void ReferenceInFloat32(const KernelFn& ref, const OpContext& ctx, const NodeAttrs& attrs,
                        const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                        const std::vector<TBlob>& out);
// `plain` (4-D) in the channel-blocked layout nChw8c / nChw16c of `block`
// channels per block (weft/channel_block.h), or `plain` itself for block 0.
dnnl::memory::desc BlockedDesc(const dnnl::memory::desc& plain, int64_t block);
// Whether BlockedDesc covers `block` for data of logical rank `ndim`.
bool BlockCovered(int64_t block, int ndim);

// The kernel `op` has in backend "cpu" of `reg` (the fallback); throws when
// the reference kernel is not registered yet.
KernelFn ReferenceKernel(const KernelRegistry& reg, const std::string& op);

// A process-wide cache of one kind of primitives by geometry key, built on
// first use; a refusal (dnnl::error from the builder: oneDNN does not cover
// the geometry) is cached as null, so it costs once. Cleared past 512
// entries, which bounds what unusual workloads hold. Thread-safe.
template <typename Prims>
class PrimitiveCache {
 public:
  // `key` describes the geometry; the calling thread's OpenMP team size is
  // added to it, since a primitive keeps the team it was created for (the
  // engines shrink it under contention: core/src/engine/thread_budget.h).
  template <typename BuildFn>
  std::shared_ptr<Prims> Get(std::vector<int64_t> key, BuildFn build) {
    key.push_back(omp_get_max_threads());
    {
      MutexLock lock(&mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) return it->second;
    }
    std::shared_ptr<Prims> p;
    try {
      p = build();
    } catch (const dnnl::error&) {
      p = nullptr;
    }
    MutexLock lock(&mu_);
    if (cache_.size() >= 512) cache_.clear();
    cache_[key] = p;
    return p;
  }

 private:
  Mutex mu_;
  std::map<std::vector<int64_t>, std::shared_ptr<Prims>> cache_ WEFT_GUARDED_BY(mu_);
};

// Values derived from one version of one array (a weight reordered into a
// layout, an RNN's weights packed), shared between the bound calls that
// read that array at that version (a predictor's executors), so the
// process holds one copy. Keyed by source address and version; an entry
// lives while some call's state holds it (weak references), and such a
// state's executor holds the source array, so no other array can sit at
// that address meanwhile. `same(a, b)` tells entries of one key apart (for
// a layout: the descriptor). Thread-safe.
template <typename T>
class VersionedShare {
 public:
  template <typename Same>
  std::shared_ptr<T> Find(const void* src, uint64_t version, Same same) {
    MutexLock lock(&mu_);
    auto it = entries_.find({src, version});
    if (it == entries_.end()) return nullptr;
    for (const auto& w : it->second)
      if (auto v = w.lock())
        if (same(*v)) return v;
    return nullptr;
  }
  // Adds `v`, or returns the equal entry another call added meanwhile.
  template <typename Same>
  std::shared_ptr<T> Add(const void* src, uint64_t version, std::shared_ptr<T> v, Same same) {
    MutexLock lock(&mu_);
    for (const auto& w : entries_[{src, version}])
      if (auto other = w.lock())
        if (same(*other)) return other;
    for (auto it = entries_.begin(); it != entries_.end();) {  // drop expired entries
      auto& list = it->second;
      list.erase(
          std::remove_if(list.begin(), list.end(), [](const auto& w) { return w.expired(); }),
          list.end());
      it = list.empty() ? entries_.erase(it) : std::next(it);
    }
    entries_[{src, version}].push_back(v);
    return v;
  }

 private:
  Mutex mu_;
  std::map<std::pair<const void*, uint64_t>, std::vector<std::weak_ptr<T>>> entries_
      WEFT_GUARDED_BY(mu_);
};

// Runs `prim` with `args` on this thread's stream and waits for it, with a
// user-managed scratchpad of `pd` in scratch slot kScratchSlots - 1.
void Execute(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, dnnl::memory> args);

}  // namespace onednn
}  // namespace weft

#endif  // WEFT_KERNELS_DNNL_DNNL_UTIL_H_
