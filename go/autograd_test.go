package weft

import (
	"errors"
	"runtime"
	"testing"
)

// Autograd: recording scopes, marked variables, backward, grad, detach, symbols (issue 43).

func mul(a, b *NDArray) (*NDArray, error) { return Call("elemwise_mul", nil, a, b) }

// values reads and closes a.
func values(t *testing.T, a *NDArray) []float32 {
	t.Helper()
	defer a.Close()
	return must(a.ToFloat32())
}

// gradValues reads a's gradient buffer.
func gradValues(t *testing.T, a *NDArray) []float32 {
	t.Helper()
	g, err := a.Grad()
	check(t, err)
	if g == nil {
		t.Fatalf("no gradient buffer")
	}
	return values(t, g)
}

// conformance: autograd.mlp_gradients_known_numbers
func TestAutogradMLPGradientsKnownNumbers(t *testing.T) {
	checkLive(t)
	x := must(FromFloat32([]float32{1, 2, 3}, 3))
	acc := must(FromFloat32([]float32{1, 2, 3}, 3))
	defer closeAll(t, x, acc)
	check(t, x.AttachGrad())
	check(t, acc.AttachGrad(GradAdd))
	for round := 0; round < 2; round++ {
		var y, z *NDArray
		check(t, Record(true, func() (err error) {
			if y, err = mul(x, x); err != nil {
				return err
			}
			z, err = mul(acc, acc)
			return err
		}))
		check(t, y.Backward())
		check(t, Backward([]*NDArray{z}))
		closeAll(t, y, z)
	}
	floatsEqual(t, gradValues(t, x), []float32{2, 4, 6})    // written
	floatsEqual(t, gradValues(t, acc), []float32{4, 8, 12}) // added twice

	// FullyConnected -> relu -> sum: dW = column sums of x, db = rows, dx = W per row.
	in := must(FromFloat32([]float32{1, 2, 3, 4}, 2, 2))
	w := must(FromFloat32([]float32{1, -1}, 1, 2))
	b := must(FromFloat32([]float32{2}, 1))
	gx := must(FromFloat32([]float32{0, 0, 0, 0}, 2, 2))
	gw := must(FromFloat32([]float32{0, 0}, 1, 2))
	gb := must(FromFloat32([]float32{0}, 1))
	defer closeAll(t, in, w, b, gx, gw, gb)
	check(t, MarkVariables([]*NDArray{in, w, b}, nil, []*NDArray{gx, gw, gb}))
	var loss *NDArray
	check(t, Record(true, func() error {
		fc, err := Call("FullyConnected", Params{"num_hidden": 1}, in, w, b)
		if err != nil {
			return err
		}
		defer fc.Close()
		act, err := Call("Activation", Params{"act_type": "relu"}, fc)
		if err != nil {
			return err
		}
		defer act.Close()
		loss, err = Call("sum", nil, act)
		return err
	}))
	defer closeAll(t, loss)
	floatsEqual(t, must(loss.ToFloat32()), []float32{2}) // relu(1) + relu(1)
	check(t, loss.Backward())
	floatsEqual(t, must(gw.ToFloat32()), []float32{4, 6})
	floatsEqual(t, must(gb.ToFloat32()), []float32{2})
	floatsEqual(t, must(gx.ToFloat32()), []float32{1, -1, 1, -1})
}

// conformance: autograd.higher_order_grad
func TestAutogradHigherOrderGrad(t *testing.T) {
	checkLive(t)
	x := must(FromFloat32([]float32{1, 2, 3}, 3))
	defer closeAll(t, x)
	check(t, x.AttachGrad())
	var sq, y *NDArray
	check(t, Record(true, func() (err error) {
		if sq, err = mul(x, x); err != nil {
			return err
		}
		y, err = mul(sq, x) // x^3
		return err
	}))
	defer closeAll(t, sq, y)
	g1 := must(Grad([]*NDArray{y}, []*NDArray{x}, WithCreateGraph()))[0]
	defer closeAll(t, g1)
	floatsEqual(t, must(g1.ToFloat32()), []float32{3, 12, 27}) // 3x^2
	g2 := must(Grad([]*NDArray{g1}, []*NDArray{x}))[0]
	floatsEqual(t, values(t, g2), []float32{6, 12, 18}) // 6x
}

// conformance: autograd.grad_detach_and_symbol
func TestAutogradGradDetachAndSymbol(t *testing.T) {
	checkLive(t)
	x := must(FromFloat32([]float32{1, 2, 3}, 3))
	twos := must(FromFloat32([]float32{2, 2, 2}, 3))
	defer closeAll(t, x, twos)
	if g, err := x.Grad(); err != nil || g != nil {
		t.Fatalf("Grad of an unmarked array: %v, %v", g, err)
	}
	check(t, x.AttachGrad())
	var sq, d, z *NDArray
	check(t, Record(true, func() (err error) {
		if sq, err = mul(x, x); err != nil {
			return err
		}
		if d, err = sq.Detach(); err != nil {
			return err
		}
		z, err = mul(d, x) // d(detach(x*x) * x)/dx = x*x
		return err
	}))
	defer closeAll(t, sq, d, z)
	// Grad: new arrays, the buffer untouched; head gradients scale them.
	g, err := Grad([]*NDArray{z}, []*NDArray{x}, WithHeadGrads(twos), WithRetainGraph())
	check(t, err)
	if len(g) != 1 {
		t.Fatalf("%d gradients", len(g))
	}
	floatsEqual(t, values(t, g[0]), []float32{2, 8, 18})
	floatsEqual(t, gradValues(t, x), []float32{0, 0, 0})
	s := must(GetSymbol(sq))
	args := must(s.ListArguments())
	closeAll(t, s)
	if len(args) != 1 {
		t.Fatalf("arguments %v, want x alone", args)
	}
	check(t, Backward([]*NDArray{z}))
	floatsEqual(t, gradValues(t, x), []float32{1, 4, 9})
	floatsEqual(t, must(d.ToFloat32()), []float32{1, 4, 9}) // same storage as sq
	expectError(t, d.Backward(), InvalidArgument, "not recorded")
}

// conformance: autograd.scope_restores_flags_and_errors
func TestAutogradScopeRestoresFlagsAndErrors(t *testing.T) {
	checkLive(t)
	runtime.LockOSThread() // the flags read below are this thread's
	defer runtime.UnlockOSThread()
	if IsRecording() || IsTraining() {
		t.Fatalf("flags set at the start")
	}
	check(t, Record(true, func() error {
		if !IsRecording() || !IsTraining() {
			t.Errorf("Record(true): recording %v, training %v", IsRecording(), IsTraining())
		}
		check(t, Pause(false, func() error {
			if IsRecording() || IsTraining() {
				t.Errorf("Pause(false): recording %v, training %v", IsRecording(), IsTraining())
			}
			return Record(false, func() error {
				if !IsRecording() || IsTraining() {
					t.Errorf("Record(false): recording %v, training %v", IsRecording(), IsTraining())
				}
				return nil
			})
		}))
		if !IsRecording() || !IsTraining() {
			t.Errorf("after Pause: recording %v, training %v", IsRecording(), IsTraining())
		}
		// The flags are the thread's: a goroutine locked to its own thread does not record.
		other := make(chan bool)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			other <- IsRecording()
		}()
		if <-other {
			t.Errorf("another thread records")
		}
		return nil
	}))
	if IsRecording() || IsTraining() {
		t.Fatalf("flags not restored after Record")
	}
	// fn's error is returned and a panic passes through; both restore the flags.
	failed := errors.New("fn failed")
	if err := Record(true, func() error { return failed }); err != failed {
		t.Fatalf("Record returned %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "inside" {
				t.Errorf("recovered %v", r)
			}
		}()
		_ = Record(true, func() error { panic("inside") })
	}()
	if IsRecording() || IsTraining() {
		t.Fatalf("flags not restored after an error or a panic")
	}
	if SetRecording(true) || !SetRecording(false) || SetTraining(true) || !SetTraining(false) {
		t.Fatalf("Set* do not return the previous setting")
	}

	x := must(FromFloat32([]float32{1, 2, 3}, 3))
	small := must(FromFloat32([]float32{0, 0}, 2))
	defer closeAll(t, x, small)
	expectError(t, x.Backward(), InvalidArgument, "not recorded")
	expectError(t, MarkVariables([]*NDArray{x}, nil, []*NDArray{small}), ShapeError,
		"gradient buffer of variable 0", "(2,)")
	expectError(t, MarkVariables([]*NDArray{x}, []GradReq{GradWrite, GradAdd}, nil), InvalidArgument,
		"reqs", "2")
	check(t, x.AttachGrad())
	var y *NDArray
	check(t, Record(true, func() (err error) { y, err = mul(x, x); return err }))
	defer closeAll(t, y)
	expectError(t, y.Backward(WithHeadGrads(small)), ShapeError, "head gradient 0")
	check(t, Backward([]*NDArray{y}, WithRetainGraph()))
	check(t, y.Backward())
	expectError(t, y.Backward(), InvalidArgument, "retain_graph")
	_, err := GetSymbol(small) // never recorded nor marked
	expectError(t, err, InvalidArgument, "not recorded")
	floatsEqual(t, gradValues(t, x), []float32{2, 4, 6})
}
