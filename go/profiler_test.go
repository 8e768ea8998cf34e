package weft

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// conformance: profiler.trace_table_and_ranges
func TestProfilerTraceTableAndRanges(t *testing.T) {
	checkLive(t)
	runtime.LockOSThread() // user ranges belong to the OS thread
	defer runtime.UnlockOSThread()
	file := t.TempDir() + "/trace.json"
	check(t, ProfilerSetConfig(map[string]string{"profile_all": "1", "filename": file}))
	check(t, ProfilerSetRunning(true))
	if !must(ProfilerRunning()) {
		t.Fatal("the profiler does not run")
	}
	x := must(FromFloat32([]float32{1, 4, 9}, 3))
	check(t, ProfilerRangePush("outer"))
	y := must(Call("sqrt", nil, x))
	check(t, ProfilerMarker("after sqrt"))
	check(t, ProfilerCounter("samples", 3))
	check(t, ProfilerRangePop())
	closeAll(t, y, x)
	check(t, WaitAll())
	trace := must(ProfilerTrace())
	if n := strings.Count(trace, `"name":"sqrt","cat":"operator"`); n != 1 {
		t.Errorf("%d sqrt operator events, want 1: %s", n, trace)
	}
	for _, want := range []string{`"name":"outer"`, `"samples":3`} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %s", want)
		}
	}
	table := must(ProfilerAggregate("table", "count", false, false))
	if !strings.Contains(table, "sqrt") || !strings.Contains(table, "Total Count") {
		t.Errorf("table: %s", table)
	}
	check(t, ProfilerDump(true))
	if must(ProfilerRunning()) {
		t.Error("still running after dump(finished)")
	}
	if data := must(os.ReadFile(file)); !strings.Contains(string(data), `"traceEvents"`) {
		t.Error("the dumped file has no traceEvents")
	}
	expectError(t, ProfilerSetConfig(map[string]string{"nope": "1"}), InvalidArgument, "unknown key 'nope'")
	_, err := ProfilerAggregate("xml", "total", false, false)
	expectError(t, err, InvalidArgument, "'xml'")
}

// conformance: symbol.summary_and_dot
func TestSymbolSummaryAndDot(t *testing.T) {
	checkLive(t)
	mlp := must(SymbolFromJSON(mlpJSON))
	defer closeAll(t, mlp)
	shapes := Shapes{"data": {8, 2}}
	summary := must(mlp.Summary(shapes))
	for _, want := range []string{"fc1(FullyConnected)", "Total params: 116"} { // (2*16+16) + (16*4+4)
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q: %s", want, summary)
		}
	}
	dot := must(mlp.ToDot(shapes, map[string]string{"title": "mlp"}))
	if !strings.HasPrefix(dot, `digraph "mlp"`) || !strings.Contains(dot, `label="16"`) ||
		strings.Contains(dot, "fc1_weight") {
		t.Errorf("dot: %s", dot)
	}
	_, err := mlp.ToDot(Shapes{}, map[string]string{"colour": "1"})
	expectError(t, err, InvalidArgument, "unknown option 'colour'")
}
