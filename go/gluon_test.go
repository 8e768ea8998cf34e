package weft

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

// Gluon-style training (issue 43): autograd + Trainer against Module on
// Fashion-MNIST, FitWithCallbacks (progress and early stop), and cached ops
// (the same cases in JUnit and NUnit).

const fashionDir = "/usr/share/datasets/fashion-mnist"

var gluonParams = []string{"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"}

func sgdParams() Params { return Params{"learning_rate": 0.1, "momentum": 0.9, "wd": 0.001} }

func maxDiff(t *testing.T, a, b *NDArray) float64 {
	x, y := must(a.ToFloat32()), must(b.ToFloat32())
	d := 0.0
	for i := range x {
		d = math.Max(d, math.Abs(float64(x[i]-y[i])))
	}
	return d
}

// paramCopies copies the module's parameters in gluonParams order.
func paramCopies(t *testing.T, mod *Module) []*NDArray {
	ps := must(mod.ArgParams())
	defer func() {
		for _, a := range ps {
			a.Close()
		}
	}()
	out := make([]*NDArray, len(gluonParams))
	for i, n := range gluonParams {
		out[i] = must(Call("_copy", nil, ps[n]))
	}
	return out
}

// autogradBatch records the MLP on rows [b*batch, (b+1)*batch) and back-propagates.
func autogradBatch(t *testing.T, images, labels *NDArray, p []*NDArray, b, batch int64) {
	x := must(images.Slice(b*batch, (b+1)*batch))
	y := must(labels.Slice(b*batch, (b+1)*batch))
	defer closeAll(t, x, y)
	var loss *NDArray
	check(t, Record(true, func() error {
		h, err := Call("FullyConnected", Params{"num_hidden": 16}, x, p[0], p[1])
		if err != nil {
			return err
		}
		defer h.Close()
		r, err := Call("Activation", Params{"act_type": "relu"}, h)
		if err != nil {
			return err
		}
		defer r.Close()
		o, err := Call("FullyConnected", Params{"num_hidden": 10}, r, p[2], p[3])
		if err != nil {
			return err
		}
		defer o.Close()
		loss, err = Call("SoftmaxOutput", nil, o, y)
		return err
	}))
	check(t, loss.Backward())
	closeAll(t, loss)
}

// conformance: training.autograd_trainer_matches_module
func TestAutogradTrainerMatchesModule(t *testing.T) {
	checkLive(t)
	if _, err := os.Stat(fashionDir + "/t10k-labels-idx1-ubyte.gz"); err != nil {
		t.Skip("Fashion-MNIST not installed")
	}
	const batch, steps = 64, 8
	allX, allY := must2(LoadMNISTSet(fashionDir, "t10k"))
	images, labels := must(allX.Slice(0, batch*steps)), must(allY.Slice(0, batch*steps))
	closeAll(t, allX, allY)
	sym := must(SymbolFromJSON(strings.Replace(mlpJSON, `"num_hidden": "4"`, `"num_hidden": "10"`, 1)))
	iter := must(NewDataIter(map[string]*NDArray{"data": images}, map[string]*NDArray{"softmax_label": labels}, batch, false, "pad", 0))
	mod := must(NewModule(sym, []string{"data"}, []string{"softmax_label"}))
	init := must(NewInitializer("xavier", nil, 7))
	opt := must(NewOptimizer("sgd", sgdParams()))
	acc := must(NewMetric("acc", nil))
	defer closeAll(t, acc, opt, init, mod, iter, sym, images, labels)
	check(t, mod.Bind(iter, true))
	check(t, mod.InitParams(init, nil, nil, false))
	check(t, mod.InitOptimizer(opt))
	start, p := paramCopies(t, mod), paramCopies(t, mod)
	defer func() {
		for i := range p {
			closeAll(t, start[i], p[i])
		}
	}()
	batches := 0
	_, err := mod.FitWithCallbacks(iter, nil, acc, 0, 1, ProgressSilent, "", FitCallbacks{
		BatchEnd: func(BatchEnd) bool { batches++; return true },
	})
	check(t, err)
	if batches != steps {
		t.Fatalf("%d batches, want %d", batches, steps)
	}
	for _, a := range p {
		check(t, a.AttachGrad())
	}
	opt2 := must(NewOptimizer("sgd", sgdParams()))
	tr := must(NewTrainer(gluonParams, p, opt2))
	closeAll(t, opt2) // the trainer keeps it
	for b := int64(0); b < steps; b++ {
		autogradBatch(t, images, labels, p, b, batch)
		check(t, tr.Step(batch))
	}
	closeAll(t, tr)
	trainedParams := must(mod.ArgParams())
	defer func() {
		for _, a := range trainedParams {
			a.Close()
		}
	}()
	for i, n := range gluonParams {
		if d := maxDiff(t, trainedParams[n], start[i]); d < 1e-3 {
			t.Errorf("%s barely trained (moved %g)", n, d)
		}
		if d := maxDiff(t, trainedParams[n], p[i]); d > 1e-5 {
			t.Errorf("%s: autograd+Trainer differs from Module by %g", n, d)
		}
	}
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// conformance: training.fit_listener_progress_and_stop
func TestFitCallbacksProgressAndStop(t *testing.T) {
	checkLive(t)
	tr := newTrained(t, 0)
	acc := must(NewMetric("acc", nil))
	defer closeAll(t, acc, tr)
	var log []string
	epochs, err := tr.mod.FitWithCallbacks(tr.iter, tr.iter, acc, 0, 3, ProgressSilent, "", FitCallbacks{
		BatchEnd: func(b BatchEnd) bool {
			if b.NumBatches != 13 { // 200 samples, batch 16, last padded
				t.Errorf("NumBatches %d", b.NumBatches)
			}
			if _, ok := b.Metric["accuracy"]; !ok {
				t.Errorf("metric %v", b.Metric)
			}
			log = append(log, fmt.Sprintf("%d:%d", b.Epoch, b.Batch))
			return !(b.Epoch == 1 && b.Batch == 3)
		},
		EpochEnd: func(e EpochEnd) bool { log = append(log, fmt.Sprintf("end%d", e.Epoch)); return true },
	})
	check(t, err)
	if len(epochs) != 2 || len(log) != 13+1+3+1 || log[13] != "end0" || strings.Join(log[len(log)-2:], ",") != "1:3,end1" {
		t.Fatalf("epochs %d, log %v", len(epochs), log)
	}
	if epochs[0].Stopped || epochs[0].Samples != 200 || epochs[0].ValidationMetric["accuracy"] <= 0.5 {
		t.Fatalf("epoch 0: %+v", epochs[0])
	}
	if !epochs[1].Stopped || epochs[1].Batches != 3 || len(epochs[1].ValidationMetric) != 0 {
		t.Fatalf("epoch 1: %+v", epochs[1])
	}
	// An epoch-end callback that returns false skips the later epochs.
	one, err := tr.mod.FitWithCallbacks(tr.iter, nil, acc, 0, 3, ProgressSilent, "", FitCallbacks{
		EpochEnd: func(EpochEnd) bool { return false },
	})
	check(t, err)
	if len(one) != 1 || one[0].Stopped {
		t.Fatalf("epoch-end stop: %+v", one)
	}
	_, err = tr.mod.FitWithCallbacks(tr.iter, nil, acc, 2, 1, ProgressSilent, "", FitCallbacks{})
	expectError(t, err, InvalidArgument, "num_epoch")
}

// conformance: cached_op.invoke_and_record
func TestCachedOpInvokeAndRecord(t *testing.T) {
	checkLive(t)
	f := abPlusC(t)
	op := must(NewCachedOp(f, Params{"static_alloc": "true"}))
	a := must(FromFloat32([]float32{1, 2, 3}, 3))
	b := must(FromFloat32([]float32{4, 5, 6}, 3))
	c := must(FromFloat32([]float32{-1, 0, 1}, 3))
	defer closeAll(t, a, b, c, op, f)
	if in := must(op.Inputs()); strings.Join(in, ",") != "a,b,c" {
		t.Fatalf("inputs %v", in)
	}
	outs := must(op.Invoke(a, b, c))
	if len(outs) != 1 {
		t.Fatalf("%d outputs", len(outs))
	}
	floatsEqual(t, values(t, outs[0]), []float32{3, 10, 19})
	check(t, a.AttachGrad())
	var y []*NDArray
	check(t, Record(true, func() (err error) { y, err = op.Invoke(a, b, c); return }))
	check(t, y[0].Backward())
	closeAll(t, y[0])
	floatsEqual(t, gradValues(t, a), []float32{4, 5, 6}) // d(ab+c)/da = b
	_, err := op.Invoke(a, b)
	expectError(t, err, InvalidArgument)
}

// fcTanhSum is x -> FullyConnected(2) -> tanh -> sum: three operators, so a
// recorded call is one node.
func fcTanhSum(t *testing.T) *Symbol {
	x := must(Variable("x"))
	fc := must(Apply("FullyConnected", "fc", Params{"num_hidden": 2}, x))
	act := must(Apply("Activation", "act", Params{"act_type": "tanh"}, fc))
	out := must(Apply("sum", "loss", nil, act))
	closeAll(t, x, fc, act)
	return out
}

func within(t *testing.T, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(float64(got[i])-want[i]) > tol {
			t.Fatalf("element %d: got %v, want %v", i, got, want)
		}
	}
}

// conformance: cached_op.symbol_block_imports
func TestSymbolBlockImports(t *testing.T) {
	checkLive(t)
	dir := t.TempDir()
	symFile, paramFile, cut := dir+"/net-symbol.json", dir+"/net-0000.params", dir+"/cut.params"
	net := fcTanhSum(t)
	w := must(FromFloat32([]float32{0.1, 0.2, 0.3, -0.1, 0, 0.2}, 2, 3))
	b := must(FromFloat32([]float32{0.5, -0.5}, 2))
	check(t, net.Save(symFile))
	// Both spellings: a Module checkpoint's and collect_params'.
	check(t, SaveParams(paramFile, map[string]*NDArray{"arg:fc_weight": w, "fc_bias": b}))
	check(t, SaveParams(cut, map[string]*NDArray{"fc_weight": w}))
	closeAll(t, net, w, b)

	tanh := math.Tanh(1.9) // z = W x + b = (1.9, 0) for x = (1, 2, 3)
	block := must(ImportSymbolBlock(symFile, []string{"x"}, paramFile))
	x := must(FromFloat32([]float32{1, 2, 3}, 1, 3))
	defer closeAll(t, block, x)
	if len(block.Params()) != 2 || block.Params()["fc_weight"] == nil || block.Params()["fc_bias"] == nil {
		t.Fatalf("params %v", block.Params())
	}
	out := must(block.Forward(x))
	within(t, values(t, out[0]), []float64{tanh}, 1e-5)
	for _, p := range block.Params() {
		check(t, p.AttachGrad())
	}
	var y []*NDArray
	check(t, Record(true, func() (err error) { y, err = block.Forward(x); return }))
	check(t, y[0].Backward())
	closeAll(t, y[0])
	s := 1 - tanh*tanh
	within(t, gradValues(t, block.Params()["fc_weight"]), []float64{s, 2 * s, 3 * s, 1, 2, 3}, 1e-5)
	within(t, gradValues(t, block.Params()["fc_bias"]), []float64{s, 1}, 1e-5)
	_, err := block.Forward()
	expectError(t, err, InvalidArgument)

	_, err = ImportSymbolBlock(symFile, []string{"x"}, cut)
	expectError(t, err, NotFound)
	if !strings.Contains(err.Error(), "fc_bias") {
		t.Fatalf("error %v does not name fc_bias", err)
	}
	_, err = ImportSymbolBlock(symFile, []string{"data"}, paramFile)
	expectError(t, err, InvalidArgument)
	if !strings.Contains(err.Error(), "'data'") {
		t.Fatalf("error %v does not name data", err)
	}
}

// conformance: training.optimizer_states_resume
func TestOptimizerStatesResume(t *testing.T) {
	checkLive(t)
	file := t.TempDir() + "/opt.states"
	cfg := Params{"learning_rate": 0.01, "centered": true, "wd": 0.1}
	a := must(NewOptimizer("rmsprop", cfg))
	b := must(NewOptimizer("rmsprop", cfg))
	adam := must(NewOptimizer("adam", nil))
	w := must(FromFloat32([]float32{1, -2, 3}, 3))
	g := must(FromFloat32([]float32{0.5, 0.25, -1}, 3))
	defer closeAll(t, a, b, adam, w, g)
	for i := 0; i < 3; i++ {
		check(t, a.Update(0, "w_weight", w, g))
	}
	check(t, a.SaveStates(file))
	w2 := must(Call("_copy", nil, w))
	defer closeAll(t, w2)
	for i := 0; i < 2; i++ {
		check(t, a.Update(0, "w_weight", w, g))
	}
	check(t, b.LoadStates(file))
	if n := must(b.NumUpdate()); n != 3 {
		t.Fatalf("num_update after load %d", n)
	}
	for i := 0; i < 2; i++ {
		check(t, b.Update(0, "w_weight", w2, g))
	}
	floatsEqual(t, must(w2.ToFloat32()), must(w.ToFloat32())) // bit for bit
	expectError(t, adam.LoadStates(file), InvalidArgument, "rmsprop")
}

// conformance: training.schedule_warmup_and_fixed_params
func TestScheduleWarmupAndFixedParams(t *testing.T) {
	checkLive(t)
	// Linear warm-up from 0.02 over 2 updates, then cosine from 0.1 to 0 at update 10.
	opt := must(NewOptimizer("sgd", Params{"learning_rate": 0.1}))
	w := must(FromFloat32([]float32{1}, 1))
	g := must(FromFloat32([]float32{1}, 1))
	defer closeAll(t, opt, w, g)
	check(t, opt.SetLrSchedulerParams("cosine", Params{"max_update": 10, "warmup_steps": 2,
		"warmup_begin_lr": 0.02, "warmup_mode": "linear"}))
	want := []float64{0.02, 0.06, 0.1, 0.1 * (1 + math.Cos(math.Pi/8)) / 2, 0.1 * (1 + math.Cos(math.Pi*2/8)) / 2}
	for n, lr := range want {
		if got := must(opt.LearningRate("w")); math.Abs(float64(got)-lr) > 1e-6 {
			t.Fatalf("after %d updates lr %v, want %v", n, got, lr)
		}
		check(t, opt.Update(0, "w", w, g))
	}
	expectError(t, opt.SetLrSchedulerParams("cosine", Params{"max_update": 1, "warmup_steps": 2}), InvalidArgument)

	// fc1_weight fixed: bitwise unchanged by Fit while fc2_weight trains.
	xs, ys := blobs(nBlobs, 7)
	sym := must(SymbolFromJSON(mlpJSON))
	x := must(FromFloat32(xs, nBlobs, 2))
	y := must(FromFloat32(ys, nBlobs))
	iter := must(NewDataIter(map[string]*NDArray{"data": x}, map[string]*NDArray{"softmax_label": y}, 16, false, "pad", 0))
	mod := must(NewModule(sym, []string{"data"}, []string{"softmax_label"}))
	init := must(NewInitializer("xavier", nil, 3))
	sgd := must(NewOptimizer("sgd", Params{"learning_rate": 0.1}))
	acc := must(NewMetric("acc", nil))
	defer closeAll(t, acc, sgd, init, mod, iter, x, y, sym)
	expectError(t, mod.SetFixedParams([]string{"no_such_weight"}), InvalidArgument, "no_such_weight")
	check(t, mod.SetFixedParams([]string{"fc1_weight"}))
	check(t, mod.Bind(iter, true))
	check(t, mod.InitParams(init, nil, nil, false))
	check(t, mod.InitOptimizer(sgd))
	read := func(name string) []float32 {
		ps := must(mod.ArgParams())
		defer func() {
			for _, a := range ps {
				a.Close()
			}
		}()
		return must(ps[name].ToFloat32())
	}
	w1, w2 := read("fc1_weight"), read("fc2_weight")
	_, err := mod.Fit(iter, nil, acc, 0, 1, ProgressSilent, "")
	check(t, err)
	floatsEqual(t, read("fc1_weight"), w1)
	moved := false
	for i, v := range read("fc2_weight") {
		moved = moved || math.Abs(float64(v-w2[i])) > 1e-4
	}
	if !moved {
		t.Fatalf("fc2_weight did not train")
	}
}
