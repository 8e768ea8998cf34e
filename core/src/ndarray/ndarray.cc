#include "weft/ndarray.h"

#include "weft/runtime.h"

namespace weft {

NDArray::NDArray(const Shape& shape, Context ctx, DType dtype, Runtime* rt)
    : shape_(shape), dtype_(dtype) {
  if (!shape.ndim_known() || (shape.ndim() > 0 && !shape.is_known()))
    Fail(StatusCode::kShape, "cannot allocate an NDArray of shape ", shape.ToString(),
         ": every extent must be known and > 0");
  if (DTypeSize(dtype) == 0)
    Fail(StatusCode::kDType, "cannot allocate an NDArray of dtype code ", static_cast<int>(dtype));
  if (!rt) rt = &Runtime::Global();
  chunk_ = rt->storage(ctx)->Alloc(Bytes());
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
  if (!shape.ndim_known() || (shape.ndim() > 0 && !shape.is_known()) || shape.Size() != Size())
    Fail(StatusCode::kShape, "cannot reshape an array of shape ", shape_.ToString(), " (", Size(),
         " elements) to ", shape.ToString());
  NDArray r = *this;
  r.shape_ = shape;
  return r;
}

NDArray NDArray::AsType(const Shape& shape, DType dtype) const {
  WEFT_CHECK(chunk_) << "AsType of an empty NDArray";
  if (!shape.ndim_known() || (shape.ndim() > 0 && !shape.is_known()) || DTypeSize(dtype) == 0)
    Fail(StatusCode::kShape, "cannot view an array as shape ", shape.ToString(), " of dtype code ",
         static_cast<int>(dtype));
  const size_t need = static_cast<size_t>(shape.Size()) * DTypeSize(dtype);
  if (need > Bytes())
    Fail(StatusCode::kShape, "cannot view ", Bytes(), " bytes (shape ", shape_.ToString(), ") as ",
         shape.ToString(), " ", DTypeName(dtype), " (", need, " bytes)");
  NDArray r = *this;
  r.shape_ = shape;
  r.dtype_ = dtype;
  return r;
}

NDArray NDArray::Slice(int64_t begin, int64_t end) const {
  WEFT_CHECK(chunk_) << "Slice of an empty NDArray";
  if (shape_.ndim() < 1)
    Fail(StatusCode::kShape, "cannot slice a scalar array (shape ", shape_.ToString(), ")");
  if (begin < 0 || end > shape_[0] || begin >= end)
    Fail(StatusCode::kInvalidArgument, "slice [", begin, ", ", end, ") is out of range for axis 0 of shape ",
         shape_.ToString(), " (expected 0 <= begin < end <= ", shape_[0], ")");
  NDArray r = *this;
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
    Fail(StatusCode::kInvalidArgument, "copy from host: buffer has ", bytes, " bytes, expected ", Bytes(),
         " (", Size(), " x ", DTypeName(dtype_), " for shape ", shape_.ToString(), ")");
  if (bytes && !src) Fail(StatusCode::kInvalidArgument, "copy from host: source pointer is null");
  WaitToWrite();
  Context c = ctx();
  Runtime::Global().device_api(c.dev_type)->CopyFromHost(c, dptr(), src, bytes);
}

void NDArray::CopyToHost(void* dst, size_t bytes) const {
  WEFT_CHECK(chunk_) << "CopyToHost from an empty NDArray";
  if (bytes != Bytes())
    Fail(StatusCode::kInvalidArgument, "copy to host: buffer has ", bytes, " bytes, expected ", Bytes(),
         " (", Size(), " x ", DTypeName(dtype_), " for shape ", shape_.ToString(), ")");
  if (bytes && !dst) Fail(StatusCode::kInvalidArgument, "copy to host: destination pointer is null");
  WaitToRead();
  Context c = ctx();
  Runtime::Global().device_api(c.dev_type)->CopyToHost(c, dst, dptr(), bytes);
}

void NDArray::CopyTo(NDArray* dst) const {
  WEFT_CHECK(chunk_ && dst && !dst->is_none()) << "CopyTo with an empty NDArray";
  if (dst->shape() != shape_ || dst->dtype() != dtype_)
    Fail(StatusCode::kShape, "copy: destination is ", dst->shape().ToString(), " ", DTypeName(dst->dtype()),
         ", source is ", shape_.ToString(), " ", DTypeName(dtype_));
  Context s = ctx(), d = dst->ctx();
  Runtime& rt = Runtime::Global();
  if (s.dev_type == DeviceType::kCPU && d.dev_type == DeviceType::kCPU) {
    CpuDeviceAPI()->CopyDevice(d, dst->dptr(), s, dptr(), Bytes());
  } else if (s.dev_type == DeviceType::kCPU) {
    rt.device_api(d.dev_type)->CopyFromHost(d, dst->dptr(), dptr(), Bytes());
  } else if (d.dev_type == DeviceType::kCPU) {
    rt.device_api(s.dev_type)->CopyToHost(s, dst->dptr(), dptr(), Bytes());
  } else {
    rt.device_api(d.dev_type)->CopyDevice(d, dst->dptr(), s, dptr(), Bytes());
  }
}

NDArray NDArray::Copy(Context ctx) const {
  NDArray r(shape_, ctx, dtype_);
  CopyTo(&r);
  return r;
}

}  // namespace weft
