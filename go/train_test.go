package weft

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
)

// Executor, training and checkpoint cases (same list in JUnit and NUnit).

const mlpJSON = `{"nodes": [
{"op": "null", "name": "data", "inputs": []},
{"op": "null", "name": "fc1_weight", "inputs": []},
{"op": "null", "name": "fc1_bias", "inputs": []},
{"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "16"}, "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
{"op": "Activation", "name": "relu1", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]},
{"op": "null", "name": "fc2_weight", "inputs": []},
{"op": "null", "name": "fc2_bias", "inputs": []},
{"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "4"}, "inputs": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},
{"op": "null", "name": "softmax_label", "inputs": []},
{"op": "SoftmaxOutput", "name": "softmax", "inputs": [[7, 0, 0], [8, 0, 0]]}],
"arg_nodes": [0, 1, 2, 5, 6, 8], "heads": [[9, 0, 0]]}`

const nBlobs = 200

// blobs: cluster i%4 centred at (+-2, +-2) with a deterministic jitter in [-0.5, 0.5).
func blobs(n int, seed uint32) (x, y []float32) {
	x = make([]float32, 2*n)
	y = make([]float32, n)
	for i := 0; i < n; i++ {
		c := i % 4
		sx, sy := float32(-2), float32(-2)
		if c&1 != 0 {
			sx = 2
		}
		if c&2 != 0 {
			sy = 2
		}
		seed = seed*1103515245 + 12345
		x[2*i] = (sx + float32((seed>>16)%1000)/1000) - 0.5
		seed = seed*1103515245 + 12345
		x[2*i+1] = (sy + float32((seed>>16)%1000)/1000) - 0.5
		y[i] = float32(c)
	}
	return x, y
}

func abPlusC(t testing.TB) *Symbol {
	a := must(Variable("a"))
	b := must(Variable("b"))
	c := must(Variable("c"))
	ab := must(Apply("elemwise_mul", "ab", nil, a, b))
	out := must(Apply("elemwise_add", "out", nil, ab, c))
	for _, s := range []*Symbol{a, b, c, ab} {
		s.Close()
	}
	return out
}

func abShapes(shape ...int64) map[string][]int64 {
	return map[string][]int64{"a": shape, "b": shape, "c": shape}
}

// checkAbPlusC runs forward/backward of a*b+c and compares with the closed form.
func checkAbPlusC(ex *Executor, k float32) error {
	a := []float32{1 + k, 2, -3, 4}
	b := []float32{5, -6 * k, 7, 0.5}
	c := []float32{0.25, 1, 2 * k, -8}
	hg := []float32{1, 2, 3, 4 + k}
	args, err := ex.ArgArrays()
	if err != nil {
		return err
	}
	for name, v := range map[string][]float32{"a": a, "b": b, "c": c} {
		if err := args[name].CopyFromFloat32(v); err != nil {
			return err
		}
	}
	CloseAll(args)
	if err := ex.Forward(true); err != nil {
		return err
	}
	outs, err := ex.Outputs()
	if err != nil {
		return err
	}
	o, err := outs[0].Array.ToFloat32()
	CloseNamed(outs)
	if err != nil {
		return err
	}
	for i := range o {
		if want := float32(a[i]*b[i]) + c[i]; o[i] != want {
			return fmt.Errorf("out[%d] = %v, want %v", i, o[i], want)
		}
	}
	head, err := FromFloat32(hg, 2, 2)
	if err != nil {
		return err
	}
	err = ex.Backward(head)
	head.Close()
	if err != nil {
		return err
	}
	g, err := ex.GradArrays()
	if err != nil {
		return err
	}
	defer CloseAll(g)
	ga, _ := g["a"].ToFloat32()
	gb, _ := g["b"].ToFloat32()
	gc, _ := g["c"].ToFloat32()
	for i := range hg {
		if ga[i] != hg[i]*b[i] || gb[i] != hg[i]*a[i] || gc[i] != hg[i] {
			return fmt.Errorf("gradients at %d: %v %v %v", i, ga[i], gb[i], gc[i])
		}
	}
	return nil
}

// conformance: executor.simple_bind_known_numbers
func TestSimpleBindForwardBackwardKnownNumbers(t *testing.T) {
	checkLive(t)
	f := abPlusC(t)
	defer f.Close()
	ex := must(SimpleBind(f, abShapes(2, 2), "write"))
	check(t, checkAbPlusC(ex, 0))
	check(t, checkAbPlusC(ex, 1))
	m := must(ex.Memory())
	if m.PlannedBytes == 0 || m.NaiveBytes < m.PlannedBytes {
		t.Fatalf("memory %+v", m)
	}
	big := must(ex.Reshape(abShapes(3, 2), false, true))
	args := must(big.ArgArrays())
	if s := must(args["a"].Shape()); fmt.Sprint(s) != "[3 2]" {
		t.Fatalf("reshaped a %v", s)
	}
	CloseAll(args)
	closeAll(t, big, ex, ex)
	expectError(t, ex.Forward(false), InvalidHandle, "closed")
}

// conformance: executor.bind_to_existing_arrays
func TestBindToExistingArrays(t *testing.T) {
	checkLive(t)
	f := abPlusC(t)
	a := must(FromFloat32([]float32{1, 2}, 2))
	b := must(FromFloat32([]float32{3, 4}, 2))
	c := must(FromFloat32([]float32{5, 6}, 2))
	ga := must(FromFloat32([]float32{0, 0}, 2))
	hg := must(FromFloat32([]float32{1, 1}, 2))
	ex := must(Bind(f, []*NDArray{a, b, c}, []*NDArray{ga, nil, nil}, nil, nil))
	check(t, ex.Forward(true))
	outs := must(ex.Outputs())
	floatsEqual(t, must(outs[0].Array.ToFloat32()), []float32{8, 14})
	CloseNamed(outs)
	check(t, ex.Backward(hg))
	floatsEqual(t, must(ga.ToFloat32()), []float32{3, 4})
	g := must(ex.GradArrays())
	if len(g) != 1 || g["a"] == nil {
		t.Fatalf("grads %v", g)
	}
	CloseAll(g)
	closeAll(t, ex, hg, ga, c, b, a, f)
}

// conformance: executor.errors
func TestExecutorErrors(t *testing.T) {
	checkLive(t)
	f := abPlusC(t)
	defer f.Close()
	_, err := SimpleBind(f, abShapes(2, 2), "sometimes")
	expectError(t, err, InvalidArgument, "sometimes")
	bad := abShapes(2, 2)
	bad["c"] = []int64{3, 3}
	_, err = SimpleBind(f, bad, "")
	expectError(t, err, ShapeError)
	ex := must(SimpleBind(f, abShapes(2, 2), "write"))
	expectError(t, ex.Backward(), InvalidArgument)
	ex.Close()
}

type trained struct {
	sym  *Symbol
	x, y *NDArray
	iter *DataIter
	mod  *Module
}

func newTrained(t testing.TB, epochs int) *trained { return newTrainedOn(t, epochs, CPU(0)) }

func newTrainedOn(t testing.TB, epochs int, ctx Context) *trained {
	xs, ys := blobs(nBlobs, 7)
	tr := &trained{sym: must(SymbolFromJSON(mlpJSON))}
	tr.x = must(FromFloat32(xs, nBlobs, 2))
	tr.y = must(FromFloat32(ys, nBlobs))
	tr.iter = must(NewDataIter(map[string]*NDArray{"data": tr.x}, map[string]*NDArray{"softmax_label": tr.y}, 16, true, "pad", 5))
	tr.mod = must(NewModule(tr.sym, []string{"data"}, []string{"softmax_label"}, OnDevice(ctx)))
	init := must(NewInitializer("xavier", nil, 3))
	opt := must(NewOptimizer("sgd", Params{"learning_rate": 0.1, "momentum": 0.9}))
	acc := must(NewMetric("acc", nil))
	defer func() { init.Close(); opt.Close(); acc.Close() }()
	if err := tr.mod.Bind(tr.iter, true); err != nil {
		t.Fatal(err)
	}
	if err := tr.mod.InitParams(init, nil, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := tr.mod.InitOptimizer(opt); err != nil {
		t.Fatal(err)
	}
	if epochs > 0 {
		if sps := must(tr.mod.Fit(tr.iter, nil, acc, 0, epochs, ProgressSilent, "")); sps <= 0 {
			t.Fatalf("samples per second %v", sps)
		}
	}
	return tr
}

func (tr *trained) Close() error {
	tr.mod.Close()
	tr.iter.Close()
	tr.x.Close()
	tr.y.Close()
	return tr.sym.Close()
}

// conformance: training.mlp_to_fixed_accuracy
func TestTrainMlpToFixedAccuracy(t *testing.T) {
	checkLive(t)
	tr := newTrained(t, 5)
	defer tr.Close()
	acc := must(NewMetric("acc", nil))
	defer acc.Close()
	if v := must(tr.mod.Score(tr.iter, acc)); v["accuracy"] < 0.98 {
		t.Fatalf("accuracy %v", v)
	}
	check(t, tr.iter.Reset())
	check(t, acc.Reset())
	for must(tr.iter.Next()) {
		check(t, tr.mod.Forward(tr.iter, true))
		check(t, tr.mod.Backward())
		check(t, tr.mod.Update())
		check(t, tr.mod.UpdateMetric(acc, tr.iter))
	}
	if v := must(acc.Get()); v["accuracy"] < 0.98 {
		t.Fatalf("manual loop accuracy %v", v)
	}
	outs := must(tr.mod.Outputs())
	if s := must(outs["softmax_output"].Shape()); fmt.Sprint(s) != "[16 4]" {
		t.Fatalf("output shape %v", s)
	}
	CloseAll(outs)
	p := must(tr.mod.ArgParams())
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names)
	if fmt.Sprint(names) != "[fc1_bias fc1_weight fc2_bias fc2_weight]" {
		t.Fatalf("params %v", names)
	}
	CloseAll(p)
}

// conformance: training.untrained_errors_reported
func TestUntrainedIsNotAccurateAndErrorsAreReported(t *testing.T) {
	checkLive(t)
	tr := newTrained(t, 0)
	defer tr.Close()
	acc := must(NewMetric("acc", nil))
	defer acc.Close()
	if v := must(tr.mod.Score(tr.iter, acc)); v["accuracy"] >= 0.9 {
		t.Fatalf("untrained accuracy %v", v)
	}
	_, err := NewMetric("nope", nil)
	expectError(t, err, InvalidArgument)
	_, err = NewOptimizer("sgd", Params{"lr_typo": 1})
	expectError(t, err, InvalidArgument, "lr_typo")
	_, err = tr.mod.Fit(tr.iter, nil, acc, 0, 0, ProgressSilent, "")
	expectError(t, err, InvalidArgument, "num_epoch")
	_, err = NewModule(tr.sym, []string{"no_such_input"}, nil)
	expectError(t, err, InvalidArgument, "no_such_input")
}

// conformance: training.optimizer_initializer_metric
func TestOptimizerInitializerMetricKnownNumbers(t *testing.T) {
	checkLive(t)
	sgd := must(NewOptimizer("sgd", Params{"learning_rate": 0.1}))
	w := must(FromFloat32([]float32{1, 2}, 2))
	g := must(FromFloat32([]float32{0.5, -1}, 2))
	c := must(NewInitializer("constant", Params{"value": 3}, 1))
	p := must(NewNDArray(Float32, 2, 2))
	acc := must(NewMetric("acc", nil))
	label := must(FromFloat32([]float32{0, 1}, 2))
	pred := must(FromFloat32([]float32{0.9, 0.1, 0.8, 0.2}, 2, 2))
	defer closeAll(t, sgd, w, g, c, p, acc, label, pred)
	check(t, sgd.Update(0, "w", w, g)) // w - lr * g
	wv := must(w.ToFloat32())
	if math.Abs(float64(wv[0])-0.95) > 1e-6 || math.Abs(float64(wv[1])-2.1) > 1e-6 {
		t.Fatalf("sgd step %v", wv)
	}
	if n := must(sgd.NumUpdate()); n != 1 {
		t.Fatalf("num_update %d", n)
	}
	if lr := must(sgd.LearningRate("w")); math.Abs(float64(lr)-0.1) > 1e-7 {
		t.Fatalf("lr %v", lr)
	}
	check(t, c.Init("x_weight", p))
	floatsEqual(t, must(p.ToFloat32()), []float32{3, 3, 3, 3})
	check(t, c.Init("x_bias", p))
	floatsEqual(t, must(p.ToFloat32()), []float32{0, 0, 0, 0})
	check(t, acc.Update([]*NDArray{label}, []*NDArray{pred}))
	if v := must(acc.Get()); v["accuracy"] != 0.5 {
		t.Fatalf("accuracy %v", v)
	}
	label3 := must(FromFloat32([]float32{0, 1, 1}, 3))
	defer label3.Close()
	expectError(t, acc.Update([]*NDArray{label3}, []*NDArray{pred}), ShapeError)
}

// conformance: training.params_and_checkpoint
func TestParamsFileAndCheckpointRoundTrip(t *testing.T) {
	checkLive(t)
	dir := t.TempDir()
	tr := newTrained(t, 2)
	defer tr.Close()
	prefix := filepath.Join(dir, "mlp")
	check(t, tr.mod.SaveCheckpoint(prefix, 2))
	p := must(tr.mod.ArgParams())
	defer CloseAll(p)
	ck := must(LoadCheckpoint(prefix, 2))
	if len(ck.Args) != len(p) {
		t.Fatalf("%d args, want %d", len(ck.Args), len(p))
	}
	for k, v := range p {
		floatsEqual(t, must(ck.Args[k].ToFloat32()), must(v.ToFloat32()))
	}
	check(t, SaveCheckpoint(filepath.Join(dir, "again"), 0, ck.Symbol, ck.Args, ck.Aux))
	loaded := must(LoadParams(filepath.Join(dir, "again-0000.params")))
	if loaded["arg:fc1_weight"] == nil {
		t.Fatalf("loaded %v", loaded)
	}
	CloseAll(loaded)
	closeAll(t, ck, ck)
	_, err := LoadCheckpoint(prefix, 9)
	expectError(t, err, IOError)
}

// conformance: executor.concurrent_separate_executors
func TestConcurrentSeparateExecutors(t *testing.T) {
	checkLive(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(k float32) {
			defer wg.Done()
			f := abPlusC(t)
			defer f.Close()
			ex, err := SimpleBind(f, abShapes(2, 2), "write")
			if err != nil {
				errs <- err
				return
			}
			defer ex.Close()
			for i := 0; i < 50; i++ {
				if err := checkAbPlusC(ex, k+float32(i)); err != nil {
					errs <- err
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

// TestCrossLanguageCheckpoint reads the checkpoint the Java suite wrote into
// WEFT_XLANG_DIR (CTest fixture) and checks identical outputs on the same input.
// conformance: training.cross_language_checkpoint
func TestCrossLanguageCheckpoint(t *testing.T) {
	dir := os.Getenv("WEFT_XLANG_DIR")
	if dir == "" {
		t.Skip("WEFT_XLANG_DIR not set: run by ctest's go.checkpoint_from_java")
	}
	checkLive(t)
	expected := must(LoadParams(filepath.Join(dir, "expected.params")))
	defer CloseAll(expected)
	ck := must(LoadCheckpoint(filepath.Join(dir, "mlp"), 1))
	defer ck.Close()
	label := must(NewNDArray(Float32, 8))
	defer label.Close()
	it := must(NewDataIter(map[string]*NDArray{"data": expected["input"]}, map[string]*NDArray{"softmax_label": label}, 8, false, "pad", 0))
	defer it.Close()
	m := must(NewModule(ck.Symbol, []string{"data"}, []string{"softmax_label"}))
	defer m.Close()
	check(t, m.Bind(it, false))
	check(t, m.InitParams(nil, ck.Args, ck.Aux, false))
	if !must(it.Next()) {
		t.Fatal("no batch")
	}
	check(t, m.Forward(it, false))
	outs := must(m.Outputs())
	defer CloseAll(outs)
	got := must(outs["softmax_output"].ToFloat32())
	want := must(expected["output"].ToFloat32())
	if len(want) != 32 || len(got) != 32 {
		t.Fatalf("lengths %d %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] || math.IsNaN(float64(got[i])) { // bit-identical expected
			t.Fatalf("output[%d] = %v, Java wrote %v", i, got[i], want[i])
		}
	}
}

func closeTo(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values %v, want %v", what, len(got), got, want)
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("%s[%d] = %v, want %v (all: %v)", what, i, got[i], want[i], got)
		}
	}
}

// TestMlpForwardBackwardKnownNumbers: x (2,3) -> FullyConnected(2) -> relu ->
// FullyConnected(1), head gradient g = (1, -2). By hand: fc1 = x W1^T + b1 =
// [[-0.5, 2.25], [3, -1.25]], relu keeps (0, 2.25) and (3, 0); y = h W2^T +
// b2 = (-1.75, 6.5); dW2 = g^T h = (-6, 2.25), db2 = -1; dh = g W2 =
// [[2, -1], [-4, 2]] masked by relu to [[0, -1], [-4, 0]]; dW1 = dh^T x,
// db1 = column sums, dx = dh W1.
// conformance: executor.mlp_forward_backward_numbers
func TestMlpForwardBackwardKnownNumbers(t *testing.T) {
	checkLive(t)
	x := must(Variable("x"))
	fc1 := must(Apply("FullyConnected", "fc1", Params{"num_hidden": 2}, x))
	relu := must(Apply("Activation", "relu1", Params{"act_type": "relu"}, fc1))
	fc2 := must(Apply("FullyConnected", "fc2", Params{"num_hidden": 1}, relu))
	defer closeAll(t, x, fc1, relu, fc2)
	argNames := must(fc2.ListArguments())
	if fmt.Sprint(argNames) != "[x fc1_weight fc1_bias fc2_weight fc2_bias]" {
		t.Fatalf("arguments %v", argNames)
	}
	ex := must(SimpleBind(fc2, map[string][]int64{"x": {2, 3}}, "write"))
	defer ex.Close()
	args := must(ex.ArgArrays())
	if s := must(args["fc1_weight"].Shape()); fmt.Sprint(s) != "[2 3]" {
		t.Fatalf("fc1_weight shape %v", s)
	}
	if s := must(args["fc2_weight"].Shape()); fmt.Sprint(s) != "[1 2]" {
		t.Fatalf("fc2_weight shape %v", s)
	}
	for name, v := range map[string][]float32{
		"x":          {1, 2, -1, 0.5, -1, 2},
		"fc1_weight": {0.5, -0.25, 1, 1, 0.5, -0.5},
		"fc1_bias":   {0.5, -0.25},
		"fc2_weight": {2, -1},
		"fc2_bias":   {0.5},
	} {
		check(t, args[name].CopyFromFloat32(v))
	}
	CloseAll(args)
	check(t, ex.Forward(true))
	outs := must(ex.Outputs())
	y, err := outs[0].Array.ToFloat32()
	shape := must(outs[0].Array.Shape())
	CloseNamed(outs)
	check(t, err)
	if fmt.Sprint(shape) != "[2 1]" {
		t.Fatalf("output shape %v", shape)
	}
	closeTo(t, "y", y, []float32{-1.75, 6.5})
	head := must(FromFloat32([]float32{1, -2}, 2, 1))
	check(t, ex.Backward(head))
	head.Close()
	g := must(ex.GradArrays())
	defer CloseAll(g)
	for name, want := range map[string][]float32{
		"fc2_weight": {-6, 2.25},
		"fc2_bias":   {-1},
		"fc1_weight": {-2, 4, -8, -1, -2, 1},
		"fc1_bias":   {-4, -1},
		"x":          {-1, -0.5, 0.5, -2, 1, -4},
	} {
		closeTo(t, "d "+name, must(g[name].ToFloat32()), want)
	}
}
