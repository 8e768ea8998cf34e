/**
 * @file c_api_onnx.h
 * @brief ONNX import (weft/onnx_import.h): an .onnx model as a Weft symbol
 *        and its parameters, or written as an MXNet checkpoint.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the
 * conventions every function here follows.
 *
 * Models of opsets 7-18 of the default ONNX domain are converted to Weft's
 * MXNet operators (weft_onnx_supported_ops() lists the ONNX operators);
 * initializers become parameters (arguments, or auxiliary states for those
 * an operator mutates, such as BatchNorm's running mean and variance), and
 * graph inputs that are not initializers become the symbol's data inputs.
 * External data files are read from the model's folder and may not leave
 * it. weft_predictor_create_from_files() also takes an .onnx file in place
 * of a symbol file (its params_path may then be NULL). Every function is
 * thread-safe.
 */
#ifndef WEFT_C_API_ONNX_H_
#define WEFT_C_API_ONNX_H_

#include "c_api_base.h"
#include "c_api_ndarray_io.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ ONNX import */

/**
 * @brief Imports the ONNX model at @p path.
 * @param num_shapes, shape_names, ind_ptr, dims optional shapes (CSR-style,
 *        as weft_predictor_create()) replacing graph inputs' ONNX shapes,
 *        e.g. to fix a dynamic batch so that shape computations fold; an
 *        extent of 0 stays unknown. @p num_shapes 0 takes none (the arrays
 *        may then be NULL).
 * @param[out] sym new symbol (outputs in the graph's order); free with weft_symbol_free().
 * @param[out] args new list of argument parameters by name; free with weft_ndarray_list_free().
 * @param[out] aux new list of auxiliary states by name; free with weft_ndarray_list_free().
 * Errors: WEFT_ERR_IO (the file), WEFT_ERR_INVALID_ARGUMENT (truncated or
 * malformed model, unknown opset or domain, a missing initializer, external
 * data outside the model's folder, an unknown input in @p shape_names),
 * WEFT_ERR_NOT_IMPLEMENTED (every unsupported node listed with its name, or
 * an unsupported attribute naming the node).
 */
WEFT_API WeftStatus weft_onnx_import(const char* path, size_t num_shapes,
                                     const char* const* shape_names, const size_t* ind_ptr,
                                     const int64_t* dims, WeftSymbolHandle** sym,
                                     WeftNDArrayList** args, WeftNDArrayList** aux);

/**
 * @brief Imports the ONNX model at @p path and writes it as the MXNet
 *        checkpoint "<prefix>-symbol.json" + "<prefix>-0000.params".
 * @param num_shapes, shape_names, ind_ptr, dims as weft_onnx_import().
 * Errors: those of weft_onnx_import(), and WEFT_ERR_IO naming a file that
 * cannot be written.
 */
WEFT_API WeftStatus weft_onnx_import_checkpoint(const char* path, const char* prefix,
                                                size_t num_shapes, const char* const* shape_names,
                                                const size_t* ind_ptr, const int64_t* dims);

/** @brief The ONNX operators the importer converts, sorted; free @p out with
 * weft_string_list_free(). */
WEFT_API WeftStatus weft_onnx_supported_ops(WeftStringList** out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_ONNX_H_ */
