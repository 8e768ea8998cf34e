/**
 * @file c_api_onnx_export.h
 * @brief ONNX export: a symbol and its parameters (an MXNet checkpoint of any
 *        format generation Weft reads) written as an ONNX model
 *        (weft/onnx_export.h; operators and their ONNX forms in docs/onnx.md).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_ONNX_EXPORT_H_
#define WEFT_C_API_ONNX_EXPORT_H_

#include "c_api_base.h"
#include "c_api_ndarray_io.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * @param params_path may be NULL: then every argument is a graph input.
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

#endif /* WEFT_C_API_ONNX_EXPORT_H_ */
