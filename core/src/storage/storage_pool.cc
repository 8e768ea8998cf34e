#include "weft/storage.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "storage/storage_testing.h"
#include "weft/engine.h"
#include "weft/profiler.h"
#include "weft/status.h"

namespace weft {

Chunk::Chunk(std::shared_ptr<StoragePool> pool, void* dptr, size_t bytes)
    : pool_(std::move(pool)), var_(Engine::Get()->NewVariable()), dptr_(dptr), bytes_(bytes) {}

Chunk::Chunk(Context ctx, void* dptr, size_t bytes)
    : borrowed_ctx_(ctx), var_(Engine::Get()->NewVariable()), dptr_(dptr), bytes_(bytes) {}

Chunk::~Chunk() {
  if (!pool_) {  // borrowed: nothing to release
    Engine::Get()->DeleteVariable([](RunContext) {}, borrowed_ctx_, var_);
    return;
  }
  // The callback owns the pool reference, so the pool outlives the release.
  std::shared_ptr<StoragePool> pool = std::move(pool_);
  void* dptr = dptr_;
  size_t bytes = bytes_;
  Context ctx = pool->ctx();
  Engine::Get()->DeleteVariable([pool, dptr, bytes](RunContext) { pool->Release(dptr, bytes); },
                                ctx, var_);
}

Context Chunk::ctx() const { return pool_ ? pool_->ctx() : borrowed_ctx_; }

namespace {

std::atomic<size_t> g_max_alloc{0};  // 0: the default

size_t DefaultMaxAlloc() {
  static const size_t bytes = [] {
    if (const char* env = std::getenv("WEFT_MAX_ALLOC_BYTES")) {
      char* end = nullptr;
      unsigned long long v = std::strtoull(env, &end, 10);
      if (end != env && *end == '\0' && v > 0) return static_cast<size_t>(v);
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return size_t{1} << 40;
    return static_cast<size_t>(pages) * static_cast<size_t>(page);
  }();
  return bytes;
}

}  // namespace

size_t MaxAllocBytes() {
  const size_t set = g_max_alloc.load(std::memory_order_relaxed);
  return set ? set : DefaultMaxAlloc();
}

void SetMaxAllocBytes(size_t bytes) { g_max_alloc.store(bytes, std::memory_order_relaxed); }

void CheckAllocBytes(size_t bytes, const std::string& what) {
  const size_t limit = MaxAllocBytes();
  if (bytes > limit)
    Fail(StatusCode::kOutOfMemory, "cannot allocate ", what, ": ", bytes,
         " bytes asked, the limit for one allocation is ", limit,
         " bytes (physical memory, or WEFT_MAX_ALLOC_BYTES)");
}

size_t StoragePool::RoundSize(size_t bytes) {
  constexpr size_t kPage = 64;
  constexpr size_t kLarge = size_t{1} << 20;
  if (bytes == 0) return kPage;
  if (bytes > (size_t{1} << 62)) return bytes;  // no rounding can fit; the caller refuses it
  if (bytes <= kLarge) return (bytes + kPage - 1) / kPage * kPage;
  // Large blocks round to 1/8 of the next power of two to bound waste.
  size_t p = kLarge;
  while (p < bytes) p <<= 1;
  size_t step = p / 8;
  return (bytes + step - 1) / step * step;
}

namespace {
Mutex g_fault_mu;
size_t g_fault_next WEFT_GUARDED_BY(g_fault_mu) = 0;   // calls until the next refusal; 0 off
size_t g_fault_left WEFT_GUARDED_BY(g_fault_mu) = 0;   // refusals left after the next
size_t g_fault_count WEFT_GUARDED_BY(g_fault_mu) = 0;  // refusals since set

// Throws when the fault-injection hook refuses this allocation.
void CheckFaultHook(size_t bytes) {
  MutexLock l(&g_fault_mu);
  if (g_fault_next == 0 || --g_fault_next > 0) return;
  if (g_fault_left > 0) {
    --g_fault_left;
    g_fault_next = 1;
  }
  ++g_fault_count;
  Fail(StatusCode::kOutOfMemory, "cannot allocate ", bytes,
       " bytes: refused by the fault-injection test hook");
}
}  // namespace

void SetAllocFailureForTesting(size_t nth, size_t count) {
  MutexLock l(&g_fault_mu);
  g_fault_next = nth;
  g_fault_left = nth > 0 && count > 0 ? count - 1 : 0;
  g_fault_count = 0;
}

size_t AllocFailuresForTesting() {
  MutexLock l(&g_fault_mu);
  return g_fault_count;
}

std::shared_ptr<Chunk> StoragePool::Alloc(size_t bytes) {
  CheckAllocBytes(bytes, StrCat("a block on ", ctx_.ToString()));
  CheckFaultHook(bytes);
  size_t size = RoundSize(bytes);
  void* ptr = nullptr;
  {
    MutexLock lock(&mu_);
    auto it = free_.find(size);
    if (it != free_.end()) {
      ptr = it->second;
      free_.erase(it);
      stats_.pooled_bytes -= size;
      stats_.num_reuses++;
    }
  }
  if (!ptr) {
    try {
      ptr = api_->Alloc(ctx_, size);
    } catch (const Error&) {
      // Retry once after returning every pooled block to the device.
      ReleasePooled();
      ptr = api_->Alloc(ctx_, size);
    }
    MutexLock lock(&mu_);
    stats_.num_allocs++;
  }
  size_t live = 0;
  {
    MutexLock lock(&mu_);
    live = stats_.live_bytes += size;
  }
  RecordMemory("alloc", size, live);
  return std::make_shared<Chunk>(shared_from_this(), ptr, size);
}

void StoragePool::Release(void* dptr, size_t bytes) {
  size_t live = 0;
  {
    MutexLock lock(&mu_);
    live = stats_.live_bytes -= bytes;
    stats_.pooled_bytes += bytes;
    free_.emplace(bytes, dptr);
  }
  RecordMemory("free", bytes, live);
}

void StoragePool::RecordMemory(const char* what, size_t bytes, size_t live) const {
  if (!profiler::Active(profiler::Category::kMemory)) return;
  profiler::RecordInstant(profiler::Category::kMemory, what, {}, ctx_, static_cast<int64_t>(bytes));
  profiler::RecordCounter(profiler::Category::kMemory, "live bytes", ctx_,
                          static_cast<int64_t>(live));
}

void StoragePool::ReleasePooled() {
  std::multimap<size_t, void*> blocks;
  {
    MutexLock lock(&mu_);
    blocks.swap(free_);
    stats_.pooled_bytes = 0;
  }
  for (auto& kv : blocks) api_->Free(ctx_, kv.second);
}

StorageStats StoragePool::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

StoragePool::~StoragePool() { ReleasePooled(); }

}  // namespace weft
