// WeftNDArrayList objects (not installed): lists of arrays with optional
// names (a weft::NDArrayList behind the handle; see c_api_handle.h), made by
// the NDArray file loaders and weft_ndarray_list_create (c_api_ndarray_io.cc)
// and by the executor's array accessors (c_api_executor.cc). Immutable once
// published.
#ifndef WEFT_C_API_SRC_C_API_NDARRAY_LIST_H_
#define WEFT_C_API_SRC_C_API_NDARRAY_LIST_H_

#include "c_api_internal.h"
#include "weft/ndarray_io.h"

namespace weft {
namespace capi {

// A new named list handle of `arrays` (none entries stay none).
WeftNDArrayList* NewList(const std::vector<NDArray>& arrays, const std::vector<std::string>& names);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_SRC_C_API_NDARRAY_LIST_H_
