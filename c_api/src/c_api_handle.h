// Handle tables: how opaque C handles map to C++ objects.
//
// A handle given to C callers is never a pointer to memory. It is an integer
// that encodes (type tag, slot generation, slot index), cast to the opaque
// pointer type; the library never dereferences it. A `HandleTable<T, kTag>`
// owns one `std::shared_ptr<T>` per occupied slot. Freeing a handle empties
// its slot and bumps the slot's generation, so a stale copy of the handle (use
// after free, double free), a handle of another type (wrong tag) or any other
// integer (e.g. a real pointer, whose top byte is 0) is detected and rejected
// instead of being undefined behaviour. A slot whose generation would wrap is
// retired, so a stale handle can never alias a later object.
//
// Every table is thread-safe (one mutex per table). `Lookup` returns a
// shared_ptr, so an object stays alive for the rest of a call even if another
// thread frees its handle meanwhile. Tables are created on first use and
// deliberately leaked, so handles may be freed during process exit.
//
// Adding a handle type: a new `HandleTag` value and name, and a
// `HandleTraits<WeftX>` specialisation (see c_api_internal.h).
#ifndef WEFT_C_API_SRC_C_API_HANDLE_H_
#define WEFT_C_API_SRC_C_API_HANDLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "weft/status.h"

namespace weft {
namespace capi {

// The type encoded in a handle. 0 is never used, so no handle is NULL.
enum class HandleTag : uint32_t {
  kNDArray = 1,
  // Future handle types (kSymbol, kExecutor, ...) take the next values.
};

// The C type name of `tag` ("WeftNDArray"), or null for an unknown tag.
const char* HandleTagName(uint32_t tag);

// Occupied slots over every table (weft_live_handle_count).
std::atomic<size_t>& LiveHandleCounter();

// The bit layout of an encoded handle: [tag | generation | index].
struct HandleLayout {
  static constexpr int kWordBits = static_cast<int>(sizeof(uintptr_t) * 8);
  static constexpr int kIndexBits = kWordBits == 64 ? 32 : 18;
  static constexpr int kGenBits = kWordBits == 64 ? 24 : 10;
  static constexpr int kTagBits = kWordBits - kIndexBits - kGenBits;  // 8 (or 4)
  static constexpr uintptr_t kIndexMask = (uintptr_t{1} << kIndexBits) - 1;
  static constexpr uintptr_t kGenMask = (uintptr_t{1} << kGenBits) - 1;
  static constexpr uintptr_t kTagMask = (uintptr_t{1} << kTagBits) - 1;

  static uintptr_t Encode(uint32_t tag, uint32_t gen, uint32_t index) {
    return (static_cast<uintptr_t>(tag) << (kIndexBits + kGenBits)) |
           (static_cast<uintptr_t>(gen) << kIndexBits) | static_cast<uintptr_t>(index);
  }
  static uint32_t Tag(uintptr_t h) {
    return static_cast<uint32_t>((h >> (kIndexBits + kGenBits)) & kTagMask);
  }
  static uint32_t Gen(uintptr_t h) { return static_cast<uint32_t>((h >> kIndexBits) & kGenMask); }
  static uint32_t Index(uintptr_t h) { return static_cast<uint32_t>(h & kIndexMask); }
};

// The slot table of one handle type. Generations start at 1 (a handle with
// generation 0 is never valid).
template <typename T, HandleTag kTag>
class HandleTable {
 public:
  // The process-wide table of this type.
  static HandleTable& Global() {
    static HandleTable* table = new HandleTable();  // leaked: usable during exit
    return *table;
  }

  // Stores `obj` and returns its encoded handle. Throws Error(kOutOfMemory)
  // when every index is in use.
  uintptr_t Insert(std::shared_ptr<T> obj) {
    WEFT_CHECK(obj) << "inserting a null object into a handle table";
    std::lock_guard<std::mutex> lock(mu_);
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() > HandleLayout::kIndexMask)
        Fail(StatusCode::kOutOfMemory, "too many live ", HandleTagName(static_cast<uint32_t>(kTag)),
             " handles (", slots_.size(), ")");
      free_.reserve(slots_.size() + 1);  // so Remove never allocates
      slots_.emplace_back();
      index = static_cast<uint32_t>(slots_.size() - 1);
    }
    Slot& s = slots_[index];
    s.obj = std::move(obj);
    ++live_;
    LiveHandleCounter().fetch_add(1, std::memory_order_relaxed);
    return HandleLayout::Encode(static_cast<uint32_t>(kTag), s.gen, index);
  }

  // The object of `h`, or null when `h` is not a live handle of this table.
  std::shared_ptr<T> Lookup(uintptr_t h) const {
    std::lock_guard<std::mutex> lock(mu_);
    const Slot* s = Find(h);
    return s ? s->obj : nullptr;
  }

  // Empties the slot of `h` and returns its object (destroyed by the caller,
  // outside the lock), or null when `h` is not a live handle of this table.
  std::shared_ptr<T> Remove(uintptr_t h) {
    std::lock_guard<std::mutex> lock(mu_);
    Slot* s = const_cast<Slot*>(Find(h));
    if (!s) return nullptr;
    std::shared_ptr<T> obj = std::move(s->obj);
    s->obj.reset();
    // Bump the generation; retire the slot rather than wrap to a used value.
    if (s->gen < HandleLayout::kGenMask) {
      ++s->gen;
      free_.push_back(HandleLayout::Index(h));
    } else {
      s->gen = 0;  // never matches a handle again
    }
    --live_;
    LiveHandleCounter().fetch_sub(1, std::memory_order_relaxed);
    return obj;
  }

  // Number of occupied slots.
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return live_;
  }

 private:
  struct Slot {
    std::shared_ptr<T> obj;
    uint32_t gen = 1;
  };

  HandleTable() = default;

  // REQUIRES: mu_ held.
  const Slot* Find(uintptr_t h) const {
    if (HandleLayout::Tag(h) != static_cast<uint32_t>(kTag)) return nullptr;
    uint32_t index = HandleLayout::Index(h);
    if (index >= slots_.size()) return nullptr;
    const Slot& s = slots_[index];
    if (!s.obj || s.gen == 0 || s.gen != HandleLayout::Gen(h)) return nullptr;
    return &s;
  }
  mutable std::mutex mu_;
  std::vector<Slot> slots_;     // GUARDED_BY(mu_)
  std::vector<uint32_t> free_;  // GUARDED_BY(mu_): empty slots that may be reused
  size_t live_ = 0;             // GUARDED_BY(mu_)
};

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_HANDLE_H_
