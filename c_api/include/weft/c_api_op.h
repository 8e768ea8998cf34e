/**
 * @file c_api_op.h
 * @brief Operators: the registry (names, documentation, parameters, aliases) and
 *        imperative invocation on arrays (weft_op_invoke(), weft_op_invoke_into()).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_OP_H_
#define WEFT_C_API_OP_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- operators */

/** Number of registered operators (canonical names, aliases excluded). */
WEFT_API WeftStatus weft_op_count(size_t* out);

/** Canonical name of operator @p index (0-based, sorted). */
WEFT_API WeftStatus weft_op_name(size_t index, const char** out_name);

/**
 * @brief Documentation of an operator (name or alias).
 * @param[out] out_doc description; @param[out] out_num_params number of parameters.
 */
WEFT_API WeftStatus weft_op_info(const char* op, const char** out_doc, size_t* out_num_params);

/**
 * @brief Describes parameter @p index of operator @p op.
 * @param[out] out_type "int", "float", "boolean", "shape", "enum", "string", "dtype", "context".
 * @param[out] out_default default value text, or NULL when the parameter is required.
 * Any out-pointer may be NULL.
 */
WEFT_API WeftStatus weft_op_param(const char* op, size_t index, const char** out_name,
                                  const char** out_type, const char** out_default,
                                  const char** out_doc);

/**
 * @brief The aliases of operator @p op (looked up by name or alias), as
 *        registered: MXNet's other spellings, e.g. "_contrib_quadratic" for
 *        "quadratic" (none for most operators; never the canonical name that
 *        weft_op_name() lists).
 * @param[out] out new list; free with weft_string_list_free().
 * WEFT_ERR_NOT_FOUND for an unknown operator.
 */
WEFT_API WeftStatus weft_op_aliases(const char* op, WeftStringList** out);

/* ------------------------------------------------------ imperative invoke */

/**
 * @brief Runs operator @p op on @p inputs, allocating its outputs.
 * @param keys,vals @p num_params string parameters (MXNet syntax).
 * @param[out] outputs array of @p capacity slots receiving new handles;
 *             each must be freed with weft_ndarray_free().
 * @param[out] num_outputs number of outputs the op produced.
 * Fails with WEFT_ERR_INVALID_ARGUMENT when @p capacity is too small.
 */
WEFT_API WeftStatus weft_op_invoke(const char* op, WeftNDArray* const* inputs, size_t num_inputs,
                                   const char* const* keys, const char* const* vals,
                                   size_t num_params, WeftNDArray** outputs, size_t capacity,
                                   size_t* num_outputs);

/**
 * @brief Runs operator @p op writing into existing arrays.
 * @param reqs one ::WeftReq per output, or NULL for all WEFT_REQ_WRITE.
 * Output shapes and dtypes must equal the inferred ones.
 */
WEFT_API WeftStatus weft_op_invoke_into(const char* op, WeftNDArray* const* inputs,
                                        size_t num_inputs, const char* const* keys,
                                        const char* const* vals, size_t num_params,
                                        WeftNDArray* const* outputs, size_t num_outputs,
                                        const int* reqs);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_OP_H_ */
