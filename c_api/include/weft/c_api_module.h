/**
 * @file c_api_module.h
 * @brief Modules: MXNet's training loop (bind, init params and optimizer, forward,
 *        backward, update, metrics, fit with an optional batch-end callback, score,
 *        checkpoints).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_MODULE_H_
#define WEFT_C_API_MODULE_H_

#include "c_api_base.h"
#include "c_api_data.h"
#include "c_api_ndarray_io.h"
#include "c_api_optimizer.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------- training: module */

/*
 * A module (weft/module.h) is a symbol whose arguments split into data,
 * labels and parameters, bound for an iterator's batch shapes, with an
 * optimizer: the training loop of MXNet's Module. Parameters live in the
 * module and are updated in place; weft_module_params() returns them as
 * named lists sharing the module's arrays. Threads: one module must not be
 * used by two threads at once; distinct modules may run concurrently.
 */

/** A module. Free with weft_module_free(). */
typedef struct WeftModule WeftModule;

/** What weft_module_fit() prints on stdout. */
typedef enum {
  WEFT_PROGRESS_AUTO = 0,  /**< a bar when stdout is a terminal, else lines */
  WEFT_PROGRESS_BAR = 1,   /**< a carriage-return progress bar */
  WEFT_PROGRESS_LINES = 2, /**< a line every 100 batches */
  WEFT_PROGRESS_EPOCH = 3, /**< only each epoch's summary */
  WEFT_PROGRESS_SILENT = 4 /**< nothing */
} WeftProgress;

/**
 * @brief A module over @p sym on device (@p dev_type, @p dev_id).
 * @param data_names, label_names arguments fed from batches (e.g. "data",
 *        "softmax_label"); every other argument is a parameter.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming a name that is not an argument.
 */
WEFT_API WeftStatus weft_module_create(const WeftSymbolHandle* sym, size_t num_data,
                                       const char* const* data_names, size_t num_label,
                                       const char* const* label_names, int dev_type, int dev_id,
                                       WeftModule** out);

/**
 * @brief Fixes parameters, as MXNet's Module(fixed_param_names=...): they
 *        are bound without a gradient and never updated by the optimizer
 *        (weft_module_update(), weft_module_fit()); they keep the values
 *        weft_module_init_params() gives them. Call before weft_module_bind();
 *        the list replaces the previous one (@p num_names 0 fixes none).
 * @param names @p num_names argument names of the module's symbol.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming every name that is not an argument
 * of the symbol, a NULL or repeated entry, or a module that is already bound;
 * the module's list is unchanged then.
 */
WEFT_API WeftStatus weft_module_set_fixed_params(WeftModule* mod, size_t num_names,
                                                 const char* const* names);

/**
 * @brief Binds for the batch shapes of @p iter (its provide_data/label);
 *        @p for_training allocates parameter gradients. Rebinding keeps the
 *        parameter values.
 */
WEFT_API WeftStatus weft_module_bind(WeftModule* mod, const WeftDataIter* iter, int for_training);

/**
 * @brief Sets every parameter and aux state: from @p args / @p aux (named
 *        lists such as weft_checkpoint_load() returns; either may be NULL),
 *        the rest from @p init (may be NULL when everything is given).
 * Errors: WEFT_ERR_SHAPE naming a given array of the wrong shape;
 * WEFT_ERR_INVALID_ARGUMENT naming a parameter without a value (no
 * initializer, or arrays given and @p allow_missing is 0).
 */
WEFT_API WeftStatus weft_module_init_params(WeftModule* mod, const WeftInitializer* init,
                                            const WeftNDArrayList* args, const WeftNDArrayList* aux,
                                            int allow_missing);

/**
 * @brief Attaches @p opt (shared: its state is the optimizer's, and
 *        @p opt may be freed afterwards); sets its rescale_grad to
 *        1/batch_size and its multipliers from the symbol's attributes.
 */
WEFT_API WeftStatus weft_module_init_optimizer(WeftModule* mod, const WeftOptimizer* opt);

/** @brief Forward on the current batch of @p iter (after weft_data_iter_next()). */
WEFT_API WeftStatus weft_module_forward(WeftModule* mod, const WeftDataIter* iter, int is_train);

/** @brief Backward after a training forward (loss outputs: implicit head gradients). */
WEFT_API WeftStatus weft_module_backward(WeftModule* mod);

/** @brief One optimizer step on every parameter. */
WEFT_API WeftStatus weft_module_update(WeftModule* mod);

/** @brief Updates @p metric with the last forward's outputs and the labels
 *         of @p iter's current batch, without its padded rows. */
WEFT_API WeftStatus weft_module_update_metric(WeftModule* mod, WeftMetric* metric,
                                              const WeftDataIter* iter);

/** @brief The last forward's outputs, named; free the list with weft_ndarray_list_free(). */
WEFT_API WeftStatus weft_module_outputs(const WeftModule* mod, WeftNDArrayList** out);

/**
 * @brief The parameters and aux states as named lists sharing the module's
 *        arrays (either out-parameter may be NULL).
 */
WEFT_API WeftStatus weft_module_params(const WeftModule* mod, WeftNDArrayList** out_args,
                                       WeftNDArrayList** out_aux);

/**
 * @brief Trains epochs [@p begin_epoch, @p num_epoch) on @p train (binding
 *        it first if needed), evaluating @p metric on @p eval (may be NULL)
 *        after each epoch; with @p checkpoint_prefix (may be NULL) a
 *        checkpoint is written after each epoch as epoch + 1.
 * @param progress a ::WeftProgress.
 * @param[out] out_samples_per_sec the last epoch's training throughput (may be NULL).
 * After the call @p metric holds the last evaluation (or training) values.
 * Errors: WEFT_ERR_INVALID_ARGUMENT (no optimizer, bad epochs, bad
 * progress), and any error of the batches' shapes or the model.
 */
WEFT_API WeftStatus weft_module_fit(WeftModule* mod, WeftDataIter* train, WeftDataIter* eval,
                                    WeftMetric* metric, int begin_epoch, int num_epoch,
                                    int progress, const char* checkpoint_prefix,
                                    double* out_samples_per_sec);

/* The batch-end callback is C only: the SWIG bindings (bindings/weft.i
 * %includes this header) do not wrap a C function pointer or this struct. */
#ifndef SWIG
/**
 * What a batch-end callback sees after each training batch of
 * weft_module_fit_with_callback(); every pointer is valid during the call
 * only.
 */
typedef struct {
  int epoch;                       /**< 0-based */
  int64_t batch;                   /**< 1-based, within the epoch */
  int64_t num_batches;             /**< batches per epoch; -1 when the iterator does not know */
  int64_t samples;                 /**< samples trained so far this epoch, padding excluded */
  double seconds;                  /**< since the epoch started */
  size_t num_metrics;              /**< entries of metric_names / metric_values */
  const char* const* metric_names; /**< the training metric's names (e.g. "accuracy") */
  const double* metric_values;     /**< its values over the epoch's batches so far */
} WeftBatchEnd;

/**
 * A batch-end callback: return 0 to go on, non-zero to stop training after
 * this batch. It runs on the thread that called weft_module_fit_with_callback()
 * and must not call into @p mod.
 */
typedef int (*WeftBatchEndCallback)(const WeftBatchEnd* info, void* user_data);

/**
 * @brief weft_module_fit() with @p callback (may be NULL) called after every
 *        training batch with @p user_data, after the @p progress printer.
 * A non-zero return stops training cleanly: the call waits for the pushed
 * updates and returns WEFT_OK; the parameters hold every update up to that
 * batch; the stopped epoch gets its summary line (per @p progress) but no
 * evaluation on @p eval and no checkpoint, and later epochs do not run;
 * @p metric holds that epoch's training values so far and
 * @p out_samples_per_sec its throughput. The module stays usable.
 * Errors: those of weft_module_fit().
 */
WEFT_API WeftStatus weft_module_fit_with_callback(WeftModule* mod, WeftDataIter* train,
                                                  WeftDataIter* eval, WeftMetric* metric,
                                                  int begin_epoch, int num_epoch, int progress,
                                                  const char* checkpoint_prefix,
                                                  WeftBatchEndCallback callback, void* user_data,
                                                  double* out_samples_per_sec);
#endif /* SWIG */

/* ---------------------------------------------------- training: fit steps */

/*
 * weft_module_fit() as steps the caller drives: each weft_fit_session_next()
 * runs one training batch or closes one epoch, so a program runs its own
 * batch-end and epoch-end code (progress, early stop) on its own thread
 * between two steps, with no callback into it (the bindings' fit callbacks
 * are built on this). weft/fit_session.h states the semantics.
 */

/** A fit in progress. Free with weft_fit_session_free(). */
typedef struct WeftFitSession WeftFitSession;

/** What weft_fit_session_next() did. */
typedef enum {
  WEFT_FIT_DONE = 0,      /**< every epoch ran (or the session was stopped) */
  WEFT_FIT_BATCH_END = 1, /**< one training batch ran: weft_fit_session_batch() */
  WEFT_FIT_EPOCH_END = 2  /**< an epoch closed (validation, checkpoint): weft_fit_session_epoch() */
} WeftFitEvent;

/**
 * @brief Starts weft_module_fit() with the same arguments as steps (binds
 *        @p mod for training when needed).
 * The session keeps @p mod, the iterators and @p metric alive; none of them
 * may be used elsewhere until the session is done or freed.
 * Errors: those of weft_module_fit() that arguments cause.
 */
WEFT_API WeftStatus weft_fit_session_create(WeftModule* mod, WeftDataIter* train,
                                            WeftDataIter* eval, WeftMetric* metric, int begin_epoch,
                                            int num_epoch, int progress,
                                            const char* checkpoint_prefix, WeftFitSession** out);
/**
 * @brief Runs the next step; @p out receives a ::WeftFitEvent.
 * After an error the session is done (later calls return WEFT_FIT_DONE).
 */
WEFT_API WeftStatus weft_fit_session_next(WeftFitSession* s, int* out);
/**
 * @brief Stops training (MXNet's early stop): after a WEFT_FIT_BATCH_END the
 *        epoch closes at once as weft_module_fit_with_callback()'s stop does
 *        (updates waited for, no validation, no checkpoint); after a
 *        WEFT_FIT_EPOCH_END later epochs are skipped. Idempotent.
 */
WEFT_API WeftStatus weft_fit_session_stop(WeftFitSession* s);
/**
 * @brief The last batch (after WEFT_FIT_BATCH_END): 0-based epoch, 1-based
 *        batch within it, batches per epoch (-1: unknown), samples so far this
 *        epoch (padding excluded) and seconds since the epoch started. Every
 *        out-parameter may be NULL. The training metric so far is the
 *        metric's own (weft_metric_get()).
 */
WEFT_API WeftStatus weft_fit_session_batch(const WeftFitSession* s, int* epoch, int64_t* batch,
                                           int64_t* num_batches, int64_t* samples, double* seconds);
/**
 * @brief The last closed epoch: its number, batches and samples run, training
 *        seconds, throughput and whether it was stopped. Every out-parameter
 *        may be NULL. Fails before any epoch closed.
 */
WEFT_API WeftStatus weft_fit_session_epoch(const WeftFitSession* s, int* epoch, int64_t* batches,
                                           int64_t* samples, double* seconds,
                                           double* samples_per_sec, int* stopped);
/**
 * @brief The last closed epoch's metric values: training (@p validation 0)
 *        or validation (nonzero; none without a validation iterator or when
 *        stopped). Outputs as weft_metric_get().
 */
WEFT_API WeftStatus weft_fit_session_epoch_metric(const WeftFitSession* s, int validation,
                                                  WeftStringList** names, double* values,
                                                  size_t capacity, size_t* num);
/** Releases @p s (NULL is a no-op); a session not done is dropped where it stands. */
WEFT_API WeftStatus weft_fit_session_free(WeftFitSession* s);

/** @brief Runs @p iter once from its start in inference mode into @p metric
 *         (reset first); read the values with weft_metric_get(). */
WEFT_API WeftStatus weft_module_score(WeftModule* mod, WeftDataIter* iter, WeftMetric* metric);

/** @brief Writes <prefix>-symbol.json and <prefix>-<epoch, 4 digits>.params. */
WEFT_API WeftStatus weft_module_save_checkpoint(const WeftModule* mod, const char* prefix,
                                                int epoch);

/** Releases @p mod (NULL is a no-op). */
WEFT_API WeftStatus weft_module_free(WeftModule* mod);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_MODULE_H_ */
