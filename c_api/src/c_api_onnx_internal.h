// The ONNX import as the predictor uses it (c_api_onnx.cc).
#ifndef WEFT_C_API_ONNX_INTERNAL_H_
#define WEFT_C_API_ONNX_INTERNAL_H_

#include <cstddef>
#include <cstdint>

#include "weft/ndarray_io.h"
#include "weft/symbol.h"

namespace weft {
class Runtime;
namespace capi {

// The ONNX model at `path` for a predictor: its symbol, and its parameters
// in `params` named "arg:"/"aux:"; the predictor's input shapes are given to
// the import (so that shape computations over them fold). `params_path`
// must be NULL or "" (an .onnx file carries its weights).
Symbol ImportOnnxForPredictor(Runtime* rt, const char* path, const char* params_path,
                              size_t num_inputs, const char* const* input_names,
                              const size_t* ind_ptr, const int64_t* dims, NDArrayList* params);

}  // namespace capi
}  // namespace weft

#endif  // WEFT_C_API_ONNX_INTERNAL_H_
