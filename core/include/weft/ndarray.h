// NDArray: a reference-counted n-dimensional array on a device.
//
// An NDArray is a view (shape, dtype, byte offset) on a shared storage Chunk.
// Copies of an NDArray share storage; `Reshape` and `Slice` return views on
// the same chunk. Operations on NDArrays (imperative ops, CopyTo) are pushed
// to the dependency engine (engine.h) with the chunk's variable, and return
// before they run. `WaitToRead` blocks until pending writes are done,
// `WaitToWrite` until pending reads and writes are done; both, and the
// synchronous host copies, rethrow the error of a failed operation that
// wrote the array (its message names the op). `dptr()`/`blob()` never wait:
// call WaitToRead first to read the bytes directly. An NDArray object is not
// synchronised; distinct NDArrays may be used from different threads.
#ifndef WEFT_NDARRAY_H_
#define WEFT_NDARRAY_H_

#include <cstddef>
#include <memory>
#include <utility>

#include "weft/blob.h"
#include "weft/storage.h"

namespace weft {

class Runtime;
namespace autograd {
struct Entry;  // autograd.h
}

class NDArray {
 public:
  // An empty handle (is_none()).
  NDArray() = default;
  // Allocates uninitialised storage from `rt`'s pool for `ctx`; the array
  // (and every view of it) keeps `rt` for its copies. REQUIRES: rt is not
  // null, shape.is_concrete(); throws Error. An extent of 0 is real here
  // (weft/shape.h): the array has no elements (Size() and Bytes() are 0).
  NDArray(const Shape& shape, Context ctx, DType dtype, Runtime* rt);

  // A view of memory the caller owns (a custom operator's arrays during its
  // callback): no copy, a fresh engine variable, `rt` for its copies; the
  // memory is never freed through it. REQUIRES: the memory outlives every
  // use of the array and its views.
  static NDArray Borrow(const TBlob& blob, Runtime* rt);

  bool is_none() const { return chunk_ == nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  Context ctx() const;
  int64_t Size() const { return shape_.Size(); }
  size_t Bytes() const { return ShapeBytes(shape_, DTypeSize(dtype_)); }
  // Pointer to the first element of this view.
  void* dptr() const;
  TBlob blob() const;
  const std::shared_ptr<Chunk>& chunk() const { return chunk_; }
  // The runtime that allocated the storage (null for an empty array): its
  // device hooks serve the copies, its pools the arrays derived from this one.
  Runtime* runtime() const { return rt_; }
  size_t byte_offset() const { return offset_; }

  // A view with the same elements in a new shape; sizes must match.
  NDArray Reshape(const Shape& shape) const;
  // A view of rows [begin, end) along the first axis (no rows when begin == end).
  NDArray Slice(int64_t begin, int64_t end) const;
  // A view of element `i` along the first axis, with that axis removed.
  NDArray At(int64_t i) const;
  // A view of this array's first bytes as `shape` and `dtype` (memory
  // planners carve typed arrays out of raw blocks). Throws Error(kShape)
  // when the view needs more bytes than the array has.
  NDArray AsType(const Shape& shape, DType dtype) const;

  // Copies `bytes` from host memory; `bytes` must equal Bytes(). Runs as an
  // engine write and returns when it is done (`src` may be freed then).
  void CopyFromHost(const void* src, size_t bytes);
  // Waits for pending writes, then copies into host memory; `bytes` must
  // equal Bytes().
  void CopyToHost(void* dst, size_t bytes) const;
  // Pushes a copy of the elements into `dst` (same shape and dtype; any
  // devices) reading this array and writing `dst`.
  void CopyTo(NDArray* dst) const;
  // A deep copy on `ctx`, allocated from runtime() (pushed like CopyTo).
  NDArray Copy(Context ctx) const;

  // Autograd (autograd.h): the recorded node output or marked variable this
  // array is, shared by its copies; null when it is neither. Views
  // (Reshape, Slice, At, AsType) and Detach have none.
  const std::shared_ptr<const autograd::Entry>& autograd_entry() const { return ag_; }
  void set_autograd_entry(std::shared_ptr<const autograd::Entry> e) { ag_ = std::move(e); }

  // The engine variable of the storage (null for an empty array).
  engine::Var* var() const { return chunk_ ? chunk_->var() : nullptr; }
  // Block until pending writes (WaitToRead) or pending reads and writes
  // (WaitToWrite) complete; rethrow a stored error. No-op when empty.
  void WaitToRead() const;
  void WaitToWrite() const;

 private:
  std::shared_ptr<Chunk> chunk_;
  Runtime* rt_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::kFloat32;
  size_t offset_ = 0;
  std::shared_ptr<const autograd::Entry> ag_;
};

}  // namespace weft

#endif  // WEFT_NDARRAY_H_
