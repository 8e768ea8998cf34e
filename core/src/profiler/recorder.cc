// The profiler's recording side: one single-producer ring of fixed-size
// events per thread, drained by Dump/AggregateTable (DrainAll) or, when a
// ring fills up, by its own thread.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "profiler/profiler_internal.h"
#include "weft/mutex.h"
#include "weft/status.h"

namespace weft {
namespace profiler {
namespace internal {

std::atomic<uint32_t> g_active_mask{0};

namespace {

constexpr uint64_t kRingEvents = 4096;

struct Ring {
  explicit Ring(uint32_t id) : tid(id), slots(new Event[kRingEvents]) {}
  const uint32_t tid;
  std::unique_ptr<Event[]> slots;
  std::atomic<uint64_t> head{0};  // written by the owner thread only
  std::atomic<uint64_t> tail{0};  // written under drain_mu only
  Mutex drain_mu;
  std::atomic<bool> alive{true};
};

// The rings, thread names and overflow, leaked: threads (an engine worker
// starting, or one calling exit() inside an op) may record while static
// destructors run.
struct Shared {
  Mutex rings_mu;
  std::vector<std::shared_ptr<Ring>> rings WEFT_GUARDED_BY(rings_mu);
  Mutex names_mu;
  std::map<uint32_t, std::string> names WEFT_GUARDED_BY(names_mu);
  Mutex overflow_mu;
  std::vector<Event> overflow WEFT_GUARDED_BY(overflow_mu);  // drained by full rings
};
Shared& G() {
  static Shared* g = new Shared;
  return *g;
}
std::atomic<uint32_t> g_next_tid{1};

struct Holder {
  std::shared_ptr<Ring> ring;
  uint32_t tid = 0;
  std::vector<std::pair<std::string, int64_t>> ranges;  // open user ranges
  ~Holder() {
    if (ring) ring->alive.store(false, std::memory_order_release);
  }
};
thread_local Holder t_holder;
thread_local bool t_symbolic = false;

uint32_t ThreadId() {
  if (t_holder.tid == 0) t_holder.tid = g_next_tid.fetch_add(1, std::memory_order_relaxed);
  return t_holder.tid;
}

Ring* ThisRing() {
  if (!t_holder.ring) {
    auto ring = std::make_shared<Ring>(ThreadId());
    Shared& g = G();
    MutexLock l(&g.rings_mu);
    g.rings.push_back(ring);
    t_holder.ring = std::move(ring);
  }
  return t_holder.ring.get();
}

// Moves ring's published events to `out`. REQUIRES ring->drain_mu.
void DrainRing(Ring* ring, std::vector<Event>* out) {
  const uint64_t head = ring->head.load(std::memory_order_acquire);
  uint64_t tail = ring->tail.load(std::memory_order_relaxed);
  for (; tail < head; ++tail) {
    const Event& e = ring->slots[tail % kRingEvents];
    AddToStats(e);
    out->push_back(e);
  }
  ring->tail.store(tail, std::memory_order_release);
}

void Copy(char* dst, size_t cap, std::string_view s) {
  const size_t n = std::min(cap - 1, s.size());
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

void Push(const Event& e) {
  Ring* ring = ThisRing();
  const uint64_t head = ring->head.load(std::memory_order_relaxed);
  if (head - ring->tail.load(std::memory_order_acquire) == kRingEvents) {
    MutexLock l(&ring->drain_mu);
    std::vector<Event> moved;
    DrainRing(ring, &moved);
    Shared& g = G();
    MutexLock o(&g.overflow_mu);
    g.overflow.insert(g.overflow.end(), moved.begin(), moved.end());
  }
  Event& slot = ring->slots[head % kRingEvents];
  slot = e;
  slot.tid = ring->tid;
  ring->head.store(head + 1, std::memory_order_release);
}

Event Make(Category c, char ph, std::string_view name, Context dev) {
  Event e;
  e.cat = static_cast<uint32_t>(c);
  e.ph = ph;
  if (dev.dev_id >= 0) {
    e.dev_type = static_cast<int8_t>(dev.dev_type);
    e.dev_id = static_cast<int16_t>(dev.dev_id);
  }
  Copy(e.name, sizeof(e.name), name);
  return e;
}

}  // namespace

void DrainAll(std::vector<Event>* out) {
  Shared& g = G();
  std::vector<std::shared_ptr<Ring>> rings;
  {
    MutexLock l(&g.rings_mu);
    rings = g.rings;
  }
  {
    MutexLock o(&g.overflow_mu);
    for (const Event& e : g.overflow) out->push_back(e);  // counted when they overflowed
    g.overflow.clear();
  }
  for (const auto& ring : rings) {
    MutexLock l(&ring->drain_mu);
    DrainRing(ring.get(), out);
  }
  MutexLock l(&g.rings_mu);  // forget rings of finished threads once empty
  g.rings.erase(std::remove_if(g.rings.begin(), g.rings.end(),
                               [](const std::shared_ptr<Ring>& r) {
                                 return !r->alive.load(std::memory_order_acquire) &&
                                        r->tail.load() == r->head.load();
                               }),
                g.rings.end());
  std::stable_sort(out->begin(), out->end(),
                   [](const Event& a, const Event& b) { return a.ts < b.ts; });
}

std::map<uint32_t, std::string> ThreadNames() {
  Shared& g = G();
  MutexLock l(&g.names_mu);
  return g.names;
}

}  // namespace internal

using internal::Event;

int64_t NowNs() {
  static const auto epoch = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              epoch)
      .count();
}

void RecordComplete(Category c, std::string_view name, std::string_view arg1, std::string_view arg2,
                    Context dev, int64_t begin_ns, int64_t end_ns, int64_t value) {
  Event e = internal::Make(c, 'X', name, dev);
  e.value = value;
  e.ts = begin_ns;
  e.dur = std::max<int64_t>(0, end_ns - begin_ns);
  internal::Copy(e.arg1, sizeof(e.arg1), arg1);
  internal::Copy(e.arg2, sizeof(e.arg2), arg2);
  internal::Push(e);
}

void RecordInstant(Category c, std::string_view name, std::string_view arg1, Context dev,
                   int64_t value) {
  Event e = internal::Make(c, 'i', name, dev);
  e.ts = NowNs();
  e.value = value;
  internal::Copy(e.arg1, sizeof(e.arg1), arg1);
  internal::Push(e);
}

void RecordCounter(Category c, std::string_view name, Context dev, int64_t value) {
  Event e = internal::Make(c, 'C', name, dev);
  e.ts = NowNs();
  e.value = value;
  internal::Push(e);
}

void PushRange(std::string_view name) {
  internal::t_holder.ranges.emplace_back(std::string(name), NowNs());
}

void PopRange() {
  auto& ranges = internal::t_holder.ranges;
  if (ranges.empty())
    Fail(StatusCode::kInvalidArgument, "profiler range pop: this thread has no open range");
  auto [name, begin] = std::move(ranges.back());
  ranges.pop_back();
  if (Active(Category::kUser))
    RecordComplete(Category::kUser, name, {}, {}, Scope::NoDevice(), begin, NowNs());
}

void SetThreadName(std::string_view name) {
  const uint32_t tid = internal::ThreadId();
  internal::Shared& g = internal::G();
  MutexLock l(&g.names_mu);
  g.names[tid] = std::string(name);
}

SymbolicScope::SymbolicScope() : prev_(internal::t_symbolic) { internal::t_symbolic = true; }
SymbolicScope::~SymbolicScope() { internal::t_symbolic = prev_; }
bool SymbolicScope::Current() { return internal::t_symbolic; }

}  // namespace profiler
}  // namespace weft
