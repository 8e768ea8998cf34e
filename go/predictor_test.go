package weft

// Predictor: the cross-language list (Java PredictorTest, C# PredictorTests):
// concurrent callers equal one caller, weights held once and executors
// bounded, interleaved batch sizes, memory equals files, errors, close.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// lenet is the demo's LeNet (examples/models/lenet-symbol.json) composed
// here, with xavier weights saved as a checkpoint in a temporary directory.
type lenet struct {
	json                   string
	symbolPath, paramsPath string
}

func newLenet(t *testing.T) *lenet {
	t.Helper()
	var owned []interface{ Close() error }
	defer func() { closeAll(t, owned...) }()
	keep := func(s *Symbol, err error) *Symbol {
		t.Helper()
		check(t, err)
		owned = append(owned, s)
		return s
	}
	x := keep(Variable("data"))
	x = keep(Apply("Convolution", "conv1", Params{"kernel": "(5, 5)", "num_filter": 20}, x))
	x = keep(Apply("Activation", "relu1", Params{"act_type": "relu"}, x))
	x = keep(Apply("Pooling", "pool1", Params{"kernel": "(2, 2)", "pool_type": "max", "stride": "(2, 2)"}, x))
	x = keep(Apply("Convolution", "conv2", Params{"kernel": "(5, 5)", "num_filter": 50}, x))
	x = keep(Apply("Activation", "relu2", Params{"act_type": "relu"}, x))
	x = keep(Apply("Pooling", "pool2", Params{"kernel": "(2, 2)", "pool_type": "max", "stride": "(2, 2)"}, x))
	x = keep(Apply("Flatten", "flatten", nil, x))
	x = keep(Apply("FullyConnected", "fc1", Params{"num_hidden": 500}, x))
	x = keep(Apply("Activation", "relu3", Params{"act_type": "relu"}, x))
	x = keep(Apply("FullyConnected", "fc2", Params{"num_hidden": 10}, x))
	net := keep(Apply("SoftmaxOutput", "softmax", nil, x))

	ex := must(SimpleBind(net, map[string][]int64{"data": {1, 1, 28, 28}}, "null"))
	owned = append(owned, ex)
	args := must(ex.ArgArrays())
	defer CloseAll(args)
	init := must(NewInitializer("xavier", nil, 11))
	owned = append(owned, init)
	params := map[string]*NDArray{}
	for name, a := range args {
		if name == "data" || name == "softmax_label" {
			continue
		}
		check(t, init.Init(name, a))
		params[name] = a
	}
	// Non-zero biases, so every parameter matters.
	b := make([]float32, 10)
	for i := range b {
		b[i] = 0.05 * float32(i-5)
	}
	check(t, params["fc2_bias"].CopyFromFloat32(b))
	prefix := filepath.Join(t.TempDir(), "lenet")
	check(t, SaveCheckpoint(prefix, 1, net, params, nil))
	return &lenet{json: must(net.JSON()), symbolPath: prefix + "-symbol.json", paramsPath: prefix + "-0001.params"}
}

func lenetConfig(maxExecutors string) PredictorConfig {
	cfg := PredictorConfig{Inputs: []PredictorInput{{"data", []int64{1, 1, 28, 28}}}}
	if maxExecutors != "" {
		cfg.Options = map[string]string{"max_executors": maxExecutors}
	}
	return cfg
}

// images returns n pseudo-random 28x28 images (a fixed LCG).
func images(n int, seed uint32) []float32 {
	out := make([]float32, n*784)
	for i := range out {
		seed = seed*1664525 + 1013904223
		out[i] = float32(seed>>8) / float32(1<<24)
	}
	return out
}

func predictOne(t *testing.T, p *Predictor, img []float32) []float32 {
	t.Helper()
	out := make([]float32, 10)
	check(t, p.Predict(context.Background(), img, out))
	return out
}

// closeEnough compares batched with single-sample results (a batch may sum
// in another order).
func closeEnough(got, want []float32) bool {
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5*(1+math.Abs(float64(want[i]))) {
			return false
		}
	}
	return len(got) == len(want)
}

// TestPredictorDescribesItsModel: names, an output shape for a batch,
// LeNet's weight bytes, nothing in use.
// conformance: predictor.describes_its_model
func TestPredictorDescribesItsModel(t *testing.T) {
	checkLive(t)
	m := newLenet(t)
	p := must(LoadPredictorFiles(m.symbolPath, m.paramsPath, lenetConfig("2")))
	defer closeAll(t, p)
	if in, out := must(p.InputNames()), must(p.OutputNames()); fmt.Sprint(in) != "[data]" ||
		fmt.Sprint(out) != "[softmax_output]" {
		t.Errorf("inputs %v outputs %v", in, out)
	}
	if s := must(p.OutputShape(0, []int64{3, 1, 28, 28})); fmt.Sprint(s) != "[3 10]" {
		t.Errorf("OutputShape for 3 images = %v", s)
	}
	// conv1, conv2, fc1, fc2: weights and biases, float32.
	const weights = 4 * (20*25 + 20 + 50*20*25 + 50 + 500*800 + 500 + 10*500 + 10)
	if st := must(p.Stats()); st.WeightBytes != weights || st.InUse != 0 {
		t.Errorf("stats %+v: expected %d weight bytes, none in use", st, weights)
	}
}

// conformance: predictor.threads_equal_one_thread
func TestPredictorConcurrentCallersEqualOneCaller(t *testing.T) {
	checkLive(t)
	m := newLenet(t)
	p := must(LoadPredictorFiles(m.symbolPath, m.paramsPath, lenetConfig("2")))
	defer closeAll(t, p)
	const nImg = 16
	imgs := images(nImg, 3)
	want := make([][]float32, nImg)
	for i := range want {
		want[i] = predictOne(t, p, imgs[i*784:(i+1)*784])
		if i > 0 && floatsSame(want[i], want[0]) {
			t.Fatalf("image %d gives the same output as image 0: the test cannot tell images apart", i)
		}
	}
	before := must(p.Stats())
	const goroutines = 8
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			out := make([]float32, 10)
			for r := 0; r < 25; r++ {
				i := (g*7 + r) % nImg
				if err := p.Predict(context.Background(), imgs[i*784:(i+1)*784], out); err != nil {
					errs <- err
					return
				}
				if !floatsSame(out, want[i]) {
					errs <- errorf(Internal, "goroutine %d image %d: %v, one caller gave %v", g, i, out, want[i])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	after := must(p.Stats())
	if after.WeightBytes != before.WeightBytes || after.WeightBytes < 4*(20*25+50*20*25+500*800+5000) {
		t.Errorf("weight bytes %d after, %d before (expected unchanged, at least LeNet's)", after.WeightBytes, before.WeightBytes)
	}
	if after.ShapeSets != 1 || after.Executors < 1 || after.Executors > 2 || after.InUse != 0 {
		t.Errorf("stats %+v: expected 1 shape set, 1..2 executors (max_executors), none in use", after)
	}
}

// Dynamic batching ("max_batch"): goroutines' single images gathered into
// batches give the unbatched results, with both request queues.
// conformance: predictor.dynamic_batching_equals_single
func TestPredictorDynamicBatchingEqualsSingleCalls(t *testing.T) {
	checkLive(t)
	m := newLenet(t)
	plain := must(LoadPredictorFiles(m.symbolPath, m.paramsPath, lenetConfig("")))
	const nImg = 8
	imgs := images(nImg, 5)
	want := make([][]float32, nImg)
	for i := range want {
		want[i] = predictOne(t, plain, imgs[i*784:(i+1)*784])
	}
	closeAll(t, plain)
	for _, queue := range []string{"mutex", "lockfree"} {
		cfg := lenetConfig("2")
		cfg.Options["max_batch"] = "8"
		cfg.Options["batch_delay_us"] = "5000"
		cfg.Options["batch_queue"] = queue
		p := must(LoadPredictorFiles(m.symbolPath, m.paramsPath, cfg))
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				out := make([]float32, 10)
				for r := 0; r < 10; r++ {
					i := (g + r) % nImg
					if err := p.Predict(context.Background(), imgs[i*784:(i+1)*784], out); err != nil {
						errs <- err
						return
					}
					if !closeEnough(out, want[i]) {
						errs <- errorf(Internal, "%s queue, goroutine %d image %d: %v, unbatched %v", queue, g, i, out, want[i])
						return
					}
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		closeAll(t, p)
	}
	cfg := lenetConfig("")
	cfg.Options = map[string]string{"max_batch": "4", "batch_queue": "ring"}
	_, err := LoadPredictorFiles(m.symbolPath, m.paramsPath, cfg)
	expectError(t, err, InvalidArgument, "batch_queue", "'ring'")
}

func floatsSame(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// conformance: predictor.interleaved_batch_sizes
func TestPredictorInterleavedBatchSizes(t *testing.T) {
	checkLive(t)
	m := newLenet(t)
	p := must(LoadPredictorFiles(m.symbolPath, m.paramsPath, lenetConfig("2")))
	defer closeAll(t, p)
	imgs := images(5, 9)
	single := make([][]float32, 5)
	for i := range single {
		single[i] = predictOne(t, p, imgs[i*784:(i+1)*784])
	}
	if s := must(p.BatchShape(3 * 784)); len(s) != 4 || s[0] != 3 || s[1] != 1 || s[2] != 28 || s[3] != 28 {
		t.Fatalf("BatchShape(3 images) = %v", s)
	}
	if s := must(p.OutputShape(0, []int64{3, 1, 28, 28})); len(s) != 2 || s[0] != 3 || s[1] != 10 {
		t.Fatalf("OutputShape for 3 images = %v", s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for r := 0; r < 10; r++ {
				n := 1 + (g+r)%5 // batch sizes 1..5 interleaved across goroutines
				out := make([]float32, 10*n)
				if err := p.Predict(context.Background(), imgs[:n*784], out); err != nil {
					errs <- err
					return
				}
				for i := 0; i < n; i++ {
					if !closeEnough(out[i*10:(i+1)*10], single[i]) {
						errs <- errorf(Internal, "batch of %d, sample %d: %v, single %v", n, i, out[i*10:(i+1)*10], single[i])
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := must(p.Stats())
	if st.ShapeSets != 5 || st.Executors > 2*st.ShapeSets {
		t.Errorf("stats %+v: expected 5 shape sets, at most 2 executors each", st)
	}
}

// conformance: predictor.memory_stream_equal_files predictor.internal_output_by_name
func TestPredictorFromMemoryEqualsFromFiles(t *testing.T) {
	checkLive(t)
	m := newLenet(t)
	params := must(os.ReadFile(m.paramsPath))
	symText := must(os.ReadFile(m.symbolPath))
	files := must(LoadPredictorFiles(m.symbolPath, m.paramsPath, lenetConfig("")))
	mem := must(NewPredictor(m.json, params, lenetConfig("")))
	rd := must(LoadPredictor(bytes.NewReader(symText), bytes.NewReader(params), lenetConfig("")))
	for i := range params {
		params[i] = 0 // the predictor holds its own copy
	}
	defer closeAll(t, files, mem, rd)
	imgs := images(3, 5)
	want := make([]float32, 30)
	check(t, files.Predict(context.Background(), imgs, want))
	for _, p := range []*Predictor{mem, rd} {
		got := make([]float32, 30)
		check(t, p.Predict(context.Background(), imgs, got))
		if !floatsSame(got, want) {
			t.Errorf("from memory %v, from files %v", got, want)
		}
		// PredictTensors (packed buffers) gives the same.
		check(t, p.PredictTensors(context.Background(), []Tensor{{imgs, []int64{3, 1, 28, 28}}}, [][]float32{got}))
		if !floatsSame(got, want) {
			t.Errorf("PredictTensors %v, Predict %v", got, want)
		}
	}
	if in, out := must(mem.InputNames()), must(mem.OutputNames()); len(in) != 1 || in[0] != "data" ||
		len(out) != 1 || out[0] != "softmax_output" {
		t.Errorf("inputs %v outputs %v", in, out)
	}
	// An internal output by node name.
	cfg := lenetConfig("")
	cfg.Outputs = []string{"fc1"}
	fc1 := must(NewPredictor(m.json, must(os.ReadFile(m.paramsPath)), cfg))
	defer closeAll(t, fc1)
	h := make([]float32, 500)
	check(t, fc1.Predict(context.Background(), imgs[:784], h))
	if o := must(fc1.OutputNames()); len(o) != 1 || o[0] != "fc1_output" {
		t.Errorf("outputs %v", o)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// conformance: predictor.bad_inputs_give_errors predictor.bad_models_and_options predictor.cancelled_before_start
func TestPredictorErrors(t *testing.T) {
	checkLive(t)
	m := newLenet(t)
	params := must(os.ReadFile(m.paramsPath))
	p := must(NewPredictor(m.json, params, lenetConfig("2")))
	defer closeAll(t, p)
	ctx := context.Background()
	img := images(1, 1)
	out := make([]float32, 10)

	// Input sizes: not a whole number of images (Go), a shape the model
	// cannot take and a wrong output size (library).
	expectError(t, p.Predict(ctx, img[:700], out), InvalidArgument, "700", "784")
	expectError(t, p.Predict(ctx, nil, out), InvalidArgument, "0 floats")
	expectError(t, p.PredictShape(ctx, images(1, 1)[:24*24], []int64{1, 1, 24, 24}, out), ShapeError, "fc1", "(500,800)")
	expectError(t, p.PredictShape(ctx, img, []int64{1, 784}, out), ShapeError, "conv1", "'data'", "(1,784)")
	expectError(t, p.Predict(ctx, img, out[:9]), InvalidArgument, "40", "36")
	expectError(t, p.PredictTensors(ctx, []Tensor{{img, []int64{1, 1, 28, 28}}, {img, []int64{1, 1, 28, 28}}},
		[][]float32{out}), InvalidArgument, "2")
	_, err := p.OutputShape(3, []int64{1, 1, 28, 28})
	expectError(t, err, InvalidArgument, "3")
	check(t, p.Predict(ctx, img, out)) // still usable

	// A cancelled context: no work starts (a new shape binds nothing).
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	before := must(p.Stats())
	if err := p.Predict(cctx, images(7, 1), make([]float32, 70)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if err := p.PredictTensors(cctx, []Tensor{{images(7, 1), []int64{7, 1, 28, 28}}}, [][]float32{make([]float32, 70)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if after := must(p.Stats()); after.ShapeSets != before.ShapeSets {
		t.Errorf("a cancelled call bound a shape set: %+v -> %+v", before, after)
	}

	// Creation errors.
	cfg := lenetConfig("")
	cfg.Inputs[0].Name = "pixels"
	_, err = NewPredictor(m.json, params, cfg)
	expectError(t, err, InvalidArgument, "pixels")
	_, err = NewPredictor(m.json, params[:len(params)/2], lenetConfig(""))
	if err == nil {
		t.Error("truncated params accepted")
	}
	_, err = NewPredictor(m.json, params, PredictorConfig{Inputs: cfg.Inputs[:0]})
	if err == nil {
		t.Error("a predictor without inputs accepted")
	}
	cfg = lenetConfig("")
	cfg.Options = map[string]string{"max_executor": "2"}
	_, err = NewPredictor(m.json, params, cfg)
	expectError(t, err, InvalidArgument, "max_executor")
	cfg.Options = map[string]string{"max_executors": "-1"}
	_, err = NewPredictor(m.json, params, cfg)
	expectError(t, err, InvalidArgument, "max_executors", "-1")
	cfg = lenetConfig("")
	cfg.Outputs = []string{"fc9"}
	_, err = NewPredictor(m.json, params, cfg)
	expectError(t, err, InvalidArgument, "fc9")
	_, err = LoadPredictorFiles(m.symbolPath+".missing", m.paramsPath, lenetConfig(""))
	if err == nil {
		t.Error("missing symbol file accepted")
	}
	_, err = LoadPredictor(failingReader{}, bytes.NewReader(params), lenetConfig(""))
	if err == nil || err.Error() != "disk on fire" {
		t.Errorf("reader error %v", err)
	}
}

// conformance: predictor.closed_gives_invalid_handle predictor.close_while_predicting
func TestPredictorClosedGivesInvalidHandle(t *testing.T) {
	checkLive(t)
	m := newLenet(t)
	p := must(LoadPredictorFiles(m.symbolPath, m.paramsPath, lenetConfig("1")))
	imgs := images(4, 2)
	// Close while goroutines predict (max_executors 1, so most wait for the
	// executor): each goroutine predicts (right outputs) until its first
	// error, which must be InvalidArgument "closed" (it was waiting when
	// Close came) or InvalidHandle (it started after Close); none crashes.
	want := make([]float32, 40)
	check(t, p.Predict(context.Background(), imgs, want))
	const goroutines = 6
	var wg, warm sync.WaitGroup
	ends := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		warm.Add(1)
		go func() {
			defer wg.Done()
			out := make([]float32, 40)
			for n := 0; ; n++ {
				err := p.Predict(context.Background(), imgs, out)
				if n == 0 {
					warm.Done()
				}
				if err == nil && !floatsSame(out, want) {
					err = errorf(Internal, "wrong output %v", out)
				}
				if err != nil {
					ends <- err
					return
				}
			}
		}()
	}
	warm.Wait() // every goroutine has made a call: Close comes while they run
	check(t, p.Close())
	wg.Wait()
	close(ends)
	for err := range ends {
		var we *Error
		if !errors.Is(err, InvalidHandle) &&
			!(errors.As(err, &we) && we.Code == InvalidArgument && strings.Contains(we.Message, "closed")) {
			t.Errorf("during close: %v", err)
		}
	}
	check(t, p.Close()) // idempotent
	expectError(t, p.Predict(context.Background(), imgs, want), InvalidHandle, "Predictor")
	_, err := p.Stats()
	expectError(t, err, InvalidHandle)
	_, err = p.InputNames()
	expectError(t, err, InvalidHandle)
}
