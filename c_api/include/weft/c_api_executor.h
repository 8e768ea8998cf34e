/**
 * @file c_api_executor.h
 * @brief Executors: a symbol bound to arrays (simple_bind, bind, device groups,
 *        options), forward and backward, array lists, reshape, memory plan, placement.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_EXECUTOR_H_
#define WEFT_C_API_EXECUTOR_H_

#include "c_api_base.h"
#include "c_api_ndarray_io.h"
#include "c_api_symbol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- executor */
/*
 * An executor is a symbol bound to arrays on one device (weft/executor.h):
 * binding builds the forward graph and, for every argument whose gradient
 * request is not null, its gradient graph, infers shapes and dtypes, plans
 * memory and allocates it once. The executor shares (does not copy) every
 * array bound to it: writes through an argument handle are seen by the next
 * forward, and results read through the handles returned by
 * weft_executor_outputs() / _grad_arrays() reflect the latest run.
 *
 * Array lists are returned as ::WeftNDArrayList handles named by the
 * symbol's arguments / outputs / aux states; weft_ndarray_list_get() on them
 * yields handles sharing the executor's arrays (NULL for an argument whose
 * gradient request is null). Threads: one executor must not be used by two
 * threads at once; distinct executors may run concurrently.
 */

/** A bound symbol. Free with weft_executor_free(). */
typedef struct WeftExecutor WeftExecutor;

/** The memory plan of an executor (weft_executor_memory()). */
typedef struct {
  size_t naive_bytes;   /**< one buffer per operator output */
  size_t planned_bytes; /**< the planned blocks actually allocated */
  size_t num_storage;   /**< number of planned blocks */
  size_t num_inplace;   /**< outputs written in place of an input */
  size_t num_reused;    /**< outputs placed in a block freed earlier */
  int match_range;      /**< the planner's match range (0 = search) */
} WeftExecutorMemory;

/**
 * @brief Binds @p sym, allocating every argument, gradient and aux state
 *        (zeroed) from the given input shapes, as MXNet's simple_bind.
 * @param num_shapes, shape_names, ind_ptr, dims known shapes, CSR-style as in
 *        weft_symbol_infer_shape() (every extent > 0 here).
 * @param num_dtypes, dtype_names, dtypes optional ::WeftDType per variable
 *        (others inferred, default float32); @p num_dtypes may be 0.
 * @param grad_req "null", "write" or "add" for every argument, except that
 *        arguments whose names end in "data" or "label" get "null" (as
 *        MXNet's Module); NULL means "write".
 * @param[out] out new handle; free with weft_executor_free().
 * Errors: WEFT_ERR_INVALID_ARGUMENT (unknown name, bad grad_req),
 * WEFT_ERR_SHAPE (shape conflict, or shapes that cannot be inferred, naming
 * them), WEFT_ERR_DTYPE (bad code or conflict), WEFT_ERR_DEVICE.
 */
WEFT_API WeftStatus weft_executor_simple_bind(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                                              size_t num_shapes, const char* const* shape_names,
                                              const size_t* ind_ptr, const int64_t* dims,
                                              size_t num_dtypes, const char* const* dtype_names,
                                              const int* dtypes, const char* grad_req,
                                              WeftExecutor** out);

/**
 * @brief Binds @p sym to existing arrays (shared, not copied).
 * @param args @p num_args handles in weft_symbol_list_arguments() order (none NULL).
 * @param arg_grads NULL (no gradients) or @p num_args entries, NULL where
 *        the argument has no gradient.
 * @param grad_reqs NULL (WEFT_REQ_WRITE where a gradient array is given,
 *        WEFT_REQ_NULL elsewhere) or @p num_args ::WeftReq values; a NULL
 *        gradient array requires WEFT_REQ_NULL.
 * @param aux @p num_aux handles in weft_symbol_list_auxiliary_states() order.
 * @param[out] out new handle; free with weft_executor_free().
 * Errors name the argument: a wrong count, a missing array, a shape or dtype
 * that conflicts with the graph, a gradient array of another shape.
 */
WEFT_API WeftStatus weft_executor_bind(const WeftSymbolHandle* sym, int dev_type, int dev_id,
                                       WeftNDArray* const* args, size_t num_args,
                                       WeftNDArray* const* arg_grads, const int* grad_reqs,
                                       WeftNDArray* const* aux, size_t num_aux, WeftExecutor** out);

/**
 * @brief weft_executor_simple_bind() with device groups (MXNet's group2ctx):
 *        nodes run on the device of their group, the "__ctx_group__"
 *        attribute (the "ctx_group" key of weft_symbol_create_variable /
 *        compose attributes, or weft_symbol_set_attr()) or "ctx_group".
 *
 * The training graph goes through the PlaceDevice pass (default device:
 * (@p dev_type, @p dev_id)), which inserts "_CrossDeviceCopy" nodes on every
 * edge between devices; every argument, gradient and aux array is allocated
 * on its variable's placed device (see weft_ndarray_context()). cpu(0),
 * cpu(1), ... are distinct devices with their own engine workers.
 * @param num_groups, group_names, group_dev_types, group_dev_ids the map
 *        group name -> device (::WeftDeviceType, id); @p num_groups 0 gives
 *        exactly weft_executor_simple_bind().
 * The other parameters are those of weft_executor_simple_bind().
 * @param[out] out new handle; free with weft_executor_free().
 * Errors: as weft_executor_simple_bind(); WEFT_ERR_INVALID_ARGUMENT for a
 * NULL or repeated group name; WEFT_ERR_DEVICE for a bad or unavailable
 * device (naming the group), or a node whose group is not in the map
 * (naming the node and the group).
 */
WEFT_API WeftStatus weft_executor_simple_bind_group2ctx(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_groups,
    const char* const* group_names, const int* group_dev_types, const int* group_dev_ids,
    size_t num_shapes, const char* const* shape_names, const size_t* ind_ptr, const int64_t* dims,
    size_t num_dtypes, const char* const* dtype_names, const int* dtypes, const char* grad_req,
    WeftExecutor** out);

/**
 * @brief weft_executor_bind() with device groups: like
 *        weft_executor_simple_bind_group2ctx(), but the arrays are given.
 *
 * Each argument array fixes its variable's device (it may live on any
 * device); every other node is placed by its group, its neighbours or the
 * default device (@p dev_type, @p dev_id).
 * @param num_groups, group_names, group_dev_types, group_dev_ids as in
 *        weft_executor_simple_bind_group2ctx(); 0 gives weft_executor_bind().
 * The other parameters are those of weft_executor_bind().
 * @param[out] out new handle; free with weft_executor_free().
 * Errors: as weft_executor_bind(); WEFT_ERR_DEVICE for a gradient array on
 * another device than its argument, or an aux array on another device than
 * its placed variable (naming it and both devices), and the group errors of
 * weft_executor_simple_bind_group2ctx().
 */
WEFT_API WeftStatus weft_executor_bind_group2ctx(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_groups,
    const char* const* group_names, const int* group_dev_types, const int* group_dev_ids,
    WeftNDArray* const* args, size_t num_args, WeftNDArray* const* arg_grads, const int* grad_reqs,
    WeftNDArray* const* aux, size_t num_aux, WeftExecutor** out);

/**
 * @brief Runs the forward graph; @p is_train non-zero selects training behaviour.
 *
 * Asynchronous: every node is pushed to the dependency engine and the call
 * returns before they run (independent branches may run in parallel). Read
 * the outputs with weft_ndarray_copy_to() or weft_ndarray_wait_to_read(): a
 * node's failure is reported there, once, naming the node as "<op>:<name>".
 * This call fails only for a bad handle.
 */
WEFT_API WeftStatus weft_executor_forward(WeftExecutor* exec, int is_train);

/**
 * @brief Runs the gradient graph after a forward, writing (or adding to)
 *        the gradient arrays.
 * @param head_grads one array per output, or @p num_head_grads = 0 when
 *        every output is a loss operator (implicit head gradients).
 * Errors: WEFT_ERR_INVALID_ARGUMENT before any forward, without gradients,
 * or for a wrong number of head gradients; WEFT_ERR_SHAPE for a mis-shaped one.
 * Asynchronous like weft_executor_forward(): a gradient node's failure is
 * reported by the sync copy or wait of the gradient arrays.
 */
WEFT_API WeftStatus weft_executor_backward(WeftExecutor* exec, WeftNDArray* const* head_grads,
                                           size_t num_head_grads);

/** @brief The outputs, named as weft_symbol_list_outputs(). @param[out] out new list. */
WEFT_API WeftStatus weft_executor_outputs(const WeftExecutor* exec, WeftNDArrayList** out);
/** @brief The argument arrays, named by argument. @param[out] out new list. */
WEFT_API WeftStatus weft_executor_arg_arrays(const WeftExecutor* exec, WeftNDArrayList** out);
/** @brief The gradient arrays, one per argument (none where grad_req is null). @param[out] out new
 * list. */
WEFT_API WeftStatus weft_executor_grad_arrays(const WeftExecutor* exec, WeftNDArrayList** out);
/** @brief The auxiliary state arrays, named by state. @param[out] out new list. */
WEFT_API WeftStatus weft_executor_aux_arrays(const WeftExecutor* exec, WeftNDArrayList** out);

/**
 * @brief A new executor for new input shapes sharing @p exec's arrays
 *        (MXNet's Executor.reshape). @p exec stays valid.
 * @param num_shapes, shape_names, ind_ptr, dims the new shapes (CSR-style).
 * @param partial_shaping non-zero: arguments not named may change shape too.
 * @param allow_up_sizing non-zero: an array that grows gets new memory
 *        (else WEFT_ERR_SHAPE naming it).
 * @param[out] out new handle; free with weft_executor_free().
 */
WEFT_API WeftStatus weft_executor_reshape(const WeftExecutor* exec, size_t num_shapes,
                                          const char* const* shape_names, const size_t* ind_ptr,
                                          const int64_t* dims, int partial_shaping,
                                          int allow_up_sizing, WeftExecutor** out);

/**
 * @brief Nodes in execution order with their storage, and the memory plan.
 * @param[out] out a list of one string; free with weft_string_list_free().
 */
WEFT_API WeftStatus weft_executor_print(const WeftExecutor* exec, WeftStringList** out);

/** The memory plan's figures. */
WEFT_API WeftStatus weft_executor_memory(const WeftExecutor* exec, WeftExecutorMemory* out);

/**
 * @brief Where the bound graph runs when it spans devices (device groups or
 *        CPU fallback).
 * @param[out] fallback_nodes the nodes moved to cpu(0) for want of a kernel
 *        on the bind device, in graph order; free with weft_string_list_free().
 * @param[out] num_copies the copy nodes between devices in the bound graph.
 * @param[out] forward_copy_bytes the bytes those copies move per forward.
 */
WEFT_API WeftStatus weft_executor_placement(const WeftExecutor* exec,
                                            WeftStringList** fallback_nodes, size_t* num_copies,
                                            size_t* forward_copy_bytes);

/**
 * @brief The nodes of the bound graph that compute in float32 between Casts
 *        for want of a float16/bfloat16 kernel, in graph order.
 * @param[out] out free with weft_string_list_free().
 */
WEFT_API WeftStatus weft_executor_float32_nodes(const WeftExecutor* exec, WeftStringList** out);

/* WeftMonitorCallback is declared in c_api_base.h. */
/**
 * @brief Sets (or, with a NULL callback, removes) the executor's monitor
 *        (MXNet's MXExecutorSetMonitorCallbackEX).
 * While set, weft_executor_forward() and weft_executor_backward() run every
 * node as its own engine operation and call @p callback on the calling
 * thread (not an engine thread) after pushing each node, once per output
 * (with @p monitor_all also once per input, before the node); the values are
 * copies taken by the engine before anything overwrites them. The callback
 * may read the array (which waits for it) and call Weft functions other
 * than those of this executor; it must not unwind through Weft.
 */
WEFT_API WeftStatus weft_executor_set_monitor_callback(WeftExecutor* exec,
                                                       WeftMonitorCallback callback, void* user,
                                                       int monitor_all);
/** MXNet's default monitor statistic: norm(array) / sqrt(size), in float64. */
WEFT_API WeftStatus weft_ndarray_monitor_stat(const WeftNDArray* array, double* out);

/** Releases @p exec (NULL is a no-op); bound arrays stay valid through their own handles. */
WEFT_API WeftStatus weft_executor_free(WeftExecutor* exec);

/*
 * Executor options (weft/executor.h ExecutorOptions): one handle holding
 * every binding option, set one at a time, so that a new option is a new
 * setter and the bind functions keep their signatures. A fresh handle holds
 * the C++ defaults; weft_executor_simple_bind_with_options() and
 * weft_executor_bind_with_options() read it (NULL options = defaults) and
 * keep no reference to it. Setters validate their value and change nothing
 * on error. Threads: a handle may be shared; calls on it are serialised.
 */

/** Binding options. Free with weft_executor_options_free(). */
typedef struct WeftExecutorOptions WeftExecutorOptions;

/** @brief New options holding the defaults. @param[out] out free with weft_executor_options_free().
 */
WEFT_API WeftStatus weft_executor_options_create(WeftExecutorOptions** out);

/** Releases @p opts (NULL is a no-op). */
WEFT_API WeftStatus weft_executor_options_free(WeftExecutorOptions* opts);

/**
 * @brief The memory planner's match range (default 16; 0 searches for the
 *        best). WEFT_ERR_INVALID_ARGUMENT when negative.
 */
WEFT_API WeftStatus weft_executor_options_set_match_range(WeftExecutorOptions* opts,
                                                          int match_range);

/**
 * @brief Colouring groups of the memory plan (default 1): more groups let
 *        independent branches run at once but reuse less memory.
 *        WEFT_ERR_INVALID_ARGUMENT when < 1.
 */
WEFT_API WeftStatus weft_executor_options_set_num_groups(WeftExecutorOptions* opts, int num_groups);

/**
 * @brief Bulk execution: runs of at most @p max_nodes consecutive dependent
 *        nodes are pushed as one engine operation. 0 or 1: one operation per
 *        node; negative (the default): WEFT_EXEC_BULK_MAX_NODES from the
 *        environment, else 64.
 */
WEFT_API WeftStatus weft_executor_options_set_bulk_max_nodes(WeftExecutorOptions* opts,
                                                             int max_nodes);

/**
 * @brief Inference passes and constant folding for executors without
 *        gradients or device groups: @p enable 1 (the default) or 0.
 *        WEFT_ERR_INVALID_ARGUMENT for another value.
 */
WEFT_API WeftStatus weft_executor_options_set_optimize_inference(WeftExecutorOptions* opts,
                                                                 int enable);

/**
 * @brief CPU fallback: @p enable 1 (the default) runs a node whose operator
 *        has no kernel on the bind device (gpu(0), say) on cpu(0), with
 *        copies around it (see weft_executor_placement()); 0 makes such a
 *        node fail the bind with WEFT_ERR_NOT_IMPLEMENTED naming it.
 *        WEFT_ERR_INVALID_ARGUMENT for another value.
 */
WEFT_API WeftStatus weft_executor_options_set_allow_fallback(WeftExecutorOptions* opts, int enable);

/**
 * @brief Adds the device group @p group -> (::WeftDeviceType, @p dev_id)
 *        (see weft_executor_simple_bind_group2ctx()).
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a NULL or already added group,
 * WEFT_ERR_DEVICE for a bad or unavailable device.
 */
WEFT_API WeftStatus weft_executor_options_add_group(WeftExecutorOptions* opts, const char* group,
                                                    int dev_type, int dev_id);

/**
 * @brief The gradient request (::WeftReq) of argument @p arg for
 *        weft_executor_simple_bind_with_options(). Once any argument is
 *        named, arguments not named get WEFT_REQ_NULL; without any, every
 *        argument gets WEFT_REQ_WRITE except those whose names end in "data"
 *        or "label". Setting an argument again replaces its request.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a NULL or empty name or a bad
 * request; binding fails when a name is not an argument of the symbol.
 */
WEFT_API WeftStatus weft_executor_options_set_grad_req(WeftExecutorOptions* opts, const char* arg,
                                                       int req);

/**
 * @brief weft_executor_simple_bind() with options: gradient requests and
 *        device groups come from @p opts (NULL: the defaults, as
 *        weft_executor_simple_bind() with grad_req NULL).
 * The other parameters and the errors are those of
 * weft_executor_simple_bind() and weft_executor_simple_bind_group2ctx().
 */
WEFT_API WeftStatus weft_executor_simple_bind_with_options(
    const WeftSymbolHandle* sym, int dev_type, int dev_id, size_t num_shapes,
    const char* const* shape_names, const size_t* ind_ptr, const int64_t* dims, size_t num_dtypes,
    const char* const* dtype_names, const int* dtypes, const WeftExecutorOptions* opts,
    WeftExecutor** out);

/**
 * @brief weft_executor_bind() with options: device groups come from @p opts
 *        (NULL: the defaults); gradient requests are @p grad_reqs as in
 *        weft_executor_bind(), so options with weft_executor_options_set_grad_req()
 *        entries fail with WEFT_ERR_INVALID_ARGUMENT.
 * The other parameters and the errors are those of weft_executor_bind() and
 * weft_executor_bind_group2ctx().
 */
WEFT_API WeftStatus weft_executor_bind_with_options(const WeftSymbolHandle* sym, int dev_type,
                                                    int dev_id, WeftNDArray* const* args,
                                                    size_t num_args, WeftNDArray* const* arg_grads,
                                                    const int* grad_reqs, WeftNDArray* const* aux,
                                                    size_t num_aux, const WeftExecutorOptions* opts,
                                                    WeftExecutor** out);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_EXECUTOR_H_ */
