/**
 * @file c_api_data.h
 * @brief Training data: IDX/MNIST files, data iterators, evaluation metrics and
 *        checkpoints.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_DATA_H_
#define WEFT_C_API_DATA_H_

#include "c_api_base.h"
#include "c_api_ndarray_io.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ training: data */
/*
 * Training data, metrics and checkpoints (weft/idx.h, weft/data_iter.h,
 * weft/metric.h, weft/checkpoint.h).
 *
 * IDX files (MNIST's format) are read raw or gzip-compressed (detected by
 * the gzip magic); malformed input (wrong magic, unknown type code,
 * truncated data, trailing bytes, corrupt gzip) fails with
 * WEFT_ERR_INVALID_ARGUMENT or WEFT_ERR_DTYPE naming the path, the field
 * and expected versus found; an unreadable path fails with WEFT_ERR_IO.
 *
 * A data iterator batches in-memory arrays like MXNet's NDArrayIter. Its
 * batch arrays are reused: handles obtained from weft_data_iter_data() /
 * _label() share them and are rewritten by the next weft_data_iter_next().
 * One iterator must not be used by two threads at once.
 *
 * A metric accumulates over weft_metric_update() calls until
 * weft_metric_reset(), like MXNet's EvalMetric; a failed update adds
 * nothing.
 *
 * A checkpoint is MXNet's pair "<prefix>-symbol.json" and
 * "<prefix>-<epoch %04d>.params" (parameter names "arg:<name>" and
 * "aux:<name>").
 */

/** A data iterator. Free with weft_data_iter_free(). */
typedef struct WeftDataIter WeftDataIter;
/** An evaluation metric. Free with weft_metric_free(). */
typedef struct WeftMetric WeftMetric;

/**
 * @brief Loads an IDX file (uint8, int8, int16 widened to int32, int32,
 *        float32, float64), raw or gzip.
 * @param[out] out new cpu(0) handle; free with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_idx_load(const char* path, WeftNDArray** out);

/**
 * @brief Loads an MNIST / Fashion-MNIST pair of IDX files.
 * @param[out] images_out new float32 (N, 1, rows, cols) handle, pixels / 255;
 *             free with weft_ndarray_free().
 * @param[out] labels_out new float32 (N) handle; free with weft_ndarray_free().
 * Fails when the files are not uint8 images of rank 3 and labels of rank 1,
 * or when their counts differ (naming both paths).
 */
WEFT_API WeftStatus weft_mnist_load(const char* images_path, const char* labels_path,
                                    WeftNDArray** images_out, WeftNDArray** labels_out);

/**
 * @brief An iterator over in-memory arrays (MXNet's NDArrayIter).
 * @param num_data, data_names, data at least one named cpu array; samples
 *        along the first axis, equal in every array.
 * @param num_label, label_names, label labels, as data (@p num_label may be 0).
 * @param batch_size > 0.
 * @param shuffle non-zero: permute the samples at creation and at every
 *        reset, with a generator seeded by @p seed (reproducible).
 * @param last_batch "pad" (NULL means "pad"), "discard" or "roll_over".
 * @param[out] out new handle; free with weft_data_iter_free(). The source
 *        arrays are shared, not copied.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming the argument (NULL or repeated
 * names, batch_size <= 0, differing first dimensions, a bad last_batch),
 * WEFT_ERR_DEVICE for non-cpu arrays, WEFT_ERR_INVALID_HANDLE.
 */
WEFT_API WeftStatus weft_data_iter_create_ndarray(size_t num_data, const char* const* data_names,
                                                  WeftNDArray* const* data, size_t num_label,
                                                  const char* const* label_names,
                                                  WeftNDArray* const* label, int batch_size,
                                                  int shuffle, const char* last_batch,
                                                  uint64_t seed, WeftDataIter** out);

/**
 * @brief An iterator by MXNet's name ("CSVIter", "LibSVMIter", "MNISTIter", "ImageRecordIter";
 *        weft_data_iter_list()) with @p num_params string parameters under
 *        MXNet's names (parallel @p keys / @p vals), as MXDataIterCreateIter.
 * @param[out] out new handle; free with weft_data_iter_free().
 * Errors: WEFT_ERR_NOT_FOUND for an unknown name (listing the known ones);
 * WEFT_ERR_INVALID_ARGUMENT naming a missing, unknown or malformed parameter;
 * WEFT_ERR_IO naming an unreadable file.
 */
WEFT_API WeftStatus weft_data_iter_create(const char* name, const char* const* keys,
                                          const char* const* vals, size_t num_params,
                                          WeftDataIter** out);

/** @brief The names weft_data_iter_create() takes. @param[out] out free with
 * weft_string_list_free(). */
WEFT_API WeftStatus weft_data_iter_list(WeftStringList** out);

/**
 * @brief Documentation of iterator @p name (MXListDataIters' info).
 * @param[out] out_doc description; @param[out] out_num_params number of parameters.
 */
WEFT_API WeftStatus weft_data_iter_info(const char* name, const char** out_doc,
                                        size_t* out_num_params);

/**
 * @brief Describes parameter @p index of iterator @p name, as weft_op_param() does for an
 *        operator (out_default NULL when required; any out-pointer may be NULL).
 */
WEFT_API WeftStatus weft_data_iter_param(const char* name, size_t index, const char** out_name,
                                         const char** out_type, const char** out_default,
                                         const char** out_doc);

/** @brief Advances to the next batch. @param[out] has_next 1 for a batch, 0 at the end of the
 * epoch. */
WEFT_API WeftStatus weft_data_iter_next(WeftDataIter* it, int* has_next);

/** Starts a new epoch (reshuffles; roll_over carries the last epoch's leftover samples). */
WEFT_API WeftStatus weft_data_iter_reset(WeftDataIter* it);

/**
 * @brief The current batch's data arrays, named as at creation.
 * @param[out] out new list sharing the iterator's batch arrays; free with
 *        weft_ndarray_list_free(). WEFT_ERR_INVALID_ARGUMENT when the last
 *        weft_data_iter_next() did not return a batch.
 */
WEFT_API WeftStatus weft_data_iter_data(const WeftDataIter* it, WeftNDArrayList** out);
/** As weft_data_iter_data(), for the label arrays (an empty list when there are none). */
WEFT_API WeftStatus weft_data_iter_label(const WeftDataIter* it, WeftNDArrayList** out);
/** @brief Padding rows at the end of the current batch (MXNet's DataBatch.pad). */
WEFT_API WeftStatus weft_data_iter_pad(const WeftDataIter* it, int* pad);
/**
 * @brief The sample index (row of the source arrays) of each row of the current batch.
 * @param out @p capacity slots; @param[out] num the batch size. Fails when
 *        @p capacity is smaller than the batch size.
 */
WEFT_API WeftStatus weft_data_iter_index(const WeftDataIter* it, int64_t* out, size_t capacity,
                                         size_t* num);
/** The batch size. */
WEFT_API WeftStatus weft_data_iter_batch_size(const WeftDataIter* it, int* out);

/** Releases @p it (NULL is a no-op); list handles obtained from it stay valid. */
WEFT_API WeftStatus weft_data_iter_free(WeftDataIter* it);

/**
 * @brief Creates a metric by MXNet's name (case-insensitive): "acc"/"accuracy"
 *        (axis), "top_k_accuracy"/"top_k_acc" (top_k), "ce"/"cross-entropy"
 *        (eps), "mse", "mae", "rmse", "f1" and "mcc" (average: "macro" or
 *        "micro"), "perplexity" (ignore_label: an integer or None, default
 *        -1; axis, default -1), "nll_loss" (eps; reported as "nll-loss"),
 *        "pearsonr" (average), "loss" (the mean of the outputs), or
 *        "composite" (empty; see weft_metric_composite_add()). Semantics as
 *        MXNet 1.9.1's metric.py; details in weft/metric.h.
 * @param keys, vals @p num_params parameters.
 * @param[out] out new handle; free with weft_metric_free().
 * Unknown names or parameters fail with WEFT_ERR_INVALID_ARGUMENT listing the valid ones.
 */
WEFT_API WeftStatus weft_metric_create(const char* name, const char* const* keys,
                                       const char* const* vals, size_t num_params,
                                       WeftMetric** out);

/** Adds a new metric (as weft_metric_create()) to the composite metric @p m. */
WEFT_API WeftStatus weft_metric_composite_add(WeftMetric* m, const char* name,
                                              const char* const* keys, const char* const* vals,
                                              size_t num_params);

/**
 * @brief Accumulates one prediction per label (@p num_labels == @p num_preds).
 * Shape mismatches fail with WEFT_ERR_SHAPE naming the pair and both shapes.
 */
WEFT_API WeftStatus weft_metric_update(WeftMetric* m, size_t num_labels, WeftNDArray* const* labels,
                                       size_t num_preds, WeftNDArray* const* preds);

/** @brief Number of (name, value) pairs weft_metric_get() returns (1, or a composite's count). */
WEFT_API WeftStatus weft_metric_num_values(const WeftMetric* m, size_t* out);

/**
 * @brief The current values as MXNet's get() reports them (sum / count for most;
 *        exp of it for perplexity; NaN before any instance).
 * @param[out] names new list of the value names ("accuracy", ...); free with
 *        weft_string_list_free().
 * @param[out] values @p capacity slots receiving the values.
 * @param[out] num number of values. Fails when @p capacity is too small.
 */
WEFT_API WeftStatus weft_metric_get(const WeftMetric* m, WeftStringList** names, double* values,
                                    size_t capacity, size_t* num);

/** Clears the accumulated sums and counts. */
WEFT_API WeftStatus weft_metric_reset(WeftMetric* m);

/** Releases @p m (NULL is a no-op). */
WEFT_API WeftStatus weft_metric_free(WeftMetric* m);

/**
 * @brief Writes a checkpoint (MXNet's save_checkpoint).
 * @param epoch >= 0.
 * @param num_args, arg_names, args argument parameters (names without "arg:").
 * @param num_aux, aux_names, aux auxiliary states (names without "aux:").
 * Errors: WEFT_ERR_INVALID_ARGUMENT (negative epoch, NULL or repeated
 * names), WEFT_ERR_INVALID_HANDLE, WEFT_ERR_IO naming the file.
 */
WEFT_API WeftStatus weft_checkpoint_save(const char* prefix, int epoch, const WeftSymbolHandle* sym,
                                         size_t num_args, const char* const* arg_names,
                                         WeftNDArray* const* args, size_t num_aux,
                                         const char* const* aux_names, WeftNDArray* const* aux);

/**
 * @brief Reads a checkpoint (MXNet's load_checkpoint).
 * @param[out] sym new symbol; free with weft_symbol_free().
 * @param[out] args new list named by argument (prefix removed); free with weft_ndarray_list_free().
 * @param[out] aux new list named by auxiliary state; free with weft_ndarray_list_free().
 * Parameter names without "arg:"/"aux:" (Gluon's collect_params().save())
 * are split by the symbol's auxiliary states, as MXNet's load_dict does.
 * Errors name the file: WEFT_ERR_IO (missing), WEFT_ERR_INVALID_ARGUMENT
 * (malformed, or one parameter named twice).
 */
WEFT_API WeftStatus weft_checkpoint_load(const char* prefix, int epoch, WeftSymbolHandle** sym,
                                         WeftNDArrayList** args, WeftNDArrayList** aux);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_DATA_H_ */
