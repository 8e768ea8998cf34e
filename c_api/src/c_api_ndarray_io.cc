// C ABI: NDArray files (MXNet NDArray lists, NumPy .npy) and library-owned
// byte buffers, and lists made from arrays. Lists and buffers are
// immutable once published.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "c_api_ndarray_list.h"
#include "c_api_symbol_internal.h"
#include "weft/runtime.h"
#include "weft/ndarray_io.h"
#include "weft/npy.h"

namespace weft {
namespace capi {

struct BufferObject {
  std::string bytes;
};

WeftBuffer* NewBuffer(std::string bytes) {
  auto buf = std::make_shared<BufferObject>();
  buf->bytes = std::move(bytes);
  return NewHandle<WeftBuffer>(std::move(buf));
}

namespace {

// The list to save from C arguments (NULL array entries are none arrays).
NDArrayList ListArg(WeftNDArray* const* arrays, const char* const* names, size_t num) {
  CheckArray(arrays, num, "arrays");
  NDArrayList list;
  for (size_t i = 0; i < num; ++i) {
    if (arrays[i]) {
      list.arrays.push_back(*GetObject(arrays[i], StrCat("arrays[", i, "]").c_str()));
    } else {
      list.arrays.emplace_back();
    }
  }
  if (names) {
    for (size_t i = 0; i < num; ++i) {
      if (!names[i]) Fail(StatusCode::kInvalidArgument, "argument 'names[", i, "]' is NULL");
      list.names.emplace_back(names[i]);
    }
  }
  return list;
}

void CheckListIndex(const NDArrayList& list, size_t index) {
  if (index >= list.arrays.size())
    Fail(StatusCode::kInvalidArgument, "index ", index, " is out of range (the list has ",
         list.arrays.size(), " arrays)");
}

}  // namespace
}  // namespace capi
}  // namespace weft

using weft::capi::CheckNotNull;
using weft::capi::GetObject;
using weft::capi::NewHandle;

extern "C" {

WeftStatus weft_ndarray_save_file(const char* path, WeftNDArray* const* arrays,
                                  const char* const* names, size_t num) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  weft::NDArrayList list = weft::capi::ListArg(arrays, names, num);
  weft::SaveNDArraysFile(list, path);
  WEFT_API_END();
}

WeftStatus weft_ndarray_save_buffer(WeftNDArray* const* arrays, const char* const* names,
                                    size_t num, WeftBuffer** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  weft::NDArrayList list = weft::capi::ListArg(arrays, names, num);
  auto buf = std::make_shared<weft::capi::BufferObject>();
  buf->bytes = weft::SaveNDArrays(list);
  *out = NewHandle<WeftBuffer>(std::move(buf));
  WEFT_API_END();
}

WeftStatus weft_buffer_data(const WeftBuffer* buf, const void** out_data, size_t* out_size) {
  WEFT_API_BEGIN();
  auto obj = GetObject(buf, "buf");
  CheckNotNull(out_data, "out_data");
  CheckNotNull(out_size, "out_size");
  *out_data = obj->bytes.data();
  *out_size = obj->bytes.size();
  WEFT_API_END();
}

WeftStatus weft_buffer_free(WeftBuffer* buf) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(buf, "buf");
  WEFT_API_END();
}

WeftStatus weft_ndarray_load_file(const char* path, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  CheckNotNull(out, "out");
  auto list =
      std::make_shared<weft::NDArrayList>(weft::LoadNDArraysFile(path, &weft::Runtime::Global()));
  *out = NewHandle<WeftNDArrayList>(std::move(list));
  WEFT_API_END();
}

WeftStatus weft_ndarray_load_buffer(const void* data, size_t size, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  weft::capi::CheckArray(data, size, "data");
  CheckNotNull(out, "out");
  auto list =
      std::make_shared<weft::NDArrayList>(weft::LoadNDArrays(data, size, &weft::Runtime::Global()));
  *out = NewHandle<WeftNDArrayList>(std::move(list));
  WEFT_API_END();
}

WeftStatus weft_ndarray_list_size(const WeftNDArrayList* list, size_t* out_size, int* out_named) {
  WEFT_API_BEGIN();
  auto obj = GetObject(list, "list");
  CheckNotNull(out_size, "out_size");
  *out_size = obj->arrays.size();
  if (out_named) *out_named = obj->names.empty() ? 0 : 1;
  WEFT_API_END();
}

WeftStatus weft_ndarray_list_name(const WeftNDArrayList* list, size_t index,
                                  const char** out_name) {
  WEFT_API_BEGIN();
  auto obj = GetObject(list, "list");
  CheckNotNull(out_name, "out_name");
  weft::capi::CheckListIndex(*obj, index);
  if (obj->names.empty())
    weft::Fail(weft::StatusCode::kInvalidArgument, "the list has no names (an unnamed file)");
  *out_name = obj->names[index].c_str();
  WEFT_API_END();
}

WeftStatus weft_ndarray_list_get(const WeftNDArrayList* list, size_t index, WeftNDArray** out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(list, "list");
  CheckNotNull(out, "out");
  weft::capi::CheckListIndex(*obj, index);
  const weft::NDArray& a = obj->arrays[index];
  *out = a.is_none() ? nullptr : NewHandle<WeftNDArray>(std::make_shared<weft::NDArray>(a));
  WEFT_API_END();
}

WeftStatus weft_ndarray_list_free(WeftNDArrayList* list) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(list, "list");
  WEFT_API_END();
}

WeftStatus weft_ndarray_list_create(WeftNDArray* const* arrays, const char* const* names,
                                    size_t num, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto list = std::make_shared<weft::NDArrayList>(weft::capi::ListArg(arrays, names, num));
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < list->names.size(); ++i) {
    auto it = seen.emplace(list->names[i], i);
    if (!it.second)
      weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'names[", i, "]' is '",
                 list->names[i], "', already given as names[", it.first->second, "]");
  }
  CheckNotNull(out, "out");
  *out = NewHandle<WeftNDArrayList>(std::move(list));
  WEFT_API_END();
}

WeftStatus weft_ndarray_load_npy(const char* path, WeftNDArray** out) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  CheckNotNull(out, "out");
  auto arr = std::make_shared<weft::NDArray>(weft::LoadNpyFile(path, &weft::Runtime::Global()));
  *out = NewHandle<WeftNDArray>(std::move(arr));
  WEFT_API_END();
}

WeftStatus weft_ndarray_save_npy(const WeftNDArray* arr, const char* path) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(path, "path");
  weft::SaveNpyFile(*a, path);
  WEFT_API_END();
}

WeftStatus weft_ndarray_load_npy_buffer(const void* data, size_t size, WeftNDArray** out) {
  WEFT_API_BEGIN();
  weft::capi::CheckArray(data, size, "data");
  CheckNotNull(out, "out");
  auto arr = std::make_shared<weft::NDArray>(weft::LoadNpy(data, size, &weft::Runtime::Global()));
  *out = NewHandle<WeftNDArray>(std::move(arr));
  WEFT_API_END();
}

WeftStatus weft_ndarray_save_npy_buffer(const WeftNDArray* arr, WeftBuffer** out) {
  WEFT_API_BEGIN();
  auto a = GetObject(arr, "arr");
  CheckNotNull(out, "out");
  auto buf = std::make_shared<weft::capi::BufferObject>();
  buf->bytes = weft::SaveNpy(*a);
  *out = NewHandle<WeftBuffer>(std::move(buf));
  WEFT_API_END();
}

}  // extern "C"
