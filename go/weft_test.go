package weft

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The cross-language conformance list (same cases in JUnit and NUnit).

// must unwraps (v, err); an unexpected error panics, which fails the run.
func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func closeAll(t *testing.T, cs ...interface{ Close() error }) {
	t.Helper()
	for _, c := range cs {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// expectError checks err is a *Error with code and message fragments.
func expectError(t *testing.T, err error, code Code, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected a %v error, got nil", code)
	}
	var we *Error
	if !errors.As(err, &we) {
		t.Fatalf("error %T (%v) is not *weft.Error", err, err)
	}
	if !errors.Is(err, code) || we.Code != code {
		t.Fatalf("code %v, expected %v (%s)", we.Code, code, we.Message)
	}
	for _, f := range fragments {
		if !strings.Contains(we.Message, f) {
			t.Errorf("message %q lacks %q", we.Message, f)
		}
	}
}

// checkLive fails the test when it leaked native handles.
func checkLive(t *testing.T) {
	before := LiveHandleCount()
	t.Cleanup(func() {
		if after := LiveHandleCount(); after != before {
			t.Errorf("live handles: %d before, %d after", before, after)
		}
	})
}

func floatsEqual[T float32 | float64](t *testing.T, got, want []T) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// conformance: library.version_and_op_listing
func TestVersionAndOpListing(t *testing.T) {
	checkLive(t)
	if Version() != "0.1.0" || ABIVersion() != BindingABIVersion() {
		t.Fatalf("version %s ABI %d binding %d", Version(), ABIVersion(), BindingABIVersion())
	}
	ops := must(OpNames())
	joined := " " + strings.Join(ops, " ") + " "
	if !strings.Contains(joined, " elemwise_add ") || !strings.Contains(joined, " dot ") {
		t.Fatalf("ops %v", ops)
	}
	q := must(GetOpInfo("quadratic"))
	if len(q.Params) != 3 || q.Params[0].Name != "a" {
		t.Fatalf("quadratic params %+v", q.Params)
	}
	_, err := GetOpInfo("no_such_op")
	expectError(t, err, NotFound, "no_such_op")
}

// TestNDArrayOnADevice: an array created on cpu(1) reports cpu(1); gpu(0)
// fails naming the device.
// conformance: ndarray.on_a_device
func TestNDArrayOnADevice(t *testing.T) {
	checkLive(t)
	a := must(NewNDArrayOn(CPU(1), Float32, 2, 2))
	b := must(NewNDArray(Float32, 2))
	defer closeAll(t, a, b)
	ctx := must(a.Context())
	if ctx != CPU(1) || ctx.String() != "cpu(1)" || ctx.Type != CPUDevice || ctx.ID != 1 {
		t.Fatalf("context %#v (%v), want cpu(1)", ctx, ctx)
	}
	if ctx := must(b.Context()); ctx != CPU(0) {
		t.Fatalf("default context %v, want cpu(0)", ctx)
	}
	if (Context{}).String() != "cpu(0)" || GPU(3).String() != "gpu(3)" {
		t.Fatalf("names %v %v", Context{}, GPU(3))
	}
	check(t, a.CopyFromFloat32([]float32{1, 2, 3, 4}))
	floatsEqual(t, must(a.ToFloat32()), []float32{1, 2, 3, 4})
	_, err := NewNDArrayOn(GPU(0), Float32, 2)
	expectError(t, err, DeviceError, "gpu(0)")
}

// conformance: ndarray.create_free_double_close
func TestCreateFreeAndDoubleCloseAreSafe(t *testing.T) {
	checkLive(t)
	before := LiveHandleCount()
	a := must(NewNDArray(Float32, 2, 3))
	if LiveHandleCount() != before+1 {
		t.Fatalf("live %d, expected %d", LiveHandleCount(), before+1)
	}
	if s := must(a.Shape()); fmt.Sprint(s) != "[2 3]" {
		t.Fatalf("shape %v", s)
	}
	if d := must(a.DType()); d != Float32 {
		t.Fatalf("dtype %v", d)
	}
	if n := must(a.Size()); n != 6 {
		t.Fatalf("size %d", n)
	}
	closeAll(t, a, a)
	if !a.Closed() {
		t.Fatal("not closed")
	}
	_, err := a.Shape()
	expectError(t, err, InvalidHandle, "closed")
	s := must(Variable("x"))
	closeAll(t, s, s)
}

// conformance: errors.bad_op_name_is_not_found
func TestBadOpNameIsNotFound(t *testing.T) {
	checkLive(t)
	_, err := Call("no_such_op", nil)
	expectError(t, err, NotFound, "no_such_op")
	_, err = Atomic("no_such_op", nil)
	expectError(t, err, NotFound, "no_such_op")
}

// conformance: errors.bad_param_is_invalid_argument
func TestBadParamIsInvalidArgument(t *testing.T) {
	checkLive(t)
	x := must(FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	defer x.Close()
	_, err := Call("sum", Params{"axis": "zz"}, x)
	expectError(t, err, InvalidArgument, "sum", "axis", "zz")
	_, err = Call("quadratic", Params{"d": 1}, x)
	expectError(t, err, InvalidArgument, "quadratic", "d")
}

// conformance: errors.shape_mismatch_is_shape_error
func TestShapeMismatchIsShapeError(t *testing.T) {
	checkLive(t)
	x := must(NewNDArray(Float32, 2, 3))
	y := must(NewNDArray(Float32, 3, 2))
	defer closeAll(t, x, y)
	_, err := Call("elemwise_add", nil, x, y)
	expectError(t, err, ShapeError, "elemwise_add", "(2,3)", "(3,2)")
	_, err = x.Reshape(4, 2)
	expectError(t, err, ShapeError, "reshape", "(4,2)")
}

// conformance: errors.malformed_json_is_invalid_arg
func TestMalformedJSONIsInvalidArgument(t *testing.T) {
	checkLive(t)
	_, err := SymbolFromJSON("{bad")
	expectError(t, err, InvalidArgument, "JSON")
}

// TestClosedArgumentGivesInvalidHandle: a closed array passed to an op gives
// InvalidHandle (never a crash or a success); Close is idempotent.
// conformance: ndarray.closed_argument_invalid_handle
func TestClosedArgumentGivesInvalidHandle(t *testing.T) {
	checkLive(t)
	a := must(FromFloat32([]float32{1, 2}, 2))
	defer closeAll(t, a)
	b := must(FromFloat32([]float32{3, 4}, 2))
	closeAll(t, b, b)
	if !b.Closed() {
		t.Fatal("not closed")
	}
	_, err := b.Shape()
	expectError(t, err, InvalidHandle, "NDArray is closed")
	_, err = Call("elemwise_add", nil, a, b)
	expectError(t, err, InvalidHandle, "NDArray is closed")
	expectError(t, InvokeInto("elemwise_add", nil, []*NDArray{a, a}, b), InvalidHandle, "NDArray is closed")
	floatsEqual(t, must(a.ToFloat32()), []float32{1, 2})
}

// conformance: ndarray.zero_copy_round_trip
func TestZeroCopyRoundTrip(t *testing.T) {
	checkLive(t)
	in := []float32{1, 2, 3, 4, 5, 6}
	out := make([]float32, 6)
	a := must(FromFloat32(in, 2, 3))
	b := must(Call("_mul_scalar", Params{"scalar": 2}, a))
	defer closeAll(t, a, b)
	check(t, b.CopyToFloat32(out))
	floatsEqual(t, out, []float32{2, 4, 6, 8, 10, 12})
	check(t, a.CopyFromFloat32(out))
	floatsEqual(t, must(a.ToFloat32()), []float32{2, 4, 6, 8, 10, 12})
}

// conformance: ndarray.wrong_buffer_size_rejected
func TestWrongBufferSizeRejected(t *testing.T) {
	checkLive(t)
	a := must(NewNDArray(Float32, 2, 3))
	defer a.Close()
	expectError(t, a.CopyFromFloat32(make([]float32, 5)), InvalidArgument, "nbytes", "24")
	expectError(t, a.CopyToFloat32(make([]float32, 7)), InvalidArgument, "nbytes", "24")
	expectError(t, a.CopyFromBytes(make([]byte, 28)), InvalidArgument, "nbytes", "28")
	_, err := FromFloat32(make([]float32, 3), 2, 2)
	expectError(t, err, InvalidArgument, "nbytes")
}

// conformance: ops.imperative_known_numbers
func TestImperativeOpsWithKnownNumbers(t *testing.T) {
	checkLive(t)
	x := must(FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	w := must(FromFloat32([]float32{1, 0, 0, 1, 1, 1}, 3, 2))
	sum := must(Call("elemwise_add", nil, x, x))
	dot := must(Call("dot", nil, x, w))
	rows := must(Call("sum", Params{"axis": 1}, x))
	q := must(Call("quadratic", Params{"a": 1, "b": -2, "c": 1}, x))
	defer closeAll(t, x, w, sum, dot, rows, q)
	floatsEqual(t, must(sum.ToFloat32()), []float32{2, 4, 6, 8, 10, 12})
	if s := must(dot.Shape()); fmt.Sprint(s) != "[2 2]" {
		t.Fatalf("dot shape %v", s)
	}
	floatsEqual(t, must(dot.ToFloat32()), []float32{4, 5, 10, 11})
	floatsEqual(t, must(rows.ToFloat32()), []float32{6, 15})
	floatsEqual(t, must(q.ToFloat32()), []float32{0, 1, 4, 9, 16, 25})
	d := must(FromFloat64([]float64{0.5, -1.5}, 2))
	r := must(Call("_plus_scalar", Params{"scalar": 0.25}, d))
	defer closeAll(t, d, r)
	if dt := must(r.DType()); dt != Float64 {
		t.Fatalf("dtype %v", dt)
	}
	floatsEqual(t, must(r.ToFloat64()), []float64{0.75, -1.25})
}

// TestInvokeIntoWritesExistingArrays: InvokeInto writes existing arrays; a
// wrong output shape fails and writes nothing.
// conformance: ops.invoke_into_writes_existing_arrays
func TestInvokeIntoWritesExistingArrays(t *testing.T) {
	checkLive(t)
	x := must(FromFloat32([]float32{1, 2, 3}, 3))
	y := must(FromFloat32([]float32{10, 20, 30}, 3))
	o := must(FromFloat32([]float32{100, 100, 100}, 3))
	wrong := must(FromFloat32([]float32{7, 7, 7, 7}, 4))
	defer closeAll(t, x, y, o, wrong)
	check(t, InvokeInto("elemwise_add", nil, []*NDArray{x, y}, o))
	floatsEqual(t, must(o.ToFloat32()), []float32{11, 22, 33})
	check(t, InvokeInto("_plus_scalar", Params{"scalar": 0.5}, []*NDArray{x}, o))
	floatsEqual(t, must(o.ToFloat32()), []float32{1.5, 2.5, 3.5})
	expectError(t, InvokeInto("elemwise_add", nil, []*NDArray{x, y}, wrong), ShapeError)
	floatsEqual(t, must(wrong.ToFloat32()), []float32{7, 7, 7, 7})
	expectError(t, InvokeInto("no_such_op", nil, []*NDArray{x}, o), NotFound, "no_such_op")
	floatsEqual(t, must(o.ToFloat32()), []float32{1.5, 2.5, 3.5})
}

// conformance: ndarray.reshape_and_slice_are_views
func TestReshapeAndSliceAreViews(t *testing.T) {
	checkLive(t)
	x := must(FromFloat32([]float32{1, 2, 3, 4, 5, 6}, 3, 2))
	r := must(x.Reshape(2, 3))
	s := must(x.Slice(1, 3))
	defer closeAll(t, x, r, s)
	if sh := must(r.Shape()); fmt.Sprint(sh) != "[2 3]" {
		t.Fatalf("reshape %v", sh)
	}
	if sh := must(s.Shape()); fmt.Sprint(sh) != "[2 2]" {
		t.Fatalf("slice %v", sh)
	}
	floatsEqual(t, must(s.ToFloat32()), []float32{3, 4, 5, 6})
	check(t, s.CopyFromFloat32([]float32{-3, -4, -5, -6}))
	floatsEqual(t, must(r.ToFloat32()), []float32{1, 2, -3, -4, -5, -6})
}

// conformance: symbol.composition_automatic_names
func TestSymbolCompositionWithAutomaticNames(t *testing.T) {
	checkLive(t)
	x := must(Variable("x"))
	d := must(Apply("dot", "", nil, x))
	fc1 := must(Apply("dot", "fc1", nil, x))
	y := must(Variable("y"))
	byName := must(ApplyNamed("dot", "fc2", nil, map[string]*Symbol{"rhs": y}))
	g := must(Group(fc1, byName))
	defer closeAll(t, x, d, fc1, y, byName, g)
	args := must(d.ListArguments())
	if len(args) != 2 || args[0] != "x" || !regexp.MustCompile(`^dot\d+_rhs$`).MatchString(args[1]) {
		t.Fatalf("arguments %v", args)
	}
	if a := must(fc1.ListArguments()); fmt.Sprint(a) != "[x fc1_rhs]" {
		t.Fatalf("fc1 arguments %v", a)
	}
	if a := must(byName.ListArguments()); fmt.Sprint(a) != "[fc2_lhs y]" {
		t.Fatalf("fc2 arguments %v", a)
	}
	if o := must(g.ListOutputs()); fmt.Sprint(o) != "[fc1_output fc2_output]" {
		t.Fatalf("outputs %v", o)
	}
	if n := must(g.NumOutputs()); n != 2 {
		t.Fatalf("num outputs %d", n)
	}
	if _, ok, err := g.Name(); ok || err != nil {
		t.Fatalf("group has a name (%v)", err)
	}
	if name, ok, _ := fc1.Name(); !ok || name != "fc1" {
		t.Fatalf("name %q", name)
	}
	check(t, fc1.SetAttr("lr_mult", "0.5"))
	if v, ok, _ := fc1.Attr("lr_mult"); !ok || v != "0.5" {
		t.Fatalf("attr %q", v)
	}
	if m := must(fc1.ListAttr(true)); len(m) == 0 {
		t.Fatal("no attributes")
	}
	back := must(SymbolFromJSON(must(g.JSON())))
	defer back.Close()
	if fmt.Sprint(must(back.ListArguments())) != fmt.Sprint(must(g.ListArguments())) {
		t.Fatal("JSON round trip changed the arguments")
	}
}

// conformance: symbol.partial_shape_inference
func TestPartialShapeInference(t *testing.T) {
	checkLive(t)
	x := must(Variable("x"))
	d := must(Apply("dot", "fc", nil, x))
	defer closeAll(t, x, d)
	known := Shapes{"x": {2, 3}}
	p := must(d.InferShapePartial(known))
	if p.Complete || fmt.Sprint(p.Arguments["x"]) != "[2 3]" || !strings.Contains(fmt.Sprint(p.Unknown), "fc_rhs") {
		t.Fatalf("partial %+v", p)
	}
	_, err := d.InferShape(known)
	expectError(t, err, ShapeError, "fc_rhs")
	known["fc_rhs"] = []int64{3, 4}
	full := must(d.InferShape(known))
	if !full.Complete || fmt.Sprint(full.Outputs["fc_output"]) != "[2 4]" {
		t.Fatalf("full %+v", full)
	}
	ty := must(d.InferType(map[string]DType{"x": Float64}))
	if ty.Outputs["fc_output"] != Float64 {
		t.Fatalf("types %+v", ty)
	}
}

// conformance: threads.concurrent_use_separate_arrays
func TestConcurrentUseOnSeparateArrays(t *testing.T) {
	checkLive(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(base float32) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				a, err := FromFloat32([]float32{base, float32(i)}, 2)
				if err != nil {
					errs <- err
					return
				}
				b, err := Call("_plus_scalar", Params{"scalar": 1}, a)
				if err != nil {
					errs <- err
					return
				}
				v, err := b.ToFloat32()
				a.Close()
				b.Close()
				if err != nil || v[0] != base+1 || v[1] != float32(i)+1 {
					errs <- fmt.Errorf("bad values %v (%v)", v, err)
					return
				}
				// The message must belong to this goroutine's call even if
				// the goroutine changes OS threads.
				name := fmt.Sprintf("nope%v_%d", base, i)
				runtime.Gosched()
				_, err = Call(name, nil)
				var we *Error
				if !errors.As(err, &we) || !strings.Contains(we.Message, "'"+name+"'") {
					errs <- fmt.Errorf("wrong error for %s: %v", name, err)
					return
				}
			}
		}(float32(g))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// conformance: handles.finalizer_frees_forgotten
func TestFinalizerFreesForgottenArrays(t *testing.T) {
	before := LiveHandleCount()
	for i := 0; i < 10; i++ {
		if _, err := NewNDArray(Float32, 4); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 10 && LiveHandleCount() != before; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if LiveHandleCount() != before {
		t.Fatalf("live %d, expected %d after GC", LiveHandleCount(), before)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	runtime.GC()
	if n := LiveHandleCount(); n != 0 && code == 0 {
		fmt.Printf("FAIL: %d live handles at the end\n", n)
		code = 1
	}
	os.Exit(code)
}
