/**
 * @file c_api_quantize.h
 * @brief int8 quantization of a float32 model with MXNet's quantize_model
 *        flow (weft/quantize_model.h): quantized operators, quantize /
 *        requantize / dequantize nodes, calibration on data, int8 weights.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_QUANTIZE_H_
#define WEFT_C_API_QUANTIZE_H_

#include "c_api_base.h"
#include "c_api_data.h"
#include "c_api_ndarray_io.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Quantizes a float32 model as MXNet's contrib.quantization.quantize_model does.
 * @param num_args, arg_names, args the argument parameters (names without "arg:");
 *        each becomes an offline parameter (weights and biases stored as int8).
 * @param num_aux, aux_names, aux the auxiliary states (kept as they are).
 * @param calib_data the calibration batches (read from a reset; its data names must be
 *        the symbol's inputs); may be NULL only when @p calib_mode is "none".
 * @param calib_mode "none", "naive" (min/max) or "entropy" (KL-optimal thresholds).
 * @param num_calib_examples at most this many examples are read; negative: all.
 * @param quantized_dtype "int8", "uint8" or "auto"; @param quantize_mode "smart" or "full".
 * @param fuse nonzero: MXNet's quantize_model_mkldnn (convolutions with their BatchNorm,
 *        relu and residual sum fused into int8 _sg_mkldnn_conv nodes, which keep float32
 *        weights: the fastest int8 graph on the CPU); zero: quantize_model.
 * @param num_excluded, excluded node names left in float32 (may be NULL when 0).
 * @param num_excluded_ops, excluded_ops operator names left in float32.
 * @param[out] out_sym the quantized symbol (MXNet's JSON format); free with weft_symbol_free().
 * @param[out] out_args, out_aux its parameters; free with weft_ndarray_list_free().
 * Errors: ::WEFT_ERR_INVALID_ARGUMENT for an unknown mode or dtype, a missing
 * calibration iterator, an excluded name that no node has, or a parameter the
 * quantized symbol needs and the lists lack.
 */
WEFT_API WeftStatus weft_quantize_model(
    const WeftSymbolHandle* sym, size_t num_args, const char* const* arg_names,
    WeftNDArray* const* args, size_t num_aux, const char* const* aux_names, WeftNDArray* const* aux,
    WeftDataIter* calib_data, const char* calib_mode, int64_t num_calib_examples,
    const char* quantized_dtype, const char* quantize_mode, int fuse, size_t num_excluded,
    const char* const* excluded, size_t num_excluded_ops, const char* const* excluded_ops,
    WeftSymbolHandle** out_sym, WeftNDArrayList** out_args, WeftNDArrayList** out_aux);

/**
 * @brief weft_quantize_model() with MXNet's quantize_granularity
 *        (quantize_model_mkldnn / quantize_net_v2).
 * @param quantize_granularity "tensor-wise" (one weight scale per layer; NULL means
 *        this, and weft_quantize_model() is this function with NULL) or "channel-wise":
 *        with @p fuse nonzero, every FullyConnected [-> relu / LeakyReLU leaky / abs /
 *        clip from 0] also becomes one _sg_mkldnn_fully_connected node with
 *        channel_wise_quantize=True, which keeps its float32 weight and bias and
 *        quantizes them with one scale per output channel; it needs calibration
 *        (@p calib_mode "naive" or "entropy"). Without @p fuse it changes nothing, as in MXNet.
 * Every other parameter, output and error is weft_quantize_model()'s.
 * Errors: ::WEFT_ERR_INVALID_ARGUMENT also for a granularity other than the two, and
 * for channel-wise fused layers with @p calib_mode "none".
 */
WEFT_API WeftStatus weft_quantize_model_ex(
    const WeftSymbolHandle* sym, size_t num_args, const char* const* arg_names,
    WeftNDArray* const* args, size_t num_aux, const char* const* aux_names, WeftNDArray* const* aux,
    WeftDataIter* calib_data, const char* calib_mode, int64_t num_calib_examples,
    const char* quantized_dtype, const char* quantize_mode, const char* quantize_granularity,
    int fuse, size_t num_excluded, const char* const* excluded, size_t num_excluded_ops,
    const char* const* excluded_ops, WeftSymbolHandle** out_sym, WeftNDArrayList** out_args,
    WeftNDArrayList** out_aux);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_QUANTIZE_H_ */
