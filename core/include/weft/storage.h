// Storage: pooled device memory behind NDArrays.
//
// A `StoragePool` serves one Context through that device's DeviceAPI. Freed
// blocks are kept by their rounded size and handed out again for requests of
// the same rounded size (MXNet's pooled storage manager). A `Chunk` is one
// allocation; it returns its block to the pool when the last shared owner
// goes, and keeps the pool alive while it exists. Pools are thread-safe.
//
// Each Chunk owns a dependency-engine variable (engine.h) created with it.
// When the last owner goes, the chunk pushes DeleteVariable for it and the
// block returns to the pool inside that callback, i.e. only after every
// pending engine operation on the chunk has finished.
#ifndef WEFT_STORAGE_H_
#define WEFT_STORAGE_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/device.h"
#include "weft/mutex.h"

namespace weft {

namespace engine {
class Var;
}  // namespace engine

class StoragePool;

// One allocation. Owned through std::shared_ptr by NDArrays and views.
class Chunk {
 public:
  // Creates the chunk's engine variable (Engine::Get()).
  Chunk(std::shared_ptr<StoragePool> pool, void* dptr, size_t bytes);
  // Borrows `bytes` at `dptr` on `ctx`, which someone else owns and frees
  // (NDArray::Borrow): the chunk never releases them.
  Chunk(Context ctx, void* dptr, size_t bytes);
  // Deletes the engine variable; the block is released after pending work.
  ~Chunk();
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;

  void* dptr() const { return dptr_; }
  size_t bytes() const { return bytes_; }
  Context ctx() const;
  // The engine variable guarding this chunk's bytes.
  engine::Var* var() const { return var_; }

 private:
  std::shared_ptr<StoragePool> pool_;  // null for borrowed memory
  Context borrowed_ctx_;
  engine::Var* var_;
  void* dptr_;
  size_t bytes_;
};

struct StorageStats {
  size_t live_bytes = 0;    // held by live chunks (rounded sizes)
  size_t pooled_bytes = 0;  // freed blocks kept for reuse
  size_t num_allocs = 0;    // calls into the DeviceAPI
  size_t num_reuses = 0;    // requests served from the pool
};

// The largest single allocation any pool accepts. Default: the machine's
// physical memory; the environment variable WEFT_MAX_ALLOC_BYTES (read
// once) or SetMaxAllocBytes lowers or raises it (0 restores the default).
// Thread-safe.
size_t MaxAllocBytes();
void SetMaxAllocBytes(size_t bytes);
// Throws Error(kOutOfMemory) "cannot allocate <what>: <bytes> bytes asked,
// the limit is ..." when `bytes` exceeds MaxAllocBytes(). Callers check
// before they allocate or fill anything; `what` names the array and shape.
void CheckAllocBytes(size_t bytes, const std::string& what);

class StoragePool : public std::enable_shared_from_this<StoragePool> {
 public:
  StoragePool(Context ctx, DeviceAPI* api) : ctx_(ctx), api_(api) {}
  ~StoragePool();

  // Returns a chunk of at least `bytes` (a zero-byte request gets a valid,
  // distinct block). Throws Error(kOutOfMemory) when the device refuses or
  // `bytes` exceeds MaxAllocBytes().
  std::shared_ptr<Chunk> Alloc(size_t bytes);
  // Frees every pooled (unused) block back to the device.
  void ReleasePooled();
  StorageStats stats() const;
  Context ctx() const { return ctx_; }
  DeviceAPI* api() const { return api_; }

  // Requests are rounded up to this granularity (and to powers of two above 1 MiB/8).
  static size_t RoundSize(size_t bytes);

 private:
  friend class Chunk;
  void Release(void* dptr, size_t bytes);
  // A profiler memory event and the live-bytes counter (when profiling).
  void RecordMemory(const char* what, size_t bytes, size_t live) const;

  Context ctx_;
  DeviceAPI* api_;
  mutable Mutex mu_;
  std::multimap<size_t, void*> free_ WEFT_GUARDED_BY(mu_);
  StorageStats stats_ WEFT_GUARDED_BY(mu_);
};

}  // namespace weft

#endif  // WEFT_STORAGE_H_
