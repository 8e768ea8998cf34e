/**
 * @file c_api_onnx.h
 * @brief ONNX import (weft/onnx_import.h): an .onnx model as a Weft symbol
 *        and its parameters, or written as an MXNet checkpoint; and ONNX
 *        export (weft/onnx_export.h): a symbol and its parameters (an MXNet
 *        checkpoint of any format generation Weft reads) written as an ONNX
 *        model (operators and their ONNX forms in docs/onnx.md).
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

/* ------------------------------------------------------------ ONNX export */

/** Flag of weft_onnx_export(): dim 0 of the inputs and outputs is the
 *  dim_param "batch" (reshapes keep it as ONNX's copy code 0). */
#define WEFT_ONNX_DYNAMIC_BATCH 1

/**
 * @brief Exports @p sym with its parameters as an ONNX model at @p output_path.
 *
 * Parameters become initializers; the other arguments are the graph inputs
 * (loss labels are dropped), with the shapes given here or their __shape__
 * hints. Every node is converted or nothing is written: the error
 * (::WEFT_ERR_NOT_IMPLEMENTED) lists every node that has no ONNX form, one
 * line each, "op 'Pooling' node 'pool1': pooling_convention 'same'".
 * @param num_args, arg_names, args the argument parameters (names without "arg:").
 * @param num_aux, aux_names, aux the auxiliary states.
 * @param num_inputs, input_names, ind_ptr, dims the data inputs' shapes in CSR
 *        form (input i has dims[ind_ptr[i] .. ind_ptr[i+1]); ind_ptr has
 *        num_inputs + 1 entries); may be 0/NULL when hints give them.
 * @param opset the ONNX opset, 11 to 17 (13 is the usual choice).
 * @param flags 0 or ::WEFT_ONNX_DYNAMIC_BATCH.
 * @param output_path the .onnx file written.
 * @param[out] report may be NULL; else the export's notes, one line per node
 *        exported with a change worth knowing ("op 'SoftmaxOutput' node
 *        'softmax': exported as its inference output ..."); free with
 *        weft_string_list_free().
 * Errors: ::WEFT_ERR_INVALID_ARGUMENT for an opset out of range, unknown flags
 * or an input whose shape is not known (naming it); ::WEFT_ERR_IO when the file
 * cannot be written.
 */
WEFT_API WeftStatus weft_onnx_export(const WeftSymbolHandle* sym, size_t num_args,
                                     const char* const* arg_names, WeftNDArray* const* args,
                                     size_t num_aux, const char* const* aux_names,
                                     WeftNDArray* const* aux, size_t num_inputs,
                                     const char* const* input_names, const size_t* ind_ptr,
                                     const int64_t* dims, int opset, int flags,
                                     const char* output_path, WeftStringList** report);

/**
 * @brief weft_onnx_export() from files: a symbol JSON (every generation,
 *        0.8 to 1.x) and a .params file of "arg:"/"aux:" arrays.
 * @param params_path may be NULL or "": then every argument is a graph input.
 * Errors as weft_onnx_export(), and those of reading either file (naming it).
 */
WEFT_API WeftStatus weft_onnx_export_files(const char* symbol_path, const char* params_path,
                                           size_t num_inputs, const char* const* input_names,
                                           const size_t* ind_ptr, const int64_t* dims, int opset,
                                           int flags, const char* output_path,
                                           WeftStringList** report);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_ONNX_H_ */
