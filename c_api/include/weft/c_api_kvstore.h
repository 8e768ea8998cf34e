/**
 * @file c_api_kvstore.h
 * @brief KVStores for data-parallel training (local, device, dist_sync over MPI),
 *        training a module through one, and splitting an iterator into parts.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_KVSTORE_H_
#define WEFT_C_API_KVSTORE_H_

#include "c_api_base.h"
#include "c_api_data.h"
#include "c_api_module.h"
#include "c_api_optimizer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ [kvstore API] */

/*
 * KVStore: sums of arrays pushed under string keys, for data-parallel
 * training (C++: weft/kvstore.h; MXNet's KVStore). Types "local", "device"
 * (several cpu(i) devices in one process) and "dist_sync" (one store per
 * process of an MPI job started with mpirun, kept identical by allreduce).
 * Push/pull are asynchronous engine operations: wait on the arrays (e.g.
 * weft_ndarray_wait_to_read) to see results or errors. A handle is used by
 * one thread at a time (calls on one handle are serialised). With
 * dist_sync, every process must make the same calls in the same order.
 */

/** A key-value store. Free with weft_kvstore_free(). */
typedef struct WeftKVStore WeftKVStore;

/**
 * @brief Creates a kvstore of @p type: "local", "device" or "dist_sync"
 *        (case-insensitive). dist_sync initialises MPI on first use.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for an unknown type,
 * WEFT_ERR_NOT_IMPLEMENTED for dist_async or a build without MPI,
 * WEFT_ERR_INTERNAL when MPI cannot start.
 */
WEFT_API WeftStatus weft_kvstore_create(const char* type, WeftKVStore** out);
/** @brief The type ("local", "device" or "dist_sync"); valid while @p kv lives. */
WEFT_API WeftStatus weft_kvstore_type(const WeftKVStore* kv, const char** out);
/** @brief This process's rank and the number of processes (0 and 1 unless dist_sync). */
WEFT_API WeftStatus weft_kvstore_rank(const WeftKVStore* kv, int* out_rank, int* out_num_workers);
/**
 * @brief Stores a copy of each value under its key.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a key already initialised or given
 * twice (nothing is stored then), or (dist_sync) ranks that disagree on the
 * keys, shapes or dtypes, naming the first difference; WEFT_ERR_DTYPE for
 * a dtype the store cannot sum.
 */
WEFT_API WeftStatus weft_kvstore_init(WeftKVStore* kv, size_t num, const char* const* keys,
                                      WeftNDArray* const* values);
/**
 * @brief Sums the values of each key (keys may repeat) and, for dist_sync,
 *        across processes; the store takes the sum, or the optimizer's
 *        update with it (weft_kvstore_set_optimizer).
 * @param priority the engine priority (MXNet passes -index).
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a key not initialised,
 * WEFT_ERR_SHAPE for a value whose shape or dtype differs from the key's.
 */
WEFT_API WeftStatus weft_kvstore_push(WeftKVStore* kv, size_t num, const char* const* keys,
                                      WeftNDArray* const* values, int priority);
/** @brief Copies each key's stored value into @p outs (same shape and dtype). */
WEFT_API WeftStatus weft_kvstore_pull(WeftKVStore* kv, size_t num, const char* const* keys,
                                      WeftNDArray* const* outs, int priority);
/** @brief weft_kvstore_push() then weft_kvstore_pull() (@p outs may be @p values). */
WEFT_API WeftStatus weft_kvstore_pushpull(WeftKVStore* kv, size_t num, const char* const* keys,
                                          WeftNDArray* const* values, WeftNDArray* const* outs,
                                          int priority);
/** @brief Later pushes update the stored values with @p opt (shared; may be freed after). */
WEFT_API WeftStatus weft_kvstore_set_optimizer(WeftKVStore* kv, const WeftOptimizer* opt);
/* The updater callback is C only: the SWIG bindings do not wrap a C function pointer. */
#ifndef SWIG
/**
 * A program's own optimizer (MXNet's kvstore updater): called with the key,
 * the sum of a push and the stored value, both new handles that the library
 * frees after the call (copy them with weft_ndarray_slice() or an op to keep
 * them). It typically invokes ops writing @p stored in place
 * (weft_op_invoke_into()). Return 0 on success; non-zero fails the push.
 */
typedef int (*WeftKVStoreUpdater)(const char* key, WeftNDArray* sum, WeftNDArray* stored,
                                  void* user_data);
/**
 * @brief Later pushes call @p updater (on the pushing thread, with
 *        @p user_data) instead of storing the sum; replaces an optimizer.
 *        NULL restores plain sums.
 * A non-zero return fails that weft_kvstore_push() (or, dist_sync, the pull
 * or barrier that completed the key) with WEFT_ERR_INVALID_ARGUMENT naming
 * the key and the returned value; the key keeps its stored value.
 */
WEFT_API WeftStatus weft_kvstore_set_updater(WeftKVStore* kv, WeftKVStoreUpdater updater,
                                             void* user_data);
#endif /* SWIG */
/**
 * @brief The updater as steps the caller runs, for programs that cannot take
 *        a C callback (the bindings' KVStore updaters): with @p on nonzero,
 *        later pushes queue each key's (sum, stored value) instead of
 *        updating it; the caller takes them with weft_kvstore_next_update()
 *        after each weft_kvstore_push(), _pushpull() (before its pull: use a
 *        push, drain, then a pull), _pull() and _barrier() and writes the
 *        stored value in place. A key pushed twice before its update is
 *        taken queues the same sum buffer twice (take them after each push).
 *        Replaces an optimizer or updater; 0 restores plain sums.
 */
WEFT_API WeftStatus weft_kvstore_set_updater_queue(WeftKVStore* kv, int on);
/**
 * @brief Takes the oldest queued update: @p key (library-owned, valid until
 *        the next call of this function on @p kv), new handles @p sum and
 *        @p stored (sharing the store's value: write it in place), and
 *        @p has 1; @p has 0 (the rest untouched) when the queue is empty.
 * Errors: WEFT_ERR_INVALID_ARGUMENT when @p kv has no queue.
 */
WEFT_API WeftStatus weft_kvstore_next_update(WeftKVStore* kv, const char** key, WeftNDArray** sum,
                                             WeftNDArray** stored, int* has);
/** @brief Waits for the store's pending work, then (dist_sync) for every process. */
WEFT_API WeftStatus weft_kvstore_barrier(WeftKVStore* kv);
WEFT_API WeftStatus weft_kvstore_free(WeftKVStore* kv);

/**
 * @brief As weft_module_init_optimizer(), training through @p kv (shared;
 *        may be freed after): the parameters are initialised in it (rank 0's
 *        values for dist_sync), rescale_grad covers the global batch, each
 *        update pushes the gradients and pulls the weights, and
 *        weft_module_fit() reports and writes checkpoints on rank 0 only.
 */
WEFT_API WeftStatus weft_module_init_optimizer_kvstore(WeftModule* mod, const WeftOptimizer* opt,
                                                       WeftKVStore* kv);
/**
 * @brief Restricts an iterator to part @p part_index of @p num_parts
 *        (contiguous samples; MXNet's num_parts/part_index) and resets it.
 * Errors: WEFT_ERR_INVALID_ARGUMENT for a bad part or an empty one.
 */
WEFT_API WeftStatus weft_data_iter_select_part(WeftDataIter* it, int num_parts, int part_index);
/**
 * @brief Ends distributed use in this process: waits for pending work,
 *        stops the kvstore's communication thread and finalises MPI if Weft
 *        initialised it. An exit hook does the same, but a runtime that exits
 *        without running C exit hooks (Go) must call this before exiting, or
 *        mpirun reports the process as ended abnormally. Idempotent.
 */
WEFT_API WeftStatus weft_kvstore_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_KVSTORE_H_ */
