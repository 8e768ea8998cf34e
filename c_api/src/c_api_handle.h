// The handle registry of the C ABI: every opaque handle type, the C++ object
// it owns, and the one way handles are made, resolved and freed.
//
// A handle given to C callers is never a pointer to memory. It is an integer
// that encodes (kind, slot generation, slot index), cast to the opaque
// pointer type; the library never dereferences it. `HandleKind` lists every
// handle type once, `HandleKindName` names it ("WeftNDArray"), and one
// `HandleTraits<WeftX>` specialisation below ties the C type to its kind and
// C++ object. Each kind has one `HandleTable`, which owns one
// `std::shared_ptr<Object>` per occupied slot. Freeing a handle empties its
// slot and bumps the slot's generation, so a stale copy of the handle (use
// after free, double free), a handle of another kind, or any other integer
// (e.g. a real pointer, whose top byte is 0) is detected and rejected with
// "argument 'x' is a <given> handle, expected a <wanted> handle" or "argument
// 'x' is a freed or invalid <wanted> handle" instead of being undefined
// behaviour. A slot whose generation would wrap is retired, so a stale handle
// can never alias a later object.
//
// Every table is thread-safe (one mutex per table). `GetObject` returns a
// shared_ptr, so an object stays alive for the rest of a call even if
// another thread frees its handle meanwhile. Tables are created on first use
// and deliberately leaked, so handles may be freed during process exit. The
// occupied slots of all tables are counted for weft_live_handle_count().
//
// Adding a handle type: a `HandleKind` value before kCount, its name in
// HandleKindName (c_api_handle.cc) and a WEFT_CAPI_HANDLE line below; then use
// NewHandle / GetObject / TakeHandle / FreeHandle (c_api_internal.h).
#ifndef WEFT_C_API_SRC_C_API_HANDLE_H_
#define WEFT_C_API_SRC_C_API_HANDLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "weft/c_api.h"
#include "weft/mutex.h"
#include "weft/status.h"

namespace weft {

class NDArray;
struct NDArrayList;
class Executor;
class DataIter;
class Metric;
class Module;
class Predictor;
class CachedOp;

namespace capi {

// The kind encoded in a handle. 0 is never used, so no handle is NULL.
enum class HandleKind : uint32_t {
  kNone = 0,
  kNDArray,
  kNDArrayList,
  kBuffer,
  kSymbol,
  kStringList,
  kShapeResult,
  kTypeResult,
  kEngineVar,
  kEngineCompletion,
  kExecutor,
  kExecutorOptions,
  kInitializer,
  kOptimizer,
  kDataIter,
  kMetric,
  kModule,
  kPredictor,
  kKVStore,
  kCachedOp,
  kTrainer,
  kFitSession,
  kRecordIOWriter,
  kRecordIOReader,
  kCount  // not a kind: the number of values above
};

// The C type name of `kind` ("WeftNDArray"), or null for kNone and values
// that are not a kind.
const char* HandleKindName(uint32_t kind);

// Occupied slots over every table (weft_live_handle_count).
std::atomic<size_t>& LiveHandleCounter();

// The bit layout of an encoded handle: [kind | generation | index].
struct HandleLayout {
  static constexpr int kWordBits = static_cast<int>(sizeof(uintptr_t) * 8);
  static constexpr int kIndexBits = kWordBits == 64 ? 32 : 17;
  static constexpr int kGenBits = kWordBits == 64 ? 24 : 10;
  static constexpr int kKindBits = kWordBits - kIndexBits - kGenBits;  // 8 (or 5)
  static constexpr uintptr_t kIndexMask = (uintptr_t{1} << kIndexBits) - 1;
  static constexpr uintptr_t kGenMask = (uintptr_t{1} << kGenBits) - 1;
  static constexpr uintptr_t kKindMask = (uintptr_t{1} << kKindBits) - 1;

  static uintptr_t Encode(uint32_t kind, uint32_t gen, uint32_t index) {
    return (static_cast<uintptr_t>(kind) << (kIndexBits + kGenBits)) |
           (static_cast<uintptr_t>(gen) << kIndexBits) | static_cast<uintptr_t>(index);
  }
  static uint32_t Kind(uintptr_t h) {
    return static_cast<uint32_t>((h >> (kIndexBits + kGenBits)) & kKindMask);
  }
  static uint32_t Gen(uintptr_t h) { return static_cast<uint32_t>((h >> kIndexBits) & kGenMask); }
  static uint32_t Index(uintptr_t h) { return static_cast<uint32_t>(h & kIndexMask); }
};
static_assert(static_cast<uintptr_t>(HandleKind::kCount) <= HandleLayout::kKindMask + 1,
              "HandleKind does not fit the kind bits of a handle");

// Maps each C handle type to its C++ object and kind (one line per type).
template <typename H>
struct HandleTraits;

#define WEFT_CAPI_HANDLE(CType, ObjectType, Kind) \
  template <>                                     \
  struct HandleTraits<CType> {                    \
    using Object = ObjectType;                    \
    static constexpr HandleKind kKind = Kind;     \
  }

// Objects defined in the C API's own files.
struct BufferObject;           // c_api_ndarray_io.cc
struct SymbolObject;           // c_api_symbol_internal.h
struct StringListObject;       // c_api_symbol_internal.h
struct ShapeResultObject;      // c_api_symbol_internal.h
struct TypeResultObject;       // c_api_symbol_internal.h
struct EngineVarObject;        // c_api_engine.cc
struct CompletionObject;       // c_api_engine.cc
struct ExecutorOptionsObject;  // c_api_executor_options.cc
struct InitializerObject;      // c_api_train_internal.h
struct OptimizerObject;        // c_api_train_internal.h
struct KVStoreObject;          // c_api_train_internal.h
struct TrainerObject;          // c_api_train_internal.h
struct FitSessionObject;       // c_api_train_internal.h
struct RecordIOWriterObject;   // c_api_recordio.cc
struct RecordIOReaderObject;   // c_api_recordio.cc

WEFT_CAPI_HANDLE(WeftNDArray, NDArray, HandleKind::kNDArray);
WEFT_CAPI_HANDLE(WeftNDArrayList, NDArrayList, HandleKind::kNDArrayList);
WEFT_CAPI_HANDLE(WeftBuffer, BufferObject, HandleKind::kBuffer);
WEFT_CAPI_HANDLE(WeftSymbolHandle, SymbolObject, HandleKind::kSymbol);
WEFT_CAPI_HANDLE(WeftStringList, StringListObject, HandleKind::kStringList);
WEFT_CAPI_HANDLE(WeftShapeResult, ShapeResultObject, HandleKind::kShapeResult);
WEFT_CAPI_HANDLE(WeftTypeResult, TypeResultObject, HandleKind::kTypeResult);
WEFT_CAPI_HANDLE(WeftEngineVar, EngineVarObject, HandleKind::kEngineVar);
WEFT_CAPI_HANDLE(WeftEngineCompletion, CompletionObject, HandleKind::kEngineCompletion);
WEFT_CAPI_HANDLE(WeftExecutor, Executor, HandleKind::kExecutor);
WEFT_CAPI_HANDLE(WeftExecutorOptions, ExecutorOptionsObject, HandleKind::kExecutorOptions);
WEFT_CAPI_HANDLE(WeftInitializer, InitializerObject, HandleKind::kInitializer);
WEFT_CAPI_HANDLE(WeftOptimizer, OptimizerObject, HandleKind::kOptimizer);
WEFT_CAPI_HANDLE(WeftDataIter, DataIter, HandleKind::kDataIter);
WEFT_CAPI_HANDLE(WeftMetric, Metric, HandleKind::kMetric);
WEFT_CAPI_HANDLE(WeftModule, Module, HandleKind::kModule);
WEFT_CAPI_HANDLE(WeftPredictor, Predictor, HandleKind::kPredictor);
WEFT_CAPI_HANDLE(WeftKVStore, KVStoreObject, HandleKind::kKVStore);
WEFT_CAPI_HANDLE(WeftCachedOp, CachedOp, HandleKind::kCachedOp);
WEFT_CAPI_HANDLE(WeftTrainer, TrainerObject, HandleKind::kTrainer);
WEFT_CAPI_HANDLE(WeftFitSession, FitSessionObject, HandleKind::kFitSession);
WEFT_CAPI_HANDLE(WeftRecordIOWriter, RecordIOWriterObject, HandleKind::kRecordIOWriter);
WEFT_CAPI_HANDLE(WeftRecordIOReader, RecordIOReaderObject, HandleKind::kRecordIOReader);

#undef WEFT_CAPI_HANDLE

// Throws Error(kOutOfMemory) naming `kind` (a full table).
[[noreturn]] void FailTableFull(HandleKind kind, size_t slots);

// The slot table of one handle kind. Generations start at 1 (a handle with
// generation 0 is never valid).
template <typename T, HandleKind kKind>
class HandleTable {
 public:
  // The process-wide table of this kind.
  static HandleTable& Global() {
    static HandleTable* table = new HandleTable();  // leaked: usable during exit
    return *table;
  }

  // Stores `obj` and returns its encoded handle. Throws Error(kOutOfMemory)
  // when every index is in use.
  uintptr_t Insert(std::shared_ptr<T> obj) {
    WEFT_CHECK(obj) << "inserting a null object into a handle table";
    MutexLock lock(&mu_);
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() > HandleLayout::kIndexMask) FailTableFull(kKind, slots_.size());
      free_.reserve(slots_.size() + 1);  // so Remove never allocates
      slots_.emplace_back();
      index = static_cast<uint32_t>(slots_.size() - 1);
    }
    Slot& s = slots_[index];
    s.obj = std::move(obj);
    LiveHandleCounter().fetch_add(1, std::memory_order_relaxed);
    return HandleLayout::Encode(static_cast<uint32_t>(kKind), s.gen, index);
  }

  // The object of `h`, or null when `h` is not a live handle of this table.
  std::shared_ptr<T> Lookup(uintptr_t h) const {
    MutexLock lock(&mu_);
    const Slot* s = Find(h);
    return s ? s->obj : nullptr;
  }

  // Empties the slot of `h` and returns its object (destroyed by the caller,
  // outside the lock), or null when `h` is not a live handle of this table.
  std::shared_ptr<T> Remove(uintptr_t h) {
    MutexLock lock(&mu_);
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
    LiveHandleCounter().fetch_sub(1, std::memory_order_relaxed);
    return obj;
  }

 private:
  struct Slot {
    std::shared_ptr<T> obj;
    uint32_t gen = 1;
  };

  HandleTable() = default;

  const Slot* Find(uintptr_t h) const WEFT_REQUIRES(mu_) {
    if (HandleLayout::Kind(h) != static_cast<uint32_t>(kKind)) return nullptr;
    uint32_t index = HandleLayout::Index(h);
    if (index >= slots_.size()) return nullptr;
    const Slot& s = slots_[index];
    if (!s.obj || s.gen == 0 || s.gen != HandleLayout::Gen(h)) return nullptr;
    return &s;
  }
  mutable Mutex mu_;
  std::vector<Slot> slots_ WEFT_GUARDED_BY(mu_);
  std::vector<uint32_t> free_ WEFT_GUARDED_BY(mu_);  // empty slots that may be reused
};

// The table of C handle type H.
template <typename H>
using TableOf = HandleTable<typename HandleTraits<H>::Object, HandleTraits<H>::kKind>;
template <typename H>
using ObjectPtr = std::shared_ptr<typename HandleTraits<H>::Object>;

// Throws Error(kInvalidHandle) for `bits`, passed as argument `arg` where a
// handle of kind `expected` was wanted: "argument '<arg>' is a <given>
// handle, expected a <expected> handle" when `bits` carries another known
// kind, else "argument '<arg>' is a freed or invalid <expected> handle".
[[noreturn]] void FailBadHandle(uintptr_t bits, HandleKind expected, const char* arg);
// Throws Error(kInvalidArgument, "argument '<arg>' is NULL").
[[noreturn]] void FailNull(const char* arg);

// Registers `obj` and returns a new handle owning it.
template <typename H>
H* NewHandle(ObjectPtr<H> obj) {
  return reinterpret_cast<H*>(TableOf<H>::Global().Insert(std::move(obj)));
}

// The object behind `h`. Throws kInvalidArgument when `h` is NULL and
// kInvalidHandle when it is freed, of another kind or not a handle at all.
template <typename H>
ObjectPtr<H> GetObject(const H* h, const char* arg) {
  if (!h) FailNull(arg);
  const uintptr_t bits = reinterpret_cast<uintptr_t>(h);
  auto obj = TableOf<H>::Global().Lookup(bits);
  if (!obj) FailBadHandle(bits, HandleTraits<H>::kKind, arg);
  return obj;
}

// Releases `h` and returns its object (the handle is dead from here on);
// same errors as GetObject.
template <typename H>
ObjectPtr<H> TakeHandle(H* h, const char* arg) {
  if (!h) FailNull(arg);
  const uintptr_t bits = reinterpret_cast<uintptr_t>(h);
  auto obj = TableOf<H>::Global().Remove(bits);
  if (!obj) FailBadHandle(bits, HandleTraits<H>::kKind, arg);
  return obj;
}

// Releases `h` (NULL is a no-op); same errors as GetObject otherwise. The
// object is destroyed here, outside the table's lock (views keep storage).
template <typename H>
void FreeHandle(H* h, const char* arg) {
  if (h) TakeHandle(h, arg);
}

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_HANDLE_H_
