#include "weft/ndarray.h"

#include "weft/engine.h"
#include "weft/runtime.h"

namespace weft {

NDArray::NDArray(const Shape& shape, Context ctx, DType dtype, Runtime* rt)
    : rt_(rt), shape_(shape), dtype_(dtype) {
  WEFT_CHECK(rt) << "NDArray of shape " << shape.ToString() << ": no runtime given";
  if (!shape.is_concrete())
    Fail(StatusCode::kShape, "cannot allocate an NDArray of shape ", shape.ToString(),
         ": the rank and every extent must be known (>= 0)");
  if (DTypeSize(dtype) == 0)
    Fail(StatusCode::kDType, "cannot allocate an NDArray of dtype code ", static_cast<int>(dtype));
  const size_t bytes = ShapeBytes(shape, DTypeSize(dtype));
  CheckAllocBytes(bytes, StrCat("an array of shape ", shape.ToString(), " ", DTypeName(dtype)));
  chunk_ = rt->storage(ctx)->Alloc(bytes);
}

NDArray NDArray::Borrow(const TBlob& blob, Runtime* rt) {
  NDArray a;
  a.chunk_ = std::make_shared<Chunk>(blob.ctx, blob.dptr, blob.Bytes());
  a.rt_ = rt;
  a.shape_ = blob.shape;
  a.dtype_ = blob.dtype;
  return a;
}

Context NDArray::ctx() const {
  WEFT_CHECK(chunk_) << "ctx() of an empty NDArray";
  return chunk_->ctx();
}

void* NDArray::dptr() const {
  if (!chunk_) return nullptr;
  return static_cast<char*>(chunk_->dptr()) + offset_;
}

TBlob NDArray::blob() const {
  TBlob b;
  b.dptr = dptr();
  b.shape = shape_;
  b.dtype = dtype_;
  b.ctx = ctx();
  return b;
}

NDArray NDArray::Reshape(const Shape& shape) const {
  WEFT_CHECK(chunk_) << "Reshape of an empty NDArray";
  if (!shape.is_concrete() || shape.Size() != Size())
    Fail(StatusCode::kShape, "cannot reshape an array of shape ", shape_.ToString(), " (", Size(),
         " elements) to ", shape.ToString());
  NDArray r = *this;
  r.ag_ = nullptr;  // a view is no recorded array
  r.shape_ = shape;
  return r;
}

NDArray NDArray::AsType(const Shape& shape, DType dtype) const {
  WEFT_CHECK(chunk_) << "AsType of an empty NDArray";
  if (!shape.is_concrete() || DTypeSize(dtype) == 0)
    Fail(StatusCode::kShape, "cannot view an array as shape ", shape.ToString(), " of dtype code ",
         static_cast<int>(dtype));
  const size_t need = ShapeBytes(shape, DTypeSize(dtype));
  if (need > Bytes())
    Fail(StatusCode::kShape, "cannot view ", Bytes(), " bytes (shape ", shape_.ToString(), ") as ",
         shape.ToString(), " ", DTypeName(dtype), " (", need, " bytes)");
  NDArray r = *this;
  r.ag_ = nullptr;  // a view is no recorded array
  r.shape_ = shape;
  r.dtype_ = dtype;
  return r;
}

NDArray NDArray::Slice(int64_t begin, int64_t end) const {
  WEFT_CHECK(chunk_) << "Slice of an empty NDArray";
  if (shape_.ndim() < 1)
    Fail(StatusCode::kShape, "cannot slice a scalar array (shape ", shape_.ToString(), ")");
  if (begin < 0 || end > shape_[0] || begin > end)
    Fail(StatusCode::kInvalidArgument, "slice [", begin, ", ", end,
         ") is out of range for axis 0 of shape ", shape_.ToString(),
         " (expected 0 <= begin <= end <= ", shape_[0], ")");
  NDArray r = *this;
  r.ag_ = nullptr;  // a view is no recorded array
  size_t row = static_cast<size_t>(shape_.ProdRange(1, shape_.ndim())) * DTypeSize(dtype_);
  r.offset_ += static_cast<size_t>(begin) * row;
  r.shape_[0] = end - begin;
  return r;
}

NDArray NDArray::At(int64_t i) const {
  NDArray r = Slice(i, i + 1);
  std::vector<int64_t> dims(shape_.dims().begin() + 1, shape_.dims().end());
  r.shape_ = Shape(dims);
  return r;
}

void NDArray::CopyFromHost(const void* src, size_t bytes) {
  WEFT_CHECK(chunk_) << "CopyFromHost into an empty NDArray";
  if (bytes != Bytes())
    Fail(StatusCode::kInvalidArgument, "copy from host: buffer has ", bytes, " bytes, expected ",
         Bytes(), " (", Size(), " x ", DTypeName(dtype_), " for shape ", shape_.ToString(), ")");
  if (bytes && !src) Fail(StatusCode::kInvalidArgument, "copy from host: source pointer is null");
  if (bytes == 0) return;  // an array without elements: nothing to copy
  // The caller may free `src` on return, so wait for the copy.
  Context c = ctx();
  void* dst = dptr();
  std::shared_ptr<Chunk> keep = chunk_;
  Runtime* rt = rt_;
  Engine* engine = Engine::Get();
  engine->CheckCanWait("copy from host");  // before pushing: the push reads `src` later
  engine->PushSync(
      [c, dst, src, bytes, keep, rt](RunContext rc) {
        rt->device_api(c.dev_type)->CopyFromHost(c, dst, src, bytes, rc.stream);
      },
      c, {}, {var()}, 0, "CopyFromHost", FnProperty::kCopyToDevice);
  engine->WaitForVar(var());
}

void NDArray::CopyToHost(void* dst, size_t bytes) const {
  WEFT_CHECK(chunk_) << "CopyToHost from an empty NDArray";
  if (bytes != Bytes())
    Fail(StatusCode::kInvalidArgument, "copy to host: buffer has ", bytes, " bytes, expected ",
         Bytes(), " (", Size(), " x ", DTypeName(dtype_), " for shape ", shape_.ToString(), ")");
  if (bytes && !dst)
    Fail(StatusCode::kInvalidArgument, "copy to host: destination pointer is null");
  WaitToRead();  // rethrows the error of a failed op that wrote this array
  if (bytes == 0) return;
  Context c = ctx();
  rt_->device_api(c.dev_type)->CopyToHost(c, dst, dptr(), bytes, nullptr);
}

void NDArray::CopyTo(NDArray* dst) const {
  WEFT_CHECK(chunk_ && dst && !dst->is_none()) << "CopyTo with an empty NDArray";
  if (dst->shape() != shape_ || dst->dtype() != dtype_)
    Fail(StatusCode::kShape, "copy: destination is ", dst->shape().ToString(), " ",
         DTypeName(dst->dtype()), ", source is ", shape_.ToString(), " ", DTypeName(dtype_));
  Context s = ctx(), d = dst->ctx();
  void* to = dst->dptr();
  const void* from = dptr();
  const size_t n = Bytes();
  if (to == from || n == 0) return;
  std::vector<VarHandle> reads;
  if (var() != dst->var()) reads.push_back(var());
  FnProperty prop = d.dev_type != DeviceType::kCPU   ? FnProperty::kCopyToDevice
                    : s.dev_type != DeviceType::kCPU ? FnProperty::kCopyFromDevice
                                                     : FnProperty::kNormal;
  Context run_on = d.dev_type != DeviceType::kCPU ? d : s;
  std::shared_ptr<Chunk> keep_src = chunk_, keep_dst = dst->chunk();
  // Each side's device hooks come from the runtime that allocated it.
  Runtime *src_rt = rt_, *dst_rt = dst->runtime();
  Engine::Get()->PushSync(
      [s, d, to, from, n, keep_src, keep_dst, src_rt, dst_rt](RunContext rc) {
        if (s.dev_type == DeviceType::kCPU && d.dev_type == DeviceType::kCPU) {
          CpuDeviceAPI()->CopyDevice(d, to, s, from, n, nullptr);
        } else if (s.dev_type == DeviceType::kCPU) {
          dst_rt->device_api(d.dev_type)->CopyFromHost(d, to, from, n, rc.stream);
        } else if (d.dev_type == DeviceType::kCPU) {
          src_rt->device_api(s.dev_type)->CopyToHost(s, to, from, n, rc.stream);
        } else {
          dst_rt->device_api(d.dev_type)->CopyDevice(d, to, s, from, n, rc.stream);
        }
      },
      run_on, reads, {dst->var()}, 0, "CopyTo", prop);
}

void NDArray::WaitToRead() const {
  if (chunk_) Engine::Get()->WaitForVar(var());
}

void NDArray::WaitToWrite() const {
  if (!chunk_) return;
  // A no-op write queues behind every pending read and write; it counts
  // as a write in the variable's version. The first wait rethrows an error
  // the variable holds: the no-op write must not release it (it would, had
  // a wait reported it already), since it leaves the failed content.
  Engine* engine = Engine::Get();
  engine->CheckCanWait("WaitToWrite");
  engine->WaitForVar(var());
  engine->PushSync([](RunContext) {}, ctx(), {}, {var()}, 0, "WaitToWrite");
  engine->WaitForVar(var());
}

NDArray NDArray::Copy(Context ctx) const {
  NDArray r(shape_, ctx, dtype_, rt_);
  CopyTo(&r);
  return r;
}

}  // namespace weft
