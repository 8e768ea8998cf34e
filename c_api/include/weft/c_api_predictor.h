/**
 * @file c_api_predictor.h
 * @brief Predictors: thread-safe inference for services (a model's weights held
 *        once, a pool of executors, optional dynamic batching).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_PREDICTOR_H_
#define WEFT_C_API_PREDICTOR_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ predictor */

/**
 * Predictor: thread-safe inference for services.
 * A predictor holds one read-only copy of a model's weights and a pool of
 * executors bound to them (weft/predictor.h). weft_predictor_predict() may
 * be called from any number of threads at once: each call takes an idle
 * executor for its input shapes (binding one, up to "max_executors" per
 * shape set, or waiting for one), copies the inputs in and the outputs out.
 * Input shapes not seen before bind once and are kept ("max_shapes" sets).
 * A model holding an operator whose output extents depend on the input
 * values (ONNX's NonMaxSuppression) runs node by node instead of through
 * an executor: weft_predictor_output_shape() gives its outputs' upper
 * bounds, weft_predictor_predict_shaped() each call's shapes (the other
 * predict functions then need buffers of exactly this call's sizes), and
 * "max_batch" and monitors are refused (weft/predictor.h).
 * weft_predictor_free() closes the predictor: calls waiting for an executor
 * fail with WEFT_ERR_INVALID_ARGUMENT ("closed"), calls already running
 * finish first (free returns after them); later calls get
 * WEFT_ERR_INVALID_HANDLE.
 */

/** A predictor. Free with weft_predictor_free(). */
typedef struct WeftPredictor WeftPredictor;

/** Figures of a predictor (weft_predictor_stats()). */
typedef struct {
  size_t executors;        /**< bound executors over all shape sets */
  size_t shape_sets;       /**< input shape sets bound */
  size_t in_use;           /**< executors running a call now */
  size_t weight_bytes;     /**< the frozen weights, held once */
  size_t activation_bytes; /**< planned memory over all executors */
} WeftPredictorStats;

/**
 * @brief Creates a predictor from symbol JSON text and the bytes of a
 *        .params file ("arg:"/"aux:" names, as MXNet saves them, or names
 *        without a prefix, split by the symbol's auxiliary states as MXNet's
 *        load_dict does).
 * @param num_inputs, input_names, ind_ptr, dims the inputs in the order
 *        predict takes them, with their first shapes (CSR-style as in
 *        weft_symbol_infer_shape(), every extent > 0); every other argument
 *        is a weight from @p params (arguments ending in "label" that
 *        @p params lacks are fed zeros).
 * @param num_outputs, output_names what predict returns: internal outputs
 *        ("conv4_2_output") or node names ("fc1"); 0 = the symbol's outputs.
 * @param num_options, option_keys, option_values "max_executors" (per shape
 *        set, default twice the cores, at least 4), "max_shapes"
 *        (default 8), "bulk_max_nodes", "optimize_inference" ("0"/"1");
 *        dynamic batching: "max_batch" (> 1 turns it on: concurrent calls
 *        whose inputs differ only in their first extent are run as one batch
 *        of up to this many samples; every output must have the batch as
 *        its first axis; batches hold a power-of-two number of samples
 *        where the calls allow), "batch_delay_us" (how long a batch's first
 *        call waits for more; default 0: a batch takes the calls already
 *        queued), "batch_queue" ("mutex", the default, or "lockfree"). A
 *        call with more samples than max_batch runs alone.
 * @param[out] out new handle; free with weft_predictor_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT (an input that is no argument, a weight
 * missing from @p params, an unknown output or option), WEFT_ERR_SHAPE,
 * WEFT_ERR_DEVICE, and the symbol and .params loaders' errors.
 */
WEFT_API WeftStatus weft_predictor_create(const char* symbol_json, const void* params,
                                          size_t params_size, size_t num_inputs,
                                          const char* const* input_names, const size_t* ind_ptr,
                                          const int64_t* dims, int dev_type, int dev_id,
                                          size_t num_outputs, const char* const* output_names,
                                          size_t num_options, const char* const* option_keys,
                                          const char* const* option_values, WeftPredictor** out);

/** As weft_predictor_create() from a -symbol.json and a .params file, or from
 * an ONNX model (@p symbol_path ending in ".onnx", imported as
 * weft_onnx_import() does with the input shapes given here; @p params_path
 * must then be NULL or ""). */
WEFT_API WeftStatus weft_predictor_create_from_files(
    const char* symbol_path, const char* params_path, size_t num_inputs,
    const char* const* input_names, const size_t* ind_ptr, const int64_t* dims, int dev_type,
    int dev_id, size_t num_outputs, const char* const* output_names, size_t num_options,
    const char* const* option_keys, const char* const* option_values, WeftPredictor** out);

/**
 * @brief Sets (or, with a NULL callback, removes) a monitor on every executor
 *        of @p pred (as weft_executor_set_monitor_callback(), for the
 *        optimised inference graph's nodes): called on the thread running
 *        weft_predictor_predict*, so calls from several threads call it
 *        concurrently.
 */
WEFT_API WeftStatus weft_predictor_set_monitor_callback(WeftPredictor* pred,
                                                        WeftMonitorCallback callback, void* user,
                                                        int monitor_all);

/** @brief The input names in predict order; free @p out with weft_string_list_free(). */
WEFT_API WeftStatus weft_predictor_list_inputs(const WeftPredictor* pred, WeftStringList** out);

/** @brief The output names in predict order; free @p out with weft_string_list_free(). */
WEFT_API WeftStatus weft_predictor_list_outputs(const WeftPredictor* pred, WeftStringList** out);

/**
 * @brief The shape of output @p index for these input shapes (from an
 *        executor bound for them, or by shape inference). For a model whose
 *        output extents depend on the input values (NonMaxSuppression), the
 *        upper bound: a buffer of that size always suffices, and
 *        weft_predictor_predict_shaped() reports each call's own shape.
 * @param ind_ptr, dims one shape per input, CSR-style.
 * @param out_dims receives up to @p capacity extents; @p out_ndim the rank
 *        (WEFT_ERR_INVALID_ARGUMENT when it exceeds @p capacity).
 */
WEFT_API WeftStatus weft_predictor_output_shape(WeftPredictor* pred, size_t num_inputs,
                                                const size_t* ind_ptr, const int64_t* dims,
                                                size_t index, int64_t* out_dims, size_t capacity,
                                                size_t* out_ndim);

/**
 * @brief Runs the model: input i is @p input_bytes[i] bytes at
 *        @p input_data[i] holding an array of shape i (CSR @p ind_ptr,
 *        @p dims) in the input's dtype; output j is written to the
 *        @p output_bytes[j] bytes at @p output_data[j] (its exact size).
 *        Thread-safe; blocks until done.
 * Errors: WEFT_ERR_INVALID_ARGUMENT (counts, sizes, a closed predictor),
 * WEFT_ERR_SHAPE (a shape the model cannot take, naming the node and input),
 * and kernel errors naming the node. The predictor stays usable.
 */
WEFT_API WeftStatus weft_predictor_predict(WeftPredictor* pred, size_t num_inputs,
                                           const void* const* input_data, const size_t* input_bytes,
                                           const size_t* ind_ptr, const int64_t* dims,
                                           size_t num_outputs, void* const* output_data,
                                           const size_t* output_bytes);

/**
 * @brief weft_predictor_predict() with the inputs and outputs packed back to
 *        back: input i is the @p input_bytes[i] bytes at @p input_data plus
 *        the sum of @p input_bytes[0..i), output j likewise in
 *        @p output_data. For callers that cannot pass an array of pointers
 *        (Go may not hand C an array of pointers to Go memory).
 * @param input_data, output_data may be NULL only when their byte counts
 *        sum to 0.
 * Errors: as weft_predictor_predict(), and WEFT_ERR_INVALID_ARGUMENT when
 * @p input_bytes or @p output_bytes sum past SIZE_MAX.
 */
WEFT_API WeftStatus weft_predictor_predict_packed(WeftPredictor* pred, size_t num_inputs,
                                                  const void* input_data, const size_t* input_bytes,
                                                  const size_t* ind_ptr, const int64_t* dims,
                                                  size_t num_outputs, void* output_data,
                                                  const size_t* output_bytes);

/**
 * @brief weft_predictor_predict() that also reports the shape of every
 *        output this call wrote, for models whose output extents depend on
 *        the input values (ONNX's NonMaxSuppression: how many boxes
 *        survive; such a model runs node by node, see weft/predictor.h).
 *        @p output_bytes[j] is output j's capacity: at least its size this
 *        call (the shape weft_predictor_output_shape() reports, an upper
 *        bound for such a model, always suffices); the output is written at
 *        the start of its buffer. Works on every predictor.
 * @param out_ind_ptr receives @p num_outputs + 1 offsets into @p out_dims
 *        (CSR, as the inputs' @p ind_ptr): output j's shape is
 *        out_dims[out_ind_ptr[j] .. out_ind_ptr[j+1]).
 * @param out_dims receives the extents, up to @p capacity (every output's
 *        rank, as weft_predictor_output_shape() gives it, summed).
 * Errors: as weft_predictor_predict(); WEFT_ERR_INVALID_ARGUMENT naming the
 * output whose buffer is too small for this call's rows, or when the
 * shapes have more extents than @p capacity.
 */
WEFT_API WeftStatus weft_predictor_predict_shaped(WeftPredictor* pred, size_t num_inputs,
                                                  const void* const* input_data,
                                                  const size_t* input_bytes, const size_t* ind_ptr,
                                                  const int64_t* dims, size_t num_outputs,
                                                  void* const* output_data,
                                                  const size_t* output_bytes, size_t* out_ind_ptr,
                                                  int64_t* out_dims, size_t capacity);

/**
 * @brief weft_predictor_predict_shaped() with the inputs and output buffers
 *        packed back to back as in weft_predictor_predict_packed() (output
 *        j's buffer starts after the capacities @p output_bytes[0..j)).
 */
WEFT_API WeftStatus weft_predictor_predict_packed_shaped(
    WeftPredictor* pred, size_t num_inputs, const void* input_data, const size_t* input_bytes,
    const size_t* ind_ptr, const int64_t* dims, size_t num_outputs, void* output_data,
    const size_t* output_bytes, size_t* out_ind_ptr, int64_t* out_dims, size_t capacity);

/**
 * @brief weft_predictor_predict() for a model with one float32 input and
 *        one float32 output: @p input holds @p input_len floats of shape
 *        @p shape (@p ndim extents), @p output receives @p output_len floats.
 */
WEFT_API WeftStatus weft_predictor_predict_float(WeftPredictor* pred, const float* input,
                                                 size_t input_len, const int64_t* shape,
                                                 size_t ndim, float* output, size_t output_len);

/**
 * @brief The copies of weft_predictor_predict_float_with(): @p copy_in
 *        writes the input's @p bytes at @p dst, @p copy_out reads the
 *        output's @p bytes at @p src. Each returns 0, or non-zero to fail
 *        the call.
 */
typedef int (*WeftPredictorCopyIn)(void* user, void* dst, size_t bytes);
typedef int (*WeftPredictorCopyOut)(void* user, const void* src, size_t bytes);

/**
 * @brief weft_predictor_predict_float() where the caller copies: @p copy_in
 *        writes the @p input_len floats of shape @p shape straight into the
 *        executor's bound input (on a CPU predictor; a staging buffer on
 *        other devices or when calls are batched), @p copy_out reads the
 *        @p output_len floats of the output from the executor's memory. Both
 *        run on the calling thread, once each, with @p user; a binding copying
 *        from and into its language's own arrays (JNI's Get/SetFloatArrayRegion)
 *        copies each way once, without a temporary buffer.
 * Errors: as weft_predictor_predict_float(), and WEFT_ERR_INVALID_ARGUMENT
 * naming copy_in or copy_out when one returns non-zero.
 */
WEFT_API WeftStatus weft_predictor_predict_float_with(WeftPredictor* pred,
                                                      WeftPredictorCopyIn copy_in,
                                                      WeftPredictorCopyOut copy_out, void* user,
                                                      size_t input_len, const int64_t* shape,
                                                      size_t ndim, size_t output_len);

/** @brief The predictor's figures (see ::WeftPredictorStats). */
WEFT_API WeftStatus weft_predictor_stats(const WeftPredictor* pred, WeftPredictorStats* out);

/** Closes and releases @p pred (NULL is a no-op); see the group's text. */
WEFT_API WeftStatus weft_predictor_free(WeftPredictor* pred);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_PREDICTOR_H_ */
