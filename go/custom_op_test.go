package weft

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Custom operators written in Go (the cases of the C, Java and C# suites):
// softplus with a parameter beta against its closed form and a numeric
// gradient, trained inside an MLP; a zoo-style JSON with a Custom loss; a
// panicking callback; four executor threads; unregistering while in use.

var spX = []float32{-3, -1, -0.25, 0, 0.5, 2}
var goBackwardCalls int64

const spJSON = `{"nodes": [{"op": "null", "name": "x", "inputs": []},
{"op": "Custom", "name": "%s", "attrs": {"beta": "%s", "op_type": "%s"}, "inputs": [[0, 0, 0]]}],
"arg_nodes": [0], "heads": [[1, 0, 0]]}`

func softplus(beta, x float64) float64 {
	z := beta * x
	if z > 0 {
		return (z + math.Log1p(math.Exp(-z))) / beta
	}
	return math.Log1p(math.Exp(z)) / beta
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func store(req GradReq, dst []float32, i int, v float64) {
	switch req {
	case GradAdd:
		dst[i] += float32(v)
	case GradWrite:
		dst[i] = float32(v)
	}
}

type softplusOp struct {
	beta float64
	fail bool
}

func (o softplusOp) Forward(isTrain bool, req []GradReq, in, out, aux []*NDArray) error {
	if o.fail {
		panic("boom: this forward always fails")
	}
	x, y := must(in[0].Float32Data()), must(out[0].Float32Data())
	for i := range x {
		store(req[0], y, i, softplus(o.beta, float64(x[i])))
	}
	return nil
}

func (o softplusOp) Backward(req []GradReq, outGrad, in, out, inGrad, aux []*NDArray) error {
	atomic.AddInt64(&goBackwardCalls, 1)
	if out[0] != nil {
		return errors.New("out_data was not declared")
	}
	dy, x, dx := must(outGrad[0].Float32Data()), must(in[0].Float32Data()), must(inGrad[0].Float32Data())
	for i := range x {
		store(req[0], dx, i, float64(dy[i])*sigmoid(o.beta*float64(x[i])))
	}
	return nil
}

// softplusProp: softplus_beta; backward reads out_grad and in_data.
type softplusProp struct {
	CustomOpDefaults
	op softplusOp
}

func newSoftplus(fail bool) CustomOpCreator {
	return func(attrs map[string]string) (CustomOpProp, error) {
		beta := 1.0
		if s, ok := attrs["beta"]; ok {
			beta, _ = strconv.ParseFloat(s, 64)
		}
		if !(beta > 0) {
			return nil, errors.New("softplus: beta must be positive")
		}
		return &softplusProp{op: softplusOp{beta, fail}}, nil
	}
}

func (p *softplusProp) InferShape(in [][]int64) ([][]int64, error) { return [][]int64{in[0]}, nil }

func (p *softplusProp) DeclareBackwardDependency(outGrad, inData, outData []int) []int {
	return []int{outGrad[0], inData[0]}
}

func (p *softplusProp) CreateOperator(ctx Context, shapes [][]int64, types []DType) (CustomOp, error) {
	if types[0] != Float32 || ctx != CPU(0) {
		return nil, fmt.Errorf("softplus: expected float32 on cpu(0), got %v on %v", types[0], ctx)
	}
	return p.op, nil
}

// softmaxProp: my_softmax, a softmax cross-entropy loss (data, label).
type softmaxProp struct{ CustomOpDefaults }
type softmaxOp struct{ k int }

func (softmaxProp) ListArguments() []string { return []string{"data", "label"} }
func (softmaxProp) InferShape(in [][]int64) ([][]int64, error) {
	return [][]int64{in[0]}, nil
}
func (softmaxProp) CreateOperator(ctx Context, shapes [][]int64, types []DType) (CustomOp, error) {
	return softmaxOp{int(shapes[0][1])}, nil
}

func (o softmaxOp) Forward(isTrain bool, req []GradReq, in, out, aux []*NDArray) error {
	x, y, k := must(in[0].Float32Data()), must(out[0].Float32Data()), o.k
	for r := 0; r < len(x)/k; r++ {
		mx, sum := float64(x[r*k]), 0.0
		for j := 1; j < k; j++ {
			mx = math.Max(mx, float64(x[r*k+j]))
		}
		for j := 0; j < k; j++ {
			sum += math.Exp(float64(x[r*k+j]) - mx)
		}
		for j := 0; j < k; j++ {
			store(req[0], y, r*k+j, math.Exp(float64(x[r*k+j])-mx)/sum)
		}
	}
	return nil
}

func (o softmaxOp) Backward(req []GradReq, outGrad, in, out, inGrad, aux []*NDArray) error {
	p, label, dx, k := must(out[0].Float32Data()), must(in[1].Float32Data()), must(inGrad[0].Float32Data()), o.k
	for i := range p {
		hot := 0.0
		if int(label[i/k]) == i%k {
			hot = 1
		}
		store(req[0], dx, i, float64(p[i])-hot)
	}
	if inGrad[1] != nil {
		dl := must(inGrad[1].Float32Data())
		for i := range dl {
			store(req[1], dl, i, 0)
		}
	}
	return nil
}

// withOps registers go_softplus and go_softmax for the test and checks at
// its end that no handle, registration, prop or operator is left.
func withOps(t *testing.T) {
	checkLive(t)
	if err := RegisterCustomOp("go_softplus", newSoftplus(false)); err != nil {
		t.Fatal(err)
	}
	if err := RegisterCustomOp("go_softmax", func(map[string]string) (CustomOpProp, error) { return softmaxProp{}, nil }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := UnregisterCustomOp("go_softplus"); err != nil {
			t.Error(err)
		}
		if err := UnregisterCustomOp("go_softmax"); err != nil {
			t.Error(err)
		}
		if err := WaitAll(); err != nil {
			t.Error(err)
		}
		if n := LiveCustomOpObjects(); n != 0 {
			t.Errorf("%d registrations, props or operators left", n)
		}
	})
}

type spExec struct {
	sym          *Symbol
	ex           *Executor
	x, out, grad *NDArray
}

func newSpExec(t testing.TB, name, beta, opType string) *spExec {
	e := &spExec{sym: must(SymbolFromJSON(fmt.Sprintf(spJSON, name, beta, opType)))}
	e.ex = must(SimpleBind(e.sym, map[string][]int64{"x": {int64(len(spX))}}, "write"))
	e.x = must(e.ex.ArgArrays())["x"]
	e.out = must(e.ex.Outputs())[0].Array
	e.grad = must(e.ex.GradArrays())["x"]
	return e
}

func (e *spExec) Close() {
	e.grad.Close()
	e.out.Close()
	e.x.Close()
	e.ex.Close()
	e.sym.Close()
}

func (e *spExec) sum(xs []float32) float64 {
	must(0, e.x.CopyFromFloat32(xs))
	must(0, e.ex.Forward(false))
	s := 0.0
	for _, v := range must(e.out.ToFloat32()) {
		s += float64(v)
	}
	return s
}

// conformance: custom_op.autograd_records_custom
func TestCustomOpAutogradRecordsCustom(t *testing.T) {
	withOps(t)
	x := must(FromFloat32(spX, int64(len(spX))))
	defer closeAll(t, x)
	check(t, x.AttachGrad())
	var y *NDArray
	check(t, Record(true, func() (err error) {
		y, err = Call("Custom", Params{"op_type": "go_softplus", "beta": "0.5"}, x)
		return err
	}))
	check(t, y.Backward()) // head gradient ones: d softplus(0.5 x) / 0.5 / dx = sigmoid(0.5 x)
	closeAll(t, y)
	g := gradValues(t, x)
	for i, v := range spX {
		if want := sigmoid(0.5 * float64(v)); math.Abs(float64(g[i])-want) > 1e-5 {
			t.Errorf("grad at %v: %v, want %v", v, g[i], want)
		}
	}
}

// conformance: custom_op.softplus_closed_form_and_numeric
func TestCustomOpSoftplusClosedFormAndNumeric(t *testing.T) {
	withOps(t)
	e := newSpExec(t, "sp", "2.0", "go_softplus")
	defer e.Close()
	must(0, e.x.CopyFromFloat32(spX))
	must(0, e.ex.Forward(true))
	must(0, e.ex.Backward()) // a Custom head: ones as its gradient
	y, g := must(e.out.ToFloat32()), must(e.grad.ToFloat32())
	for i, x := range spX {
		if want := math.Log1p(math.Exp(2*float64(x))) / 2; math.Abs(float64(y[i])-want) > 1e-5 {
			t.Errorf("y(%v) = %v, expected %v", x, y[i], want)
		}
		if want := sigmoid(2 * float64(x)); math.Abs(float64(g[i])-want) > 1e-5 {
			t.Errorf("grad(%v) = %v, expected %v", x, g[i], want)
		}
		const eps = 1e-2
		xs := append([]float32{}, spX...)
		xs[i] = x + eps
		up := e.sum(xs)
		xs[i] = x - eps
		if numeric := (up - e.sum(xs)) / (2 * eps); math.Abs(numeric-float64(g[i])) > 2e-3 {
			t.Errorf("numeric gradient at %v: %v, backward %v", x, numeric, g[i])
		}
	}
}

// conformance: custom_op.four_executor_threads
func TestCustomOpFourExecutorThreads(t *testing.T) {
	withOps(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for th := 0; th < 4; th++ {
		wg.Add(1)
		go func(th int) {
			defer wg.Done()
			e := newSpExec(t, "sp", "2.0", "go_softplus")
			defer e.Close()
			for it := 0; it < 25; it++ {
				xs := make([]float32, len(spX))
				for i := range xs {
					xs[i] = spX[i] + 0.01*float32(th+it)
				}
				for _, err := range []error{e.x.CopyFromFloat32(xs), e.ex.Forward(true), e.ex.Backward()} {
					if err != nil {
						errs <- err
						return
					}
				}
				y, g := must(e.out.ToFloat32()), must(e.grad.ToFloat32())
				for i, x := range xs {
					if math.Abs(float64(y[i])-softplus(2, float64(x))) > 1e-5 || math.Abs(float64(g[i])-sigmoid(2*float64(x))) > 1e-5 {
						errs <- fmt.Errorf("thread %d: wrong value at %v", th, x)
						return
					}
				}
			}
		}(th)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// conformance: custom_op.callback_error_names_op_and_node
func TestCustomOpPanicBecomesError(t *testing.T) {
	withOps(t)
	if err := RegisterCustomOp("go_failing", newSoftplus(true)); err != nil {
		t.Fatal(err)
	}
	_, err := SymbolFromJSON(fmt.Sprintf(spJSON, "bad_node", "-1", "go_failing"))
	expectError(t, err, InvalidArgument, "go_failing", "bad_node", "beta must be positive")
	e := newSpExec(t, "bad_node", "2.0", "go_failing")
	must(0, e.ex.Forward(false))
	_, err = e.out.ToFloat32()
	expectError(t, err, InvalidArgument, "go_failing", "bad_node", "panic: boom: this forward always fails")
	e.Close()
	must(0, WaitAll())
	must(0, UnregisterCustomOp("go_failing"))
}

// conformance: custom_op.unregister_refused_while_in_use
func TestCustomOpUnregisterRefusedWhileInUse(t *testing.T) {
	withOps(t)
	must(0, RegisterCustomOp("go_temp", newSoftplus(false)))
	expectError(t, RegisterCustomOp("go_temp", newSoftplus(false)), InvalidArgument, "go_temp", "registered already")
	if names := must(CustomOps()); !strings.Contains(strings.Join(names, ","), "go_temp") {
		t.Errorf("CustomOps() = %v lacks go_temp", names)
	}
	sym := must(SymbolFromJSON(fmt.Sprintf(spJSON, "sp", "2.0", "go_temp")))
	expectError(t, UnregisterCustomOp("go_temp"), InvalidArgument, "go_temp", "in use")
	sym.Close()
	must(0, UnregisterCustomOp("go_temp"))
	expectError(t, UnregisterCustomOp("go_temp"), NotFound, "go_temp")
}
