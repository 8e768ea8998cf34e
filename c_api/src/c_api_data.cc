// C ABI: IDX/MNIST files and data iterators (weft/idx.h, weft/data_iter.h).
// Batch arrays are returned as WeftNDArrayList handles sharing the
// iterator's (reused) batch arrays.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_ndarray_list.h"
#include "c_api_train_internal.h"
#include "weft/runtime.h"
#include "weft/data_iter_factory.h"
#include "weft/idx.h"
#include "weft/profiler.h"

namespace weft {
namespace capi {

std::vector<std::pair<std::string, NDArray>> NamedArrays(size_t num, const char* const* names,
                                                         const char* names_arg,
                                                         WeftNDArray* const* arrays,
                                                         const char* arrays_arg) {
  CheckArray(names, num, names_arg);
  CheckArray(arrays, num, arrays_arg);
  std::vector<std::pair<std::string, NDArray>> out;
  for (size_t i = 0; i < num; ++i) {
    if (!names[i])
      Fail(StatusCode::kInvalidArgument, "argument '", names_arg, "[", i, "]' is NULL");
    const std::string arg = StrCat(arrays_arg, "[", i, "]");
    out.emplace_back(names[i], *GetObject(arrays[i], arg.c_str()));
  }
  return out;
}

std::vector<NDArray> ArrayArgs(size_t num, WeftNDArray* const* arrays, const char* arg) {
  CheckArray(arrays, num, arg);
  std::vector<NDArray> out;
  for (size_t i = 0; i < num; ++i)
    out.push_back(*GetObject(arrays[i], StrCat(arg, "[", i, "]").c_str()));
  return out;
}

StringMap ParamArgs(const char* const* keys, const char* const* vals, size_t num) {
  CheckArray(keys, num, "keys");
  CheckArray(vals, num, "vals");
  StringMap out;
  for (size_t i = 0; i < num; ++i) {
    if (!keys[i]) Fail(StatusCode::kInvalidArgument, "argument 'keys[", i, "]' is NULL");
    if (!vals[i])
      Fail(StatusCode::kInvalidArgument, "argument 'vals[", i, "]' is NULL (key '", keys[i], "')");
    if (!out.emplace(keys[i], vals[i]).second)
      Fail(StatusCode::kInvalidArgument, "parameter '", keys[i], "' is given twice");
  }
  return out;
}

namespace {

WeftNDArray* NewArray(NDArray a) {
  return NewHandle<WeftNDArray>(std::make_shared<NDArray>(std::move(a)));
}

WeftNDArrayList* NewBatchList(const std::vector<NDArray>& arrays,
                              const std::vector<DataDesc>& desc) {
  auto list = std::make_shared<NDArrayList>();
  list->arrays = arrays;
  for (const DataDesc& d : desc) list->names.push_back(d.name);
  return NewHandle<WeftNDArrayList>(std::move(list));
}

}  // namespace
}  // namespace capi
}  // namespace weft

using weft::capi::CheckArray;
using weft::capi::CheckNotNull;
using weft::capi::GetObject;

WeftStatus weft_idx_load(const char* path, WeftNDArray** out) {
  WEFT_API_BEGIN();
  CheckNotNull(path, "path");
  CheckNotNull(out, "out");
  *out = weft::capi::NewArray(weft::LoadIDX(path, &weft::Runtime::Global()));
  WEFT_API_END();
}

WeftStatus weft_mnist_load(const char* images_path, const char* labels_path,
                           WeftNDArray** images_out, WeftNDArray** labels_out) {
  WEFT_API_BEGIN();
  CheckNotNull(images_path, "images_path");
  CheckNotNull(labels_path, "labels_path");
  CheckNotNull(images_out, "images_out");
  CheckNotNull(labels_out, "labels_out");
  weft::MNISTData d = weft::LoadMNIST(images_path, labels_path, &weft::Runtime::Global());
  WeftNDArray* images = weft::capi::NewArray(std::move(d.images));
  try {
    *labels_out = weft::capi::NewArray(std::move(d.labels));
  } catch (...) {
    weft_ndarray_free(images);
    throw;
  }
  *images_out = images;
  WEFT_API_END();
}

WeftStatus weft_data_iter_create_ndarray(size_t num_data, const char* const* data_names,
                                         WeftNDArray* const* data, size_t num_label,
                                         const char* const* label_names, WeftNDArray* const* label,
                                         int batch_size, int shuffle, const char* last_batch,
                                         uint64_t seed, WeftDataIter** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  auto d = weft::capi::NamedArrays(num_data, data_names, "data_names", data, "data");
  auto l = weft::capi::NamedArrays(num_label, label_names, "label_names", label, "label");
  const weft::LastBatch lb = weft::ParseLastBatch(last_batch ? last_batch : "pad");
  auto it = std::make_shared<weft::NDArrayIter>(std::move(d), std::move(l), batch_size,
                                                shuffle != 0, lb, seed);
  *out = weft::capi::NewHandle<WeftDataIter>(std::move(it));
  WEFT_API_END();
}

WeftStatus weft_data_iter_create(const char* name, const char* const* keys, const char* const* vals,
                                 size_t num_params, WeftDataIter** out) {
  WEFT_API_BEGIN();
  CheckNotNull(name, "name");
  CheckNotNull(out, "out");
  const weft::StringMap params = weft::capi::ParamArgs(keys, vals, num_params);
  std::shared_ptr<weft::DataIter> it = weft::CreateDataIter(name, params, &weft::Runtime::Global());
  *out = weft::capi::NewHandle<WeftDataIter>(std::move(it));
  WEFT_API_END();
}

WeftStatus weft_data_iter_list(WeftStringList** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  std::vector<std::string> names;
  for (const auto& i : weft::ListDataIters()) names.push_back(i.name);
  *out = weft::capi::NewStringList(std::move(names));
  WEFT_API_END();
}

// The registered iterator `name` (kNotFound naming it otherwise).
static const weft::DataIterInfo& IterInfo(const char* name) {
  CheckNotNull(name, "name");
  for (const auto& i : weft::ListDataIters())
    if (i.name == name) return i;
  weft::Fail(weft::StatusCode::kNotFound, "data iterator '", name, "' is not registered");
}

WeftStatus weft_data_iter_info(const char* name, const char** out_doc, size_t* out_num_params) {
  WEFT_API_BEGIN();
  const weft::DataIterInfo& i = IterInfo(name);
  if (out_doc) *out_doc = i.doc.c_str();
  if (out_num_params) *out_num_params = i.params.size();
  WEFT_API_END();
}

WeftStatus weft_data_iter_param(const char* name, size_t index, const char** out_name,
                                const char** out_type, const char** out_default,
                                const char** out_doc) {
  WEFT_API_BEGIN();
  const weft::DataIterInfo& i = IterInfo(name);
  if (index >= i.params.size())
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'index' is ", index, ", but iterator ",
               i.name, " has ", i.params.size(), " parameter(s)");
  const weft::ParamDecl& d = i.params[index];
  if (out_name) *out_name = d.name.c_str();
  if (out_type) *out_type = weft::ParamTypeName(d.type);
  if (out_default) *out_default = d.required ? nullptr : d.default_value.c_str();
  if (out_doc) *out_doc = d.doc.c_str();
  WEFT_API_END();
}

WeftStatus weft_data_iter_next(WeftDataIter* it, int* has_next) {
  WEFT_API_BEGIN();
  auto obj = GetObject(it, "it");
  CheckNotNull(has_next, "has_next");
  weft::profiler::Scope timed(weft::profiler::Category::kData, "next", "weft_data_iter_next");
  *has_next = obj->Next() ? 1 : 0;
  WEFT_API_END();
}

WeftStatus weft_data_iter_reset(WeftDataIter* it) {
  WEFT_API_BEGIN();
  GetObject(it, "it")->Reset();
  WEFT_API_END();
}

WeftStatus weft_data_iter_data(const WeftDataIter* it, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(it, "it");
  CheckNotNull(out, "out");
  *out = weft::capi::NewBatchList(obj->Value().data, obj->provide_data());
  WEFT_API_END();
}

WeftStatus weft_data_iter_label(const WeftDataIter* it, WeftNDArrayList** out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(it, "it");
  CheckNotNull(out, "out");
  *out = weft::capi::NewBatchList(obj->Value().label, obj->provide_label());
  WEFT_API_END();
}

WeftStatus weft_data_iter_pad(const WeftDataIter* it, int* pad) {
  WEFT_API_BEGIN();
  auto obj = GetObject(it, "it");
  CheckNotNull(pad, "pad");
  *pad = obj->Value().pad;
  WEFT_API_END();
}

WeftStatus weft_data_iter_index(const WeftDataIter* it, int64_t* out, size_t capacity,
                                size_t* num) {
  WEFT_API_BEGIN();
  auto obj = GetObject(it, "it");
  CheckNotNull(num, "num");
  const std::vector<int64_t>& index = obj->Value().index;
  if (capacity < index.size())
    weft::Fail(weft::StatusCode::kInvalidArgument, "argument 'capacity' is ", capacity,
               ", the batch has ", index.size(), " rows");
  CheckArray(out, index.size(), "out");
  for (size_t i = 0; i < index.size(); ++i) out[i] = index[i];
  *num = index.size();
  WEFT_API_END();
}

WeftStatus weft_data_iter_batch_size(const WeftDataIter* it, int* out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(it, "it");
  CheckNotNull(out, "out");
  *out = obj->batch_size();
  WEFT_API_END();
}

WeftStatus weft_data_iter_free(WeftDataIter* it) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(it, "it");
  WEFT_API_END();
}
