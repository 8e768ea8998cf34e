// weft_ndarray_*: creation, queries, host copies and views of NDArrays.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "weft/runtime.h"
#include "weft/dtype.h"
#include "weft/imperative.h"
#include "weft/ndarray.h"

namespace weft {
namespace capi {

Shape ShapeArg(const int64_t* shape, int ndim, const char* shape_arg, const char* ndim_arg) {
  if (ndim < 0 || ndim > kMaxNdim)
    Fail(StatusCode::kInvalidArgument, "argument '", ndim_arg, "' is ", ndim, ", expected 0..",
         kMaxNdim);
  if (ndim > 0 && !shape)
    Fail(StatusCode::kInvalidArgument, "argument '", shape_arg, "' is NULL but ", ndim_arg, " is ",
         ndim);
  std::vector<int64_t> dims(shape, shape + ndim);
  for (int i = 0; i < ndim; ++i) {
    if (dims[i] <= 0)
      Fail(StatusCode::kShape, "argument '", shape_arg, "': extent ", i, " is ", dims[i],
           " in shape ", Shape(dims).ToString(), "; every extent must be > 0");
  }
  return Shape(std::move(dims));
}

Context ContextArg(int dev_type, int dev_id) {
  if (dev_type != WEFT_CPU && dev_type != WEFT_GPU)
    Fail(StatusCode::kDevice, "argument 'dev_type' is ", dev_type, ", expected WEFT_CPU (",
         static_cast<int>(WEFT_CPU), ") or WEFT_GPU (", static_cast<int>(WEFT_GPU), ")");
  if (dev_id < 0) Fail(StatusCode::kDevice, "argument 'dev_id' is ", dev_id, ", expected >= 0");
  Context ctx{static_cast<DeviceType>(dev_type), dev_id};
#if !WEFT_USE_CUDA
  if (ctx.dev_type == DeviceType::kGPU)
    Fail(StatusCode::kDevice, "device ", ctx.ToString(),
         " requested, but this libweft was built without CUDA support (WEFT_USE_CUDA=OFF)");
#endif
  return ctx;
}

std::vector<NDArray> Arrays(WeftNDArray* const* handles, size_t num, const char* arg,
                            bool allow_null) {
  CheckArray(handles, num, arg);
  std::vector<NDArray> out;
  out.reserve(num);
  for (size_t i = 0; i < num; ++i) {
    const std::string name = StrCat(arg, "[", i, "]");
    if (!handles[i] && allow_null) {
      out.emplace_back();
      continue;
    }
    out.push_back(*GetObject(handles[i], name.c_str()));
  }
  return out;
}

void PublishArrays(const std::vector<NDArray>& arrays, WeftNDArray** out) {
  std::vector<WeftNDArray*> handles;
  handles.reserve(arrays.size());
  try {
    for (const NDArray& a : arrays)
      handles.push_back(NewHandle<WeftNDArray>(std::make_shared<NDArray>(a)));
  } catch (...) {
    for (WeftNDArray* h : handles) weft_ndarray_free(h);
    throw;
  }
  for (size_t i = 0; i < handles.size(); ++i) out[i] = handles[i];
}

}  // namespace capi
}  // namespace weft

using weft::NDArray;
using weft::StatusCode;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;
using weft::capi::NewHandle;

extern "C" {

WeftStatus weft_ndarray_create(const int64_t* shape, int ndim, int dtype, int dev_type, int dev_id,
                               WeftNDArray** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  weft::Shape s = weft::capi::ShapeArg(shape, ndim, "shape", "ndim");
  if (!weft::IsValidDType(dtype))
    weft::Fail(StatusCode::kDType, "argument 'dtype' is ", dtype,
               ", expected a WeftDType code 0..6 or 12 (float32, float64, float16, uint8, int32, "
               "int8, int64, bfloat16)");
  weft::Context ctx = weft::capi::ContextArg(dev_type, dev_id);
  auto arr =
      std::make_shared<NDArray>(s, ctx, static_cast<weft::DType>(dtype), &weft::Runtime::Global());
  *out = NewHandle<WeftNDArray>(std::move(arr));
  WEFT_API_END();
}

WeftStatus weft_ndarray_free(WeftNDArray* arr) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(arr, "arr");
  WEFT_API_END();
}

WeftStatus weft_ndarray_ndim(const WeftNDArray* arr, int* out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  *out = a->shape().ndim();
  WEFT_API_END();
}

WeftStatus weft_ndarray_shape(const WeftNDArray* arr, int64_t* out_shape, size_t capacity) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  weft::capi::CheckArray(out_shape, capacity, "out_shape");
  const size_t ndim = static_cast<size_t>(a->shape().ndim());
  if (capacity < ndim)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity,
               " but the array has rank ", ndim, " (shape ", a->shape().ToString(), ")");
  for (size_t i = 0; i < ndim; ++i) out_shape[i] = a->shape()[static_cast<int>(i)];
  WEFT_API_END();
}

WeftStatus weft_ndarray_size(const WeftNDArray* arr, int64_t* out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  *out = a->Size();
  WEFT_API_END();
}

WeftStatus weft_ndarray_dtype(const WeftNDArray* arr, int* out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  *out = static_cast<int>(a->dtype());
  WEFT_API_END();
}

WeftStatus weft_ndarray_context(const WeftNDArray* arr, int* out_dev_type, int* out_dev_id) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out_dev_type, "out_dev_type");
  CheckNotNull(out_dev_id, "out_dev_id");
  weft::Context ctx = a->ctx();
  *out_dev_type = static_cast<int>(ctx.dev_type);
  *out_dev_id = ctx.dev_id;
  WEFT_API_END();
}

WeftStatus weft_ndarray_copy_from(WeftNDArray* arr, const void* data, size_t nbytes) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(data, "data");
  if (nbytes != a->Bytes())
    weft::Fail(StatusCode::kInvalidArgument, "argument 'nbytes' is ", nbytes, ", expected ",
               a->Bytes(), " (", a->Size(), " x ", weft::DTypeName(a->dtype()), " for shape ",
               a->shape().ToString(), ")");
  a->CopyFromHost(data, nbytes);
  WEFT_API_END();
}

WeftStatus weft_ndarray_copy_to(const WeftNDArray* arr, void* data, size_t nbytes) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(data, "data");
  if (nbytes != a->Bytes())
    weft::Fail(StatusCode::kInvalidArgument, "argument 'nbytes' is ", nbytes, ", expected ",
               a->Bytes(), " (", a->Size(), " x ", weft::DTypeName(a->dtype()), " for shape ",
               a->shape().ToString(), ")");
  a->CopyToHost(data, nbytes);
  WEFT_API_END();
}

// Fails unless `count` is the element count of `a`.
static void CheckCount(const NDArray& a, size_t count) {
  if (count != static_cast<size_t>(a.Size()))
    weft::Fail(StatusCode::kInvalidArgument, "argument 'count' is ", count, ", expected ", a.Size(),
               " (the elements of shape ", a.shape().ToString(), ")");
}

WeftStatus weft_ndarray_copy_from_float32(WeftNDArray* arr, const float* data, size_t count) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(data, "data");
  CheckCount(*a, count);
  if (a->dtype() == weft::DType::kFloat32) {
    a->CopyFromHost(data, count * sizeof(float));
    return WEFT_OK;
  }
  NDArray wide(a->shape(), a->ctx(), weft::DType::kFloat32, a->runtime());
  wide.CopyFromHost(data, count * sizeof(float));
  std::vector<NDArray> out = {*a};
  weft::Invoke(a->runtime(), "Cast", {wide}, {{"dtype", weft::DTypeName(a->dtype())}}, &out);
  WEFT_API_END();
}

WeftStatus weft_ndarray_copy_to_float32(const WeftNDArray* arr, float* data, size_t count) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(data, "data");
  CheckCount(*a, count);
  if (a->dtype() == weft::DType::kFloat32) {
    a->CopyToHost(data, count * sizeof(float));
    return WEFT_OK;
  }
  const NDArray wide = weft::Invoke(a->runtime(), "Cast", {*a}, {{"dtype", "float32"}})[0];
  wide.CopyToHost(data, count * sizeof(float));
  WEFT_API_END();
}

WeftStatus weft_ndarray_reshape(const WeftNDArray* arr, const int64_t* shape, int ndim,
                                WeftNDArray** out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  weft::Shape s = weft::capi::ShapeArg(shape, ndim, "shape", "ndim");
  auto view = std::make_shared<NDArray>(a->Reshape(s));
  *out = NewHandle<WeftNDArray>(std::move(view));
  WEFT_API_END();
}

WeftStatus weft_ndarray_slice(const WeftNDArray* arr, int64_t begin, int64_t end,
                              WeftNDArray** out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  if (begin >= end)  // the C ABI makes no array without elements (weft/shape.h)
    Fail(StatusCode::kInvalidArgument, "slice [", begin, ", ", end,
         ") is out of range for axis 0 (expected begin < end)");
  auto view = std::make_shared<NDArray>(a->Slice(begin, end));
  *out = NewHandle<WeftNDArray>(std::move(view));
  WEFT_API_END();
}

WeftStatus weft_ndarray_wait_to_read(const WeftNDArray* arr) {
  WEFT_API_BEGIN();
  GetObject(arr, "arr")->WaitToRead();
  WEFT_API_END();
}

WeftStatus weft_ndarray_wait_to_write(const WeftNDArray* arr) {
  WEFT_API_BEGIN();
  GetObject(arr, "arr")->WaitToWrite();
  WEFT_API_END();
}

}  // extern "C"
