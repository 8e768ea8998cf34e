package weft

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// conformance: monitor.callbacks_see_outputs_and_errors
func TestMonitorCallbacksSeeOutputsAndErrors(t *testing.T) {
	checkLive(t)
	mlp := must(SymbolFromJSON(mlpJSON))
	defer closeAll(t, mlp)
	ex := must(SimpleBind(mlp, map[string][]int64{"data": {8, 2}}, "write"))
	args := must(ex.ArgArrays())
	check(t, args["data"].CopyFromFloat32([]float32{1, -2, 3, -4, 5, -6, 7, -8, 1, 2, 3, 4, 5, 6, 7, 8}))
	check(t, args["fc1_bias"].CopyFromFloat32(filled(16, 1)))
	check(t, args["fc2_weight"].CopyFromFloat32(filled(64, 0.25)))
	for _, a := range args {
		check(t, a.Close())
	}
	var names []string
	stat := -1.0
	// With gradients no inference pass fuses the nodes: one call per node output.
	check(t, ex.SetMonitorCallback(func(name string, v *NDArray) error {
		names = append(names, name)
		if name == "fc2_output" {
			stat = must(v.MonitorStat())
		}
		return nil
	}, false))
	check(t, ex.Forward(true))
	check(t, WaitAll())
	if want := []string{"fc1_output", "relu1_output", "fc2_output", "softmax_output"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	// fc1's weight is zero and its bias one: relu1 gives 16 ones per row, so each of fc2's
	// 8 x 4 outputs is 16 * 0.25 = 4 and norm / sqrt(size) = 4.
	if math.Abs(stat-4) > 1e-12 {
		t.Errorf("fc2_output statistic %v, want 4", stat)
	}
	if LiveMonitors() != 1 {
		t.Errorf("%d live monitors, want 1", LiveMonitors())
	}

	names = nil
	check(t, ex.SetMonitorCallback(func(name string, v *NDArray) error { names = append(names, name); return nil }, true))
	check(t, ex.Forward(true))
	check(t, WaitAll())
	// Each node's inputs (named as the entries they are), then its output.
	if want := []string{"data", "fc1_weight", "fc1_bias", "fc1_output", "fc1_output", "relu1_output",
		"relu1_output", "fc2_weight", "fc2_bias", "fc2_output", "fc2_output", "softmax_label",
		"softmax_output"}; !reflect.DeepEqual(names, want) {
		t.Errorf("monitor_all names %v, want %v", names, want)
	}

	check(t, ex.SetMonitorCallback(func(name string, v *NDArray) error { return fmt.Errorf("refused %s", name) }, false))
	expectError(t, ex.Forward(true), InvalidArgument,
		"monitor callback for 'fc1_output' returned an error: refused fc1_output")
	check(t, WaitAll())
	check(t, ex.SetMonitorCallback(func(name string, v *NDArray) error { panic("boom in " + name) }, false))
	expectError(t, ex.Forward(true), InvalidArgument,
		"monitor callback for 'fc1_output' returned an error: panic: boom in fc1_output")
	check(t, WaitAll())

	names = nil
	check(t, ex.SetMonitorCallback(nil, false))
	if LiveMonitors() != 0 {
		t.Errorf("%d live monitors after removing, want 0", LiveMonitors())
	}
	check(t, ex.Forward(true))
	check(t, WaitAll())
	if len(names) != 0 {
		t.Errorf("a removed monitor was called: %v", names)
	}
	check(t, ex.SetMonitorCallback(func(name string, v *NDArray) error { return nil }, false))
	check(t, ex.Close())
	if LiveMonitors() != 0 { // closing the executor drops its callback
		t.Errorf("%d live monitors after close, want 0", LiveMonitors())
	}
}

func filled(n int, v float32) []float32 {
	a := make([]float32, n)
	for i := range a {
		a[i] = v
	}
	return a
}
