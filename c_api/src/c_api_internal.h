// Shared machinery of the C ABI implementation (not installed).
//
// Every exported function that returns a WeftStatus wraps its whole body in
// WEFT_API_BEGIN() / WEFT_API_END(). Inside, failures are thrown as
// weft::Error without a function prefix; WEFT_API_END() catches everything
// (weft::Error → its code, std::bad_alloc → WEFT_ERR_OOM, any other
// exception → WEFT_ERR_INTERNAL), prefixes the message with the C function's
// name, stores it as the thread's last error and returns the status. A
// successful call returns WEFT_OK and leaves the last error as it was.
// Out-parameters are written only after every check has passed. Handles are
// made, resolved and freed through the registry in c_api_handle.h
// (NewHandle, GetObject, TakeHandle, FreeHandle).
#ifndef WEFT_C_API_SRC_C_API_INTERNAL_H_
#define WEFT_C_API_SRC_C_API_INTERNAL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "c_api_handle.h"
#include "weft/c_api.h"
#include "weft/device.h"
#include "weft/ndarray.h"
#include "weft/shape.h"
#include "weft/status.h"

namespace weft {
namespace capi {

// Converts the exception being handled into a status and records it, with
// the message prefixed by "<func>: ", as the thread's last error. Must be
// called inside a catch block. Never throws.
WeftStatus HandleException(const char* func) noexcept;

// The C status for a C++ code (unknown codes map to WEFT_ERR_INTERNAL).
WeftStatus ToStatus(StatusCode code) noexcept;

// Throws Error(kInvalidArgument, "argument '<arg>' is NULL") when `p` is null.
inline void CheckNotNull(const void* p, const char* arg) {
  if (!p) FailNull(arg);
}
// Same for a (ptr, count) array: NULL is accepted only when count is 0.
inline void CheckArray(const void* p, size_t count, const char* arg) {
  if (!p && count > 0)
    Fail(StatusCode::kInvalidArgument, "argument '", arg, "' is NULL but its count is ", count);
}

// Handles `handles[0..num)` (argument `arg`, entries named `arg[i]`) as
// NDArrays; a NULL entry is accepted (as an empty array) only when
// `allow_null`. kInvalidArgument for a NULL list with num > 0 or a NULL
// entry, kInvalidHandle for a freed one. In c_api_ndarray.cc.
std::vector<NDArray> Arrays(WeftNDArray* const* handles, size_t num, const char* arg,
                            bool allow_null);
// Registers a handle for every array of `arrays`, then writes them to
// `out[0..size)`; when a registration fails, frees the ones made and
// writes nothing. In c_api_ndarray.cc.
void PublishArrays(const std::vector<NDArray>& arrays, WeftNDArray** out);

// weft_custom_op_register's body (throws): registers `op_type` served by the
// C callback table `creator` makes; `deleter(user_data)` runs when the type
// is unregistered or when this call fails. In c_api_custom_op.cc.
void RegisterCustomOpTable(const char* op_type, WeftCustomOpCreator creator, void* user_data,
                           WeftCustomOpDeleter deleter);

// A new WeftBuffer handle owning `bytes`. In c_api_ndarray_io.cc.
WeftBuffer* NewBuffer(std::string bytes);

// Validates a C shape argument: 0 <= ndim <= kMaxNdim, `shape` non-null when
// ndim > 0, every extent > 0 (kShape naming the offending index).
constexpr int kMaxNdim = 32;
Shape ShapeArg(const int64_t* shape, int ndim, const char* shape_arg, const char* ndim_arg);
// `num` shapes in CSR form (`ind_ptr`, `dims`), every extent > 0. In
// c_api_predictor.cc.
std::vector<Shape> ShapesArg(size_t num, const size_t* ind_ptr, const int64_t* dims);
// `num` non-NULL strings of C argument `arg`. In c_api_predictor.cc.
std::vector<std::string> Names(size_t num, const char* const* names, const char* arg);
// Validates (dev_type, dev_id): kDevice for an unknown type, a negative id,
// or a GPU in a build without CUDA.
Context ContextArg(int dev_type, int dev_id);
// Decodes `num` (name, dev_type, dev_id) triples into a map (a group2ctx);
// names in messages are `<prefix>_names[i]`, `<prefix>_dev_types[i]`, ...:
// kInvalidArgument for a NULL array or name or a repeated name, kDevice for
// a bad device (naming the entry). In c_api_place.cc.
std::map<std::string, Context> ContextMap(size_t num, const char* const* names, const int* types,
                                          const int* ids, const std::string& prefix);

}  // namespace capi
}  // namespace weft

#define WEFT_API_BEGIN() try {
#define WEFT_API_END()                              \
  }                                                 \
  catch (...) {                                     \
    return ::weft::capi::HandleException(__func__); \
  }                                                 \
  return WEFT_OK;

#endif  // WEFT_C_API_SRC_C_API_INTERNAL_H_
