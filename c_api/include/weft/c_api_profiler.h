/**
 * @file c_api_profiler.h
 * @brief The profiler (MXNet's mx.profiler: MXSetProcessProfilerConfig,
 *        MXSetProcessProfilerState, MXProcessProfilePause, MXDumpProcessProfile,
 *        MXAggregateProfileStatsPrint): Chrome Trace Event files of what ran
 *        where, an aggregate table per operator, and user ranges and markers.
 *
 * Part of the C ABI: include "weft/c_api.h", whose file comment states the
 * conventions every function here follows.
 *
 * The profiler is process-wide and off until weft_profiler_set_state(1).
 * Events are recorded per thread without locks and collected when the
 * trace is dumped or the table printed; docs/profiler.md describes the
 * tracks (operators, executor segments, engine, memory, kvstore, data,
 * user). Every function is thread-safe; ranges are per thread.
 */
#ifndef WEFT_C_API_PROFILER_H_
#define WEFT_C_API_PROFILER_H_

#include "c_api_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- profiler */

/** Sets the configuration from MXNet's keys (profile_all, profile_symbolic,
 * profile_imperative, profile_memory, profile_api, filename, continuous_dump,
 * dump_period, aggregate_stats; booleans as "true"/"false"/"1"/"0"); keys
 * not given take MXNet's defaults. WEFT_ERR_INVALID_ARGUMENT names an unknown
 * key or a bad value, or the profiler is running. */
WEFT_API WeftStatus weft_profiler_set_config(size_t num, const char* const* keys,
                                             const char* const* values);
/** 1: run (record what the configuration selects), 0: stop. */
WEFT_API WeftStatus weft_profiler_set_state(int state);
WEFT_API WeftStatus weft_profiler_get_state(int* out);
/** 1: pause recording without stopping; 0: resume. */
WEFT_API WeftStatus weft_profiler_pause(int paused);
/** Writes the trace to the configured file (every event since the first run;
 * with continuous_dump, the new events appended). `finished` != 0 closes the
 * file's JSON, stops the profiler and forgets the events. WEFT_ERR_IO when
 * the file cannot be written. */
WEFT_API WeftStatus weft_profiler_dump(int finished);
/** The trace JSON as a one-string list, without writing or forgetting. */
WEFT_API WeftStatus weft_profiler_trace(WeftStringList** out);
/** The aggregate table (count, total/min/max/avg per category and name):
 * `format` "table" or "json" (NULL: table), `sort_by` "total", "avg", "min",
 * "max" or "count" (NULL: total); `reset` != 0 clears the statistics. */
WEFT_API WeftStatus weft_profiler_aggregate(int reset, const char* format, const char* sort_by,
                                            int ascending, WeftStringList** out);
/** Opens a user range on the calling thread (nestable). */
WEFT_API WeftStatus weft_profiler_range_push(const char* name);
/** Closes the thread's innermost range, recording it as a "user" event;
 * WEFT_ERR_INVALID_ARGUMENT when none is open. */
WEFT_API WeftStatus weft_profiler_range_pop(void);
/** An instant "user" event (MXNet's profiler marker). */
WEFT_API WeftStatus weft_profiler_set_marker(const char* name);
/** A "user" counter sample (MXNet's profiler Counter). */
WEFT_API WeftStatus weft_profiler_set_counter(const char* name, int64_t value);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_C_API_PROFILER_H_ */
