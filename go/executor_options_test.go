package weft

import (
	"testing"
)

// Executor binding options (the same cases in JUnit and NUnit): gradient
// requests by argument name, the planner and execution options giving the
// default numbers, device groups, and the errors (bad values, an unknown
// argument, the options handle freed on every path).

var optA, optB, optC = []float32{1, 2, -3, 4}, []float32{5, -6, 7, 0.5}, []float32{0.25, 1, 6, -8}

// forwardABC sets a, b, c on ex, runs forward and returns the output.
func forwardABC(t *testing.T, ex *Executor, isTrain bool) []float32 {
	t.Helper()
	args := must(ex.ArgArrays())
	check(t, args["a"].CopyFromFloat32(optA))
	check(t, args["b"].CopyFromFloat32(optB))
	check(t, args["c"].CopyFromFloat32(optC))
	CloseAll(args)
	check(t, ex.Forward(isTrain))
	outs := must(ex.Outputs())
	defer CloseNamed(outs)
	return must(outs[0].Array.ToFloat32())
}

func gradNames(t *testing.T, ex *Executor) map[string]bool {
	t.Helper()
	g := must(ex.GradArrays())
	defer CloseAll(g)
	names := map[string]bool{}
	for k := range g {
		names[k] = true
	}
	return names
}

// TestExecutorOptionsGradReqForOneArgumentOnly: a request for "a" only gives
// a's gradient the closed form head * b, and b and c no gradient array
// (GradNull); several WithGradReqs merge, a later entry replacing an earlier.
// conformance: executor_options.grad_req_per_argument
func TestExecutorOptionsGradReqForOneArgumentOnly(t *testing.T) {
	checkLive(t)
	f := abPlusC(t)
	defer f.Close()
	ex := must(SimpleBind(f, abShapes(2, 2), "", WithGradReqs(map[string]GradReq{"a": GradWrite})))
	defer ex.Close()
	out := forwardABC(t, ex, true)
	for i := range out {
		if want := optA[i]*optB[i] + optC[i]; out[i] != want {
			t.Errorf("out[%d] = %v, want %v", i, out[i], want)
		}
	}
	hg := []float32{1, 2, 3, 4}
	head := must(FromFloat32(hg, 2, 2))
	defer head.Close()
	check(t, ex.Backward(head))
	g := must(ex.GradArrays())
	defer CloseAll(g)
	if len(g) != 1 || g["a"] == nil {
		t.Fatalf("gradients %v, want a only", g)
	}
	ga := must(g["a"].ToFloat32())
	for i := range ga {
		if want := hg[i] * optB[i]; ga[i] != want {
			t.Errorf("d/da[%d] = %v, want %v", i, ga[i], want)
		}
	}
	ex2 := must(SimpleBind(f, abShapes(2, 2), "", WithGradReqs(map[string]GradReq{"b": GradWrite, "c": GradAdd}),
		WithGradReqs(map[string]GradReq{"c": GradNull})))
	defer ex2.Close()
	if names := gradNames(t, ex2); len(names) != 1 || !names["b"] {
		t.Errorf("gradients %v, want b only", names)
	}
	// SimpleBind's gradReq applies with executor options too.
	ex3 := must(SimpleBind(f, abShapes(2, 2), "null", WithMatchRange(4)))
	defer ex3.Close()
	if names := gradNames(t, ex3); len(names) != 0 {
		t.Errorf("gradients %v with gradReq null, want none", names)
	}
	if m := must(ex3.Memory()); m.MatchRange != 4 {
		t.Errorf("match range %d, want 4", m.MatchRange)
	}
	ex4 := must(SimpleBind(f, abShapes(2, 2), "add", WithMatchRange(4)))
	defer ex4.Close()
	if names := gradNames(t, ex4); len(names) != 3 {
		t.Errorf("gradients %v with gradReq add, want a, b and c", names)
	}
}

// TestExecutorOptionsGiveTheDefaultNumbers: WithAllowFallback(false) binds on
// the CPU (nothing to fall back), and with match range 0, 2 groups, bulk 0
// and no inference optimisation the numbers are those of the defaults; the
// match range reaches the memory planner (Memory). Bind takes the options too.
// conformance: executor_options.default_numbers
func TestExecutorOptionsGiveTheDefaultNumbers(t *testing.T) {
	checkLive(t)
	f := abPlusC(t)
	defer f.Close()
	plain := must(SimpleBind(f, abShapes(2, 2), ""))
	defer plain.Close()
	want := forwardABC(t, plain, false)
	if m := must(plain.Memory()); m.MatchRange != 16 {
		t.Errorf("default match range %d, want 16", m.MatchRange)
	}
	ex1 := must(SimpleBind(f, abShapes(2, 2), "", WithAllowFallback(false), WithMatchRange(0), WithNumGroups(2),
		WithBulkMaxNodes(0), WithOptimizeInference(false)))
	defer ex1.Close()
	floatsEqual(t, forwardABC(t, ex1, false), want)
	check(t, checkAbPlusC(ex1, 1))
	ex2 := must(SimpleBind(f, abShapes(2, 2), "write", WithMatchRange(5), WithOptimizeInference(true),
		WithAllowFallback(true), WithBulkMaxNodes(-1), OnDevice(CPU(0))))
	defer ex2.Close()
	floatsEqual(t, forwardABC(t, ex2, true), want)
	if m := must(ex2.Memory()); m.MatchRange != 5 {
		t.Errorf("match range %d, want 5", m.MatchRange)
	}

	a := must(FromFloat32(optA, 4))
	b := must(FromFloat32(optB, 4))
	c := must(FromFloat32(optC, 4))
	ga := must(NewNDArray(Float32, 4))
	hg := must(FromFloat32([]float32{1, 1, 1, 1}, 4))
	defer closeAll(t, hg, ga, c, b, a)
	ex := must(Bind(f, []*NDArray{a, b, c}, []*NDArray{ga, nil, nil}, nil, nil, WithMatchRange(3), WithNumGroups(2),
		WithAllowFallback(false)))
	defer ex.Close()
	if m := must(ex.Memory()); m.MatchRange != 3 {
		t.Errorf("match range %d, want 3", m.MatchRange)
	}
	check(t, ex.Forward(true))
	outs := must(ex.Outputs())
	defer CloseNamed(outs)
	floatsEqual(t, must(outs[0].Array.ToFloat32()), want)
	check(t, ex.Backward(hg))
	floatsEqual(t, must(ga.ToFloat32()), optB) // shared, d/da = b
}

// TestExecutorOptionsGroupsPlaceArguments: WithGroup2Ctx combined with
// executor options places each group's arguments on its device.
// conformance: executor_options.groups_place_arguments
func TestExecutorOptionsGroupsPlaceArguments(t *testing.T) {
	checkLive(t)
	f := groupedAbPlusC(t)
	defer f.Close()
	ex := must(SimpleBind(f, abShapes(2, 2), "write", WithGroup2Ctx(map[string]Context{"stage1": CPU(1), "stage2": CPU(2)}),
		WithNumGroups(2)))
	defer ex.Close()
	args := must(ex.ArgArrays())
	for name, want := range map[string]Context{"a": CPU(1), "c": CPU(2)} {
		if got := must(args[name].Context()); got != want {
			t.Errorf("argument %s on %v, want %v", name, got, want)
		}
	}
	CloseAll(args)
	check(t, checkAbPlusC(ex, 2))
	_, err := SimpleBind(f, abShapes(2, 2), "write", WithGroup2Ctx(map[string]Context{"stage1": CPU(1)}), WithNumGroups(2))
	expectError(t, err, DeviceError, "stage2")
}

// TestExecutorOptionsErrors: bad values fail with InvalidArgument naming them;
// a gradient request for a non-argument fails the bind naming it; Bind and
// NewModule reject requests by name; gradReq and WithGradReqs together are an
// error; the options handle is freed on every path (the live-handle count).
// conformance: executor_options.errors
func TestExecutorOptionsErrors(t *testing.T) {
	checkLive(t)
	f := abPlusC(t)
	defer f.Close()
	a := must(FromFloat32(optA, 4))
	defer a.Close()
	before := LiveHandleCount()
	_, err := SimpleBind(f, abShapes(2, 2), "", WithMatchRange(-1))
	expectError(t, err, InvalidArgument, "match_range", "-1")
	_, err = SimpleBind(f, abShapes(2, 2), "", WithMatchRange(2), WithNumGroups(0))
	expectError(t, err, InvalidArgument, "num_groups", "0")
	_, err = SimpleBind(f, abShapes(2, 2), "", WithGradReqs(map[string]GradReq{"a": GradReq(2)}))
	expectError(t, err, InvalidArgument, "2")
	_, err = SimpleBind(f, abShapes(2, 2), "", WithGradReqs(map[string]GradReq{"zz": GradWrite}))
	expectError(t, err, InvalidArgument, "'zz'")
	_, err = SimpleBind(f, abShapes(2, 2), "write", WithGradReqs(map[string]GradReq{"a": GradWrite}))
	expectError(t, err, InvalidArgument, "WithGradReqs")
	_, err = SimpleBind(f, abShapes(2, 2), "sometimes", WithMatchRange(1))
	expectError(t, err, InvalidArgument, "sometimes")
	_, err = Bind(f, []*NDArray{a, a, a}, nil, nil, nil, WithGradReqs(map[string]GradReq{"zz": GradWrite}))
	expectError(t, err, InvalidArgument, "zz")
	_, err = Bind(f, []*NDArray{a, a, a}, nil, nil, nil, WithNumGroups(-3))
	expectError(t, err, InvalidArgument, "num_groups", "-3")
	_, err = NewModule(f, []string{"a"}, nil, WithMatchRange(1))
	expectError(t, err, InvalidArgument, "WithMatchRange")
	if after := LiveHandleCount(); after != before {
		t.Errorf("live handles %d after the failed binds, want %d (an options handle leaked)", after, before)
	}
	closed := must(SimpleBind(f, abShapes(2, 2), "", WithMatchRange(0)))
	check(t, closed.Close())
	if after := LiveHandleCount(); after != before {
		t.Errorf("live handles %d after bind and close, want %d", after, before)
	}
	_, err = closed.Memory()
	expectError(t, err, InvalidHandle)
}
