package weft

import (
	"sort"

	"github.com/weft-ai/weft/go/internal/capi"
)

// The process profiler (MXNet's mx.profiler): Chrome traces of what ran
// where, the aggregate table per operator, and user ranges, markers and
// counters. Safe for concurrent use; ranges are per OS thread (lock the
// goroutine to its thread around a range). docs/profiler.md describes the
// trace.

// ProfilerSetConfig sets the configuration from MXNet's keys (profile_all,
// profile_symbolic, profile_imperative, profile_memory, profile_api,
// filename, continuous_dump, dump_period, aggregate_stats); keys not given
// take MXNet's defaults.
func ProfilerSetConfig(config map[string]string) error {
	keys := make([]string, 0, len(config))
	for k := range config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	values := make([]string, len(keys))
	for i, k := range keys {
		values[i] = config[k]
	}
	return wrap(capi.Weft_profiler_set_config(uint64(len(keys)), keys, values))
}

// ProfilerSetRunning starts (true) or stops (false) recording.
func ProfilerSetRunning(run bool) error {
	state := 0
	if run {
		state = 1
	}
	return wrap(capi.Weft_profiler_set_state(state))
}

// ProfilerRunning reports whether the profiler records.
func ProfilerRunning() (bool, error) {
	s, err := out1(func(out []int32) error { return capi.Weft_profiler_get_state(out) })
	return s == 1, err
}

// ProfilerPause pauses (true) or resumes (false) recording without stopping.
func ProfilerPause(paused bool) error {
	p := 0
	if paused {
		p = 1
	}
	return wrap(capi.Weft_profiler_pause(p))
}

// ProfilerDump writes the trace to the configured file; finished closes it
// and stops the profiler.
func ProfilerDump(finished bool) error {
	f := 0
	if finished {
		f = 1
	}
	return wrap(capi.Weft_profiler_dump(f))
}

// ProfilerTrace is the trace JSON, without writing or forgetting anything.
func ProfilerTrace() (string, error) {
	return firstString(out1(func(out []uintptr) error { return capi.Weft_profiler_trace(out) }))
}

// ProfilerAggregate is the aggregate table: format "table" or "json", sortBy
// "total", "avg", "min", "max" or "count"; reset clears the statistics.
func ProfilerAggregate(format, sortBy string, ascending, reset bool) (string, error) {
	a, r := 0, 0
	if ascending {
		a = 1
	}
	if reset {
		r = 1
	}
	return firstString(out1(func(out []uintptr) error {
		return capi.Weft_profiler_aggregate(r, format, sortBy, a, out)
	}))
}

// ProfilerRangePush opens a user range on the calling OS thread.
func ProfilerRangePush(name string) error { return wrap(capi.Weft_profiler_range_push(name)) }

// ProfilerRangePop closes the calling OS thread's innermost user range.
func ProfilerRangePop() error { return wrap(capi.Weft_profiler_range_pop()) }

// ProfilerMarker records an instant user event.
func ProfilerMarker(name string) error { return wrap(capi.Weft_profiler_set_marker(name)) }

// ProfilerCounter records a user counter sample.
func ProfilerCounter(name string, value int64) error {
	return wrap(capi.Weft_profiler_set_counter(name, value))
}

// firstString reads the single string of a new WeftStringList.
func firstString(list uintptr, err error) (string, error) {
	strs, err := newStrings(list, err)
	if err != nil {
		return "", err
	}
	return strs[0], nil
}
