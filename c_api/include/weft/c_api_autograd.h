/**
 * @file c_api_autograd.h
 * @brief Autograd: recording imperative calls (weft_op_invoke*) per thread,
 *        marking variables with gradient buffers, back-propagating, gradients
 *        as new arrays, detach and the recorded graph as a symbol (MXNet's
 *        MXAutograd* functions, MXNDArrayGetGrad, MXNDArrayDetach); cached
 *        ops (MXNet's CachedOp: a symbol invoked on arrays, recorded as well);
 *        trainers (Gluon's Trainer: an optimizer stepped over marked arrays).
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows. The recording and training flags belong to
 * the calling thread; weft/autograd.h states the semantics.
 */
#ifndef WEFT_C_API_AUTOGRAD_H_
#define WEFT_C_API_AUTOGRAD_H_

#include "c_api_base.h"
#include "c_api_optimizer.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- autograd */

/**
 * Sets whether the calling thread records imperative calls (nonzero: on).
 * @param[out] prev the previous setting (NULL: not wanted).
 */
WEFT_API WeftStatus weft_autograd_set_is_recording(int is_recording, int* prev);
/**
 * Sets whether ops run in training mode on the calling thread (Dropout
 * masks, BatchNorm batch statistics). @param[out] prev as above.
 */
WEFT_API WeftStatus weft_autograd_set_is_training(int is_training, int* prev);
/** Whether the calling thread records (1) or not (0). */
WEFT_API WeftStatus weft_autograd_is_recording(int* out);
/** Whether the calling thread runs ops in training mode (1) or not (0). */
WEFT_API WeftStatus weft_autograd_is_training(int* out);
/**
 * @brief Marks @p num arrays as variables with gradient buffers.
 * @param reqs one ::WeftReq per variable (WEFT_REQ_NULL: no gradient).
 * @param grads one buffer per variable, of its shape, dtype and device
 *        (NULL entries allowed where the request is WEFT_REQ_NULL); the
 *        variable keeps a reference to it.
 */
WEFT_API WeftStatus weft_autograd_mark_variables(WeftNDArray* const* vars, size_t num,
                                                 const int* reqs, WeftNDArray* const* grads);
/**
 * @brief Back-propagates from @p num_heads recorded arrays into the marked
 *        variables' gradient buffers (written or added per their requests).
 * @param head_grads NULL (ones for every head) or @p num_heads handles,
 *        each NULL for ones.
 * @param retain_graph nonzero keeps the recorded values for another pass.
 * @param train_mode nonzero runs the gradient ops in training mode.
 */
WEFT_API WeftStatus weft_autograd_backward(WeftNDArray* const* heads, size_t num_heads,
                                           WeftNDArray* const* head_grads, int retain_graph,
                                           int train_mode);
/**
 * @brief The gradients of the heads with respect to @p num_variables marked
 *        arrays, as new arrays; the gradient buffers are left alone.
 * @param[out] out_grads @p num_variables slots receiving new handles; free
 *             each with weft_ndarray_free().
 */
WEFT_API WeftStatus weft_autograd_grad(WeftNDArray* const* heads, size_t num_heads,
                                       WeftNDArray* const* head_grads,
                                       WeftNDArray* const* variables, size_t num_variables,
                                       int retain_graph, int train_mode, WeftNDArray** out_grads);
/**
 * @brief weft_autograd_grad() with MXNet's create_graph: nonzero records the
 *        gradient computation too (and keeps the graph), so the returned
 *        gradients can be differentiated again (higher order) where the
 *        gradient ops have gradients; a backward through one that has none
 *        fails naming it. ::WEFT_ERR_NOT_IMPLEMENTED for create_graph through a
 *        recorded cached-op call.
 */
WEFT_API WeftStatus weft_autograd_grad_ex(WeftNDArray* const* heads, size_t num_heads,
                                          WeftNDArray* const* head_grads,
                                          WeftNDArray* const* variables, size_t num_variables,
                                          int retain_graph, int create_graph, int train_mode,
                                          WeftNDArray** out_grads);
/**
 * The gradient buffer of a marked array as a new handle (sharing the
 * buffer), or NULL in @p out when @p arr is not marked.
 */
WEFT_API WeftStatus weft_ndarray_get_grad(const WeftNDArray* arr, WeftNDArray** out);
/** A new handle on @p arr's storage without its autograd record: gradients stop there. */
WEFT_API WeftStatus weft_ndarray_detach(const WeftNDArray* arr, WeftNDArray** out);
/** The recorded graph that computed @p arr as a new symbol. */
WEFT_API WeftStatus weft_autograd_get_symbol(const WeftNDArray* arr, WeftSymbolHandle** out);

/* -------------------------------------------------------------- cached op */

/** A symbol invoked imperatively (MXNet's CachedOp). Free with weft_cached_op_free(). */
typedef struct WeftCachedOp WeftCachedOp;

/**
 * @brief Creates a cached op of @p sym (MXNet's MXCreateCachedOpEx).
 * @param keys,vals @p num_flags flags: static_alloc, static_shape, data_indices,
 *        param_indices, inline_limit, forward_bulk_size, backward_bulk_size (MXNet's
 *        syntax, e.g. "true", "[0, 1]"); an unknown flag fails naming it.
 * @param[out] out new handle; free with weft_cached_op_free().
 */
WEFT_API WeftStatus weft_cached_op_create(const WeftSymbolHandle* sym, size_t num_flags,
                                          const char* const* keys, const char* const* vals,
                                          WeftCachedOp** out);
/** The inputs the op takes, in order: every variable of the symbol (weft_symbol_list_inputs). */
WEFT_API WeftStatus weft_cached_op_list_inputs(const WeftCachedOp* op, WeftStringList** out);
/**
 * @brief Runs the op on @p num_inputs arrays (MXNet's MXInvokeCachedOpEx); while the thread
 *        records, autograd records the call, so weft_autograd_backward() reaches its inputs.
 * @param[out] outputs @p capacity slots receiving new handles (free each with
 *             weft_ndarray_free()); with static_alloc they share the op's arrays, which the
 *             next call of the same input shapes overwrites.
 * @param[out] num_outputs the op's output count.
 */
WEFT_API WeftStatus weft_cached_op_invoke(WeftCachedOp* op, WeftNDArray* const* inputs,
                                          size_t num_inputs, WeftNDArray** outputs, size_t capacity,
                                          size_t* num_outputs);
/** Releases @p op (NULL is a no-op). */
WEFT_API WeftStatus weft_cached_op_free(WeftCachedOp* op);
/** Sets (NULL: removes) a monitor on the executors @p op runs, as
 * weft_executor_set_monitor_callback(); called on the invoking thread (calls
 * inlined node by node while recording report nothing). */
WEFT_API WeftStatus weft_cached_op_set_monitor_callback(WeftCachedOp* op,
                                                        WeftMonitorCallback callback, void* user,
                                                        int monitor_all);

/* ---------------------------------------------------------------- trainer */

/** An optimizer stepped over named parameters (Gluon's Trainer). Free with weft_trainer_free(). */
typedef struct WeftTrainer WeftTrainer;

/**
 * @brief A trainer of @p num_params parameters, each already marked with a
 *        gradient buffer (weft_autograd_mark_variables()).
 * @param names one distinct name per parameter (the optimizer's lr_mult /
 *        wd_mult and its default weight decay rule read it).
 * @param opt shared: the trainer keeps it (its states and update counts live
 *        there); the caller may free its handle.
 * Errors: WEFT_ERR_INVALID_ARGUMENT naming a parameter given twice or not marked.
 */
WEFT_API WeftStatus weft_trainer_create(const char* const* names, WeftNDArray* const* params,
                                        size_t num_params, WeftOptimizer* opt, WeftTrainer** out);
/**
 * @brief One optimizer update of every parameter from its gradient buffer,
 *        gradients scaled by 1 / @p batch_size (Gluon's Trainer.step).
 * Asynchronous like every op; reading a parameter waits for its update.
 */
WEFT_API WeftStatus weft_trainer_step(WeftTrainer* trainer, int batch_size);
/** Releases @p trainer (NULL is a no-op); the parameters stay. */
WEFT_API WeftStatus weft_trainer_free(WeftTrainer* trainer);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_AUTOGRAD_H_ */
