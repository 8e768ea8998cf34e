/**
 * @file c_api.h
 * @brief The stable C ABI of libweft: the umbrella header.
 *
 * A C or C++ program includes this header only. It includes the area
 * headers below (each includes the ones it uses and can be read on its own);
 * together they are the ABI, and their Doxygen comments its specification:
 * - c_api_base.h: WEFT_API, WEFT_API_VERSION, codes, shared handles, library calls, string lists
 * - c_api_op.h: the operator registry (weft_op_*) and imperative invoke
 * - c_api_ndarray.h: NDArrays (weft_ndarray_* create, query, copy, views, waits)
 * - c_api_ndarray_io.h: .params and .npy files and buffers, ::WeftNDArrayList, ::WeftBuffer
 * - c_api_symbol.h: symbols (build, list, attributes, JSON, shape and type inference)
 * - c_api_place.h: device placement of a symbol (weft_symbol_place_device*)
 * - c_api_executor.h: executors and their options (weft_executor_*)
 * - c_api_engine.h: the dependency engine (weft_engine_*)
 * - c_api_data.h: IDX/MNIST files, data iterators, metrics, checkpoints
 * - c_api_optimizer.h: initializers and optimizers
 * - c_api_module.h: modules, MXNet's training loop (weft_module_*)
 * - c_api_predictor.h: thread-safe inference (weft_predictor_*)
 * - c_api_kvstore.h: kvstores for data-parallel training (weft_kvstore_*)
 * - c_api_autograd.h: autograd: recording, marked variables, backward, grad,
 *   detach (weft_autograd_*, weft_ndarray_get_grad, weft_ndarray_detach)
 * - c_api_recordio.h: MXNet's RecordIO files (.rec/.idx) and image-record headers
 * - c_api_amp.h: automatic mixed precision (a float32 model converted to float16/bfloat16)
 * - c_api_quantize.h: int8 quantization with calibration (MXNet's quantize_model)
 *   (weft_recordio_*)
 * - c_api_custom_op.h: custom operators implemented by host callbacks (weft_custom_op_*),
 *   weft_ndarray_get_data
 * - c_api_op_library.h: operator libraries (weft/op_plugin.h) loaded at run time
 *   (weft_load_library, weft_loaded_ops)
 * - c_api_profiler.h: the profiler: Chrome traces, the aggregate table, user ranges
 *   and markers (weft_profiler_*)
 * - c_api_onnx.h: ONNX import (an .onnx model as a symbol and parameters, or a
 *   checkpoint) and export (a symbol and its parameters as an .onnx model) (weft_onnx_*)
 *
 * Conventions (they hold for every function of these headers):
 * - Every fallible function returns a ::WeftStatus; results go in trailing
 *   out-parameters, which are left untouched on failure.
 * - On failure, weft_last_error() returns a message naming the op/argument
 *   and what was expected versus given, and weft_last_error_code() the code.
 *   Both are thread-local and valid until the next failing weft_ call on
 *   the thread: a successful call does not clear them, so read them only
 *   after a non-OK status.
 * - No C++ exception crosses this boundary and nothing calls abort().
 * - Handles are opaque and of distinct types. Every handle created by a
 *   function here has exactly one owner, who releases it with the matching
 *   `_free`. `_free(NULL)` is a no-op. Using a freed handle or freeing it
 *   twice is detected and reported as ::WEFT_ERR_INVALID_HANDLE.
 * - Strings returned as `const char*` are owned by the library and stay
 *   valid for the lifetime of the process unless stated otherwise.
 * - The ABI only grows: released signatures never change.
 */
#ifndef WEFT_C_API_H_
#define WEFT_C_API_H_

/* In dependency order; bindings/weft.i %includes the same list. */
#include "c_api_base.h"
#include "c_api_op.h"
#include "c_api_ndarray.h"
#include "c_api_ndarray_io.h"
#include "c_api_symbol.h"
#include "c_api_place.h"
#include "c_api_executor.h"
#include "c_api_engine.h"
#include "c_api_data.h"
#include "c_api_optimizer.h"
#include "c_api_module.h"
#include "c_api_predictor.h"
#include "c_api_kvstore.h"
#include "c_api_autograd.h"
#include "c_api_recordio.h"
#include "c_api_amp.h"
#include "c_api_quantize.h"
#include "c_api_custom_op.h"
#include "c_api_profiler.h"
#include "c_api_op_library.h"
#include "c_api_onnx.h"

#endif /* WEFT_C_API_H_ */
