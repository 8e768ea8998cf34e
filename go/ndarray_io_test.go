package weft

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// .params and .npy in memory and on streams; the optimizer's schedule and
// gradient scale.

// conformance: io.params_round_trip
func TestParamsRoundTripThroughBytesAndStreams(t *testing.T) {
	checkLive(t)
	w := must(FromFloat32([]float32{1, 2, 3, 4}, 2, 2))
	b := must(FromFloat64([]float64{-1.5, 7}, 2))
	defer closeAll(t, w, b)
	arrays := map[string]*NDArray{"arg:w": w, "aux:b": b}
	data := must(SaveParamsBytes(arrays))
	path := filepath.Join(t.TempDir(), "a.params")
	check(t, SaveParams(path, arrays))
	if !bytes.Equal(must(os.ReadFile(path)), data) {
		t.Fatalf("SaveParamsBytes differs from the file SaveParams writes")
	}
	var buf bytes.Buffer
	check(t, WriteParams(&buf, arrays))
	if !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("WriteParams differs from SaveParamsBytes")
	}
	for _, m := range []map[string]*NDArray{must(LoadParamsBytes(data)), must(ReadParams(bytes.NewReader(data)))} {
		if len(m) != 2 {
			t.Fatalf("loaded %d arrays, want 2", len(m))
		}
		floatsEqual(t, must(m["arg:w"].ToFloat32()), []float32{1, 2, 3, 4})
		floatsEqual(t, must(m["aux:b"].ToFloat64()), []float64{-1.5, 7})
		if dt := must(m["aux:b"].DType()); dt != Float64 {
			t.Fatalf("dtype %v, want Float64", dt)
		}
		CloseAll(m)
	}
	_, err := LoadParamsBytes(make([]byte, 32))
	expectError(t, err, InvalidArgument, "weft_ndarray_load_buffer", "list magic")
	_, err = LoadParamsBytes(data[:len(data)-3])
	expectError(t, err, InvalidArgument, "exceeds the 2 bytes that remain")
	_, err = LoadParamsBytes(nil)
	expectError(t, err, InvalidArgument, "truncated")
	b.Close()
	_, err = SaveParamsBytes(arrays)
	expectError(t, err, InvalidHandle, "NDArray is closed")
}

// conformance: io.npy_round_trip io.npy_errors
func TestNpyRoundTripThroughBytesFilesAndStreams(t *testing.T) {
	checkLive(t)
	a := must(FromFloat32([]float32{-3, -2.5, -2, -1.5, -1, -0.5}, 2, 3))
	defer closeAll(t, a)
	npy := must(a.NpyBytes())
	if !bytes.HasPrefix(npy, []byte("\x93NUMPY")) {
		t.Fatalf("no .npy magic: %q", npy[:8])
	}
	header := string(npy[10 : len(npy)-24])
	if !strings.Contains(header, "'descr': '<f4'") || !strings.Contains(header, "'shape': (2, 3)") {
		t.Fatalf("header %q", header)
	}
	path := filepath.Join(t.TempDir(), "a.npy")
	check(t, a.SaveNpy(path))
	if !bytes.Equal(must(os.ReadFile(path)), npy) {
		t.Fatalf("NpyBytes differs from the file SaveNpy writes")
	}
	var buf bytes.Buffer
	check(t, a.WriteNpy(&buf))
	if !bytes.Equal(buf.Bytes(), npy) {
		t.Fatalf("WriteNpy differs from NpyBytes")
	}
	for _, b := range []*NDArray{must(LoadNpyBytes(npy)), must(LoadNpy(path)), must(ReadNpy(bytes.NewReader(npy)))} {
		if s := must(b.Shape()); len(s) != 2 || s[0] != 2 || s[1] != 3 {
			t.Fatalf("shape %v", s)
		}
		floatsEqual(t, must(b.ToFloat32()), must(a.ToFloat32()))
		closeAll(t, b)
	}
	// Errors name what was expected; nothing leaks.
	_, err := LoadNpyBytes(npy[:5])
	expectError(t, err, InvalidArgument, "weft_ndarray_load_npy_buffer", "truncated")
	bad := append([]byte{'X'}, npy[1:]...)
	_, err = LoadNpyBytes(bad)
	expectError(t, err, InvalidArgument, "magic")
	_, err = LoadNpy("/nonexistent/x.npy")
	expectError(t, err, IOError, "/nonexistent/x.npy")
	i8 := must(NewNDArray(Int8, 2))
	back := must(LoadNpyBytes(must(i8.NpyBytes())))
	if d := must(back.DType()); d != Int8 {
		t.Fatalf("int8 .npy loads back as %v", d)
	}
	closeAll(t, i8, back)
	_, err = i8.NpyBytes()
	expectError(t, err, InvalidHandle, "NDArray is closed")
}

// conformance: training.optimizer_schedule_rescale
func TestOptimizerScheduleAndRescaleGrad(t *testing.T) {
	checkLive(t)
	opt := must(NewOptimizer("sgd", Params{"learning_rate": 1}))
	defer closeAll(t, opt)
	check(t, opt.SetLrScheduler("factor", []int64{1}, 0.5, 1e-8))
	check(t, opt.SetRescaleGrad(2))
	w := must(FromFloat32([]float32{10}, 1))
	g := must(FromFloat32([]float32{1}, 1))
	defer closeAll(t, w, g)
	// Updates 1, 2, 3 run at rates 1, 0.5, 0.25, each on 2 * g.
	for k := 0; k < 3; k++ {
		check(t, opt.Update(0, "w", w, g))
	}
	if got := must(w.ToFloat32())[0]; math.Abs(float64(got-(10-2*1.75))) > 1e-6 {
		t.Fatalf("weight %v, want %v", got, 10-2*1.75)
	}
	if lr := must(opt.LearningRate("w")); math.Abs(float64(lr-0.25)) > 1e-7 {
		t.Fatalf("lr %v, want 0.25", lr)
	}
	check(t, opt.SetLrScheduler("multifactor", []int64{1, 2}, 0.1, 0))
	if lr := must(opt.LearningRate("w")); math.Abs(float64(lr-0.01)) > 1e-8 {
		t.Fatalf("lr %v, want 0.01", lr)
	}
	check(t, opt.SetLrScheduler("none", nil, 0, 0))
	if lr := must(opt.LearningRate("w")); lr != 1 {
		t.Fatalf("lr %v, want 1", lr)
	}
	expectError(t, opt.SetLrScheduler("cosine", []int64{1}, 0.5, 0), InvalidArgument, "cosine", "multifactor")
	expectError(t, opt.SetLrScheduler("multifactor", []int64{3, 2}, 0.5, 0), InvalidArgument, "increasing")
	expectError(t, opt.SetLrScheduler("factor", nil, 0.5, 0), InvalidArgument, "steps")
	expectError(t, opt.SetRescaleGrad(float32(math.NaN())), InvalidArgument, "rescale_grad")
	opt.Close()
	expectError(t, opt.SetRescaleGrad(1), InvalidHandle, "Optimizer is closed")
}
