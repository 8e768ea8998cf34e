/**
 * @file c_api_engine.h
 * @brief The dependency engine: variables, pushing synchronous and asynchronous
 *        functions, completion and waits.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the conventions
 * every function here follows.
 */
#ifndef WEFT_C_API_ENGINE_H_
#define WEFT_C_API_ENGINE_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------- engine */
/*
 * The dependency engine runs pushed functions asynchronously and in
 * parallel, ordered by the variables they declare: a function that writes
 * a variable runs after every earlier function using it; readers of the
 * same variable run concurrently. NDArray operations go through the same
 * engine. A function's failure is stored on the variables it writes: later
 * functions reading them are skipped (and so are writes until a wait has
 * reported the failure). Every weft_engine_var_wait on a written variable
 * reports the failure (its message naming the function), on any thread,
 * until a later function writes the variable successfully or it is freed;
 * weft_wait_all reports the first failure no wait reported yet. A callback
 * must not wait (weft_wait_all, a wait on a variable with pending writes,
 * weft_ndarray_copy_from): on the threaded engine such calls fail with
 * WEFT_ERR_INVALID_ARGUMENT instead of deadlocking. Every function here is
 * thread-safe.
 */

/** An engine variable (a dependency token). Free with weft_engine_var_free(). */
typedef struct WeftEngineVar WeftEngineVar;
/** The completion of one asynchronous function; see weft_engine_complete(). */
typedef struct WeftEngineCompletion WeftEngineCompletion;

/** WEFT_ENGINE_NAIVE runs every function inside its push (debugging). */
typedef enum { WEFT_ENGINE_NAIVE = 0, WEFT_ENGINE_THREADED = 1 } WeftEngineKind;

/**
 * A synchronous function, run on an engine worker. Return NULL on success
 * or an error message (copied as soon as the function returns, so it may
 * live in @p user_data or be static).
 */
typedef const char* (*WeftEngineSyncFn)(void* user_data);
/**
 * An asynchronous function, run on an engine worker. It must call
 * weft_engine_complete(@p done, ...) exactly once, from any thread, before or
 * after it returns.
 */
typedef void (*WeftEngineAsyncFn)(void* user_data, WeftEngineCompletion* done);
/** Releases user data; called exactly once, on any thread. */
typedef void (*WeftEngineDeleter)(void* user_data);

/**
 * @brief Selects the global engine before its first use (the first array
 * or variable created). Overrides WEFT_ENGINE / WEFT_ENGINE_THREADS.
 * @param kind a WeftEngineKind; @param cpu_threads CPU workers, 0 = default.
 * Fails with WEFT_ERR_INVALID_ARGUMENT once the engine runs with other settings.
 */
WEFT_API WeftStatus weft_engine_configure(int kind, int cpu_threads);

/** The running engine's kind (WeftEngineKind) and CPU worker count (0 for naive). */
WEFT_API WeftStatus weft_engine_info(int* out_kind, int* out_cpu_threads);

/**
 * @brief Shuts the global engine down now, as the library's exit hook
 * would: the queued work runs, the worker threads end, and later work runs
 * on the calling thread. Nothing when the engine was never used. For hosts
 * whose shutdown waits for the threads that called into them (Mono waits
 * for engine threads that ran C# callbacks): call it from their exit event.
 */
WEFT_API WeftStatus weft_engine_shutdown(void);

/** @param[out] out 1 when the calling thread is an engine worker thread, else 0. */
WEFT_API WeftStatus weft_engine_on_worker_thread(int* out);

/** @param[out] out new variable at version 0; free with weft_engine_var_free(). */
WEFT_API WeftStatus weft_engine_var_create(WeftEngineVar** out);

/** Frees @p var after every pending function using it (NULL is a no-op). */
WEFT_API WeftStatus weft_engine_var_free(WeftEngineVar* var);

/** Number of completed writes of @p var (including skipped ones). */
WEFT_API WeftStatus weft_engine_var_version(const WeftEngineVar* var, uint64_t* out);

/**
 * @brief Pushes a synchronous function reading @p reads and writing @p writes.
 * Returns before it runs. @p deleter (may be NULL) is called with
 * @p user_data exactly once after the function ran or was skipped, and also
 * when this call fails. A variable in both lists, a NULL or freed variable,
 * or a NULL @p fn fails with WEFT_ERR_INVALID_ARGUMENT / _INVALID_HANDLE.
 * @param name shown in error messages (may be NULL).
 */
WEFT_API WeftStatus weft_engine_push_sync(WeftEngineSyncFn fn, void* user_data,
                                          WeftEngineDeleter deleter, WeftEngineVar* const* reads,
                                          size_t num_reads, WeftEngineVar* const* writes,
                                          size_t num_writes, const char* name);

/** Like weft_engine_push_sync() for an asynchronous function. */
WEFT_API WeftStatus weft_engine_push_async(WeftEngineAsyncFn fn, void* user_data,
                                           WeftEngineDeleter deleter, WeftEngineVar* const* reads,
                                           size_t num_reads, WeftEngineVar* const* writes,
                                           size_t num_writes, const char* name);

/**
 * @brief Completes an asynchronous function; @p error is NULL on success or
 * its failure message (copied). @p done is invalid afterwards; a second
 * call fails with WEFT_ERR_INVALID_HANDLE.
 */
WEFT_API WeftStatus weft_engine_complete(WeftEngineCompletion* done, const char* error);

/**
 * @brief Blocks until every pending write of @p var completed, then reports
 * a failure stored on it, naming the failed function (every call, until the
 * variable is written successfully or freed).
 */
WEFT_API WeftStatus weft_engine_var_wait(const WeftEngineVar* var);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_ENGINE_H_ */
