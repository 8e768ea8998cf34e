/**
 * @file c_api_amp.h
 * @brief Automatic mixed precision (MXNet's amp.convert_model): a float32
 *        model converted so that its listed operators compute in float16 or
 *        bfloat16, with amp_cast / amp_multicast nodes where dtypes change
 *        (weft/amp.h).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_AMP_H_
#define WEFT_C_API_AMP_H_

#include "c_api_base.h"
#include "c_api_ndarray_io.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Converts a float32 model for @p target_dtype (::WEFT_FLOAT16 or
 *        ::WEFT_BFLOAT16) with MXNet's default operator lists.
 * @param num_args, arg_names, args the argument parameters (names without "arg:").
 * @param num_aux, aux_names, aux the auxiliary states.
 * @param num_excluded, excluded node names that stay float32 (may be NULL when 0).
 * @param cast_optional_params nonzero: parameters read directly by a
 *        low-precision operator are stored in @p target_dtype instead of cast
 *        in the graph.
 * @param[out] out_sym new symbol (MXNet's JSON format; parameters carry
 *        __dtype__); free with weft_symbol_free().
 * @param[out] out_args, out_aux new named lists, parameters cast where the
 *        converted symbol types them so; free with weft_ndarray_list_free().
 * Errors: ::WEFT_ERR_DTYPE for another target dtype; ::WEFT_ERR_INVALID_ARGUMENT
 * for a name given twice.
 */
WEFT_API WeftStatus weft_amp_convert_model(const WeftSymbolHandle* sym, size_t num_args,
                                           const char* const* arg_names, WeftNDArray* const* args,
                                           size_t num_aux, const char* const* aux_names,
                                           WeftNDArray* const* aux, int target_dtype,
                                           size_t num_excluded, const char* const* excluded,
                                           int cast_optional_params, WeftSymbolHandle** out_sym,
                                           WeftNDArrayList** out_args, WeftNDArrayList** out_aux);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_AMP_H_ */
