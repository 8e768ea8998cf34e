package weft

// Predictor: thread-safe inference for services (weft_predictor_* of the C
// ABI; semantics in core/include/weft/predictor.h).
//
// Ownership: a *Predictor owns one native predictor; Close releases it
// (idempotent, safe from any goroutine); a finalizer closes a forgotten one.
// Thread-safety: every method may be called from any number of goroutines
// at once. The predictor holds one copy of the weights and a pool of
// executors (at most "max_executors" per input shape set); callers beyond
// that wait inside the library for an executor.
// Data-dependent shapes: a model whose output extents depend on the input
// values (ONNX's NonMaxSuppression) runs node by node; OutputShape gives
// each output's upper bound, PredictTensorsShaped each call's shapes (the
// other predict methods then need exactly the call's sizes), and
// "max_batch" and monitors are refused.
// Cancellation: Predict checks its context before the call starts; a call
// in progress (running or waiting for an executor inside the library)
// cannot be interrupted and runs to completion.

import (
	"context"
	"io"
	"runtime"
	"sort"
	"unsafe"

	"github.com/weft-ai/weft/go/internal/capi"
)

// PredictorInput names an input of the model with its first shape (the
// shape later calls use unless they give another).
type PredictorInput struct {
	Name  string
	Shape []int64
}

// PredictorConfig says how to build a Predictor.
type PredictorConfig struct {
	// Inputs in the order Predict takes them; every other argument of the
	// symbol is a weight read from the parameters ("arg:"/"aux:" names;
	// arguments ending in "label" that the parameters lack are fed zeros).
	Inputs []PredictorInput
	// Outputs returned, in order: internal outputs ("fc1_output") or node
	// names ("fc1"). Empty: the symbol's outputs.
	Outputs []string
	// Device runs the model (the zero value is cpu(0)).
	Device Context
	// Options passed to the library as key/value strings: "max_executors"
	// (per input shape set; default twice the cores, at least 4),
	// "max_shapes" (default 8), "bulk_max_nodes", "optimize_inference"
	// ("0"/"1"); dynamic batching: "max_batch" (> 1: concurrent calls that
	// differ only in their first extent run as one batch of up to this many
	// samples), "batch_delay_us" (how long a batch's first call waits for
	// more; default 0: a batch takes the calls already queued),
	// "batch_queue" ("mutex" or "lockfree"). An unknown key or a bad value
	// is an InvalidArgument error.
	Options map[string]string
}

// PredictorStats are a predictor's figures.
type PredictorStats struct {
	Executors       uint64 // bound executors over all shape sets
	ShapeSets       uint64 // input shape sets bound
	InUse           uint64 // executors running a call now
	WeightBytes     uint64 // the frozen weights, held once
	ActivationBytes uint64 // planned memory over all executors
}

// Tensor is one input of PredictTensors: float32 data of a shape.
type Tensor struct {
	Data  []float32
	Shape []int64
}

// Predictor runs a model from any number of goroutines at once.
// A goroutine that read the handle just before Close passes a stale handle,
// which the library's handle table rejects (InvalidHandle): handles carry a
// generation, so a freed one never names another object.
type Predictor struct {
	handle
	firstShape []int64 // the first input's shape given at creation
	monitor    monitorSlot
}

func (c *PredictorConfig) split() (names []string, indPtr []uint64, dims []int64, keys, vals []string) {
	indPtr = make([]uint64, 1, len(c.Inputs)+1)
	dims = []int64{}
	for _, in := range c.Inputs {
		names = append(names, in.Name)
		dims = append(dims, in.Shape...)
		indPtr = append(indPtr, uint64(len(dims)))
	}
	for k := range c.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vals = append(vals, c.Options[k])
	}
	return
}

func newPredictor(cfg *PredictorConfig, create func(names []string, indPtr []uint64, dims []int64, devType, devID int, keys, vals []string, out []uintptr) error) (*Predictor, error) {
	names, indPtr, dims, keys, vals := cfg.split()
	devType, devID := cfg.Device.codes()
	return owned(func(h uintptr) *Predictor {
		p := &Predictor{handle: handle{h: h, kind: "Predictor"}}
		if len(cfg.Inputs) > 0 {
			p.firstShape = append([]int64(nil), cfg.Inputs[0].Shape...)
		}
		setFinalizer(p)
		return p
	})(out1(func(out []uintptr) error { return create(names, indPtr, dims, devType, devID, keys, vals, out) }))
}

// NewPredictor builds a predictor from symbol JSON text and the bytes of a
// .params file (both are copied; params may be reused afterwards).
func NewPredictor(symbolJSON string, params []byte, cfg PredictorConfig) (*Predictor, error) {
	return newPredictor(&cfg, func(names []string, indPtr []uint64, dims []int64, devType, devID int, keys, vals []string, out []uintptr) error {
		err := capi.Weft_predictor_create(symbolJSON, sliceData(params), uint64(len(params)), uint64(len(names)),
			names, indPtr, dims, devType, devID, uint64(len(cfg.Outputs)), cfg.Outputs, uint64(len(keys)), keys,
			vals, out)
		runtime.KeepAlive(params)
		return err
	})
}

// LoadPredictor reads the symbol JSON and the .params bytes to their ends
// and builds a predictor (NewPredictor).
func LoadPredictor(symbol, params io.Reader, cfg PredictorConfig) (*Predictor, error) {
	js, err := io.ReadAll(symbol)
	if err != nil {
		return nil, err
	}
	pb, err := io.ReadAll(params)
	if err != nil {
		return nil, err
	}
	return NewPredictor(string(js), pb, cfg)
}

// LoadPredictorFiles builds a predictor from a -symbol.json file and a
// .params file.
func LoadPredictorFiles(symbolPath, paramsPath string, cfg PredictorConfig) (*Predictor, error) {
	return newPredictor(&cfg, func(names []string, indPtr []uint64, dims []int64, devType, devID int, keys, vals []string, out []uintptr) error {
		return capi.Weft_predictor_create_from_files(symbolPath, paramsPath, uint64(len(names)), names, indPtr,
			dims, devType, devID, uint64(len(cfg.Outputs)), cfg.Outputs, uint64(len(keys)), keys, vals, out)
	})
}

// Close closes the predictor: calls waiting inside the library for an
// executor fail with an *Error (InvalidArgument, "... closed"), calls
// running finish first (Close returns after them), then the weights and
// executors are released. Later calls return an *Error with InvalidHandle.
// Idempotent.
func (p *Predictor) Close() error {
	err := p.release(p, capi.Weft_predictor_free)
	p.monitor.close()
	return err
}

// SetMonitorCallback sets (nil removes) a monitor callback on every executor
// of the predictor (the optimised inference graph's nodes), called on each
// goroutine running a predict call, so concurrent calls call it
// concurrently; see MonitorFunc.
func (p *Predictor) SetMonitorCallback(fn MonitorFunc, monitorAll bool) error {
	return p.monitor.install(&p.handle, fn, monitorAll, capi.Weft_predictor_set_monitor_callback)
}

func (p *Predictor) names(list func(uintptr, []uintptr) error) ([]string, error) {
	return newStrings(result(&p.handle, list))
}

// InputNames lists the inputs in the order Predict takes them.
func (p *Predictor) InputNames() ([]string, error) { return p.names(capi.Weft_predictor_list_inputs) }

// OutputNames lists the outputs in the order Predict returns them.
func (p *Predictor) OutputNames() ([]string, error) { return p.names(capi.Weft_predictor_list_outputs) }

// OutputShape is the shape of output index for these input shapes (one per
// input), binding an executor for them when none is bound yet.
func (p *Predictor) OutputShape(index int, inputShapes ...[]int64) ([]int64, error) {
	indPtr := make([]uint64, 1, len(inputShapes)+1)
	dims := []int64{}
	for _, s := range inputShapes {
		dims = append(dims, s...)
		indPtr = append(indPtr, uint64(len(dims)))
	}
	out := make([]int64, 8)
	var ndim [1]uint64
	err := p.call(func(h uintptr) error {
		if index < 0 {
			return errorf(InvalidArgument, "OutputShape: index %d is negative", index)
		}
		return capi.Weft_predictor_output_shape(h, uint64(len(inputShapes)), indPtr, dims, uint64(index), out,
			uint64(len(out)), ndim[:])
	})
	if err != nil {
		return nil, err
	}
	return out[:ndim[0]], nil
}

// BatchShape is the shape of a batch of the first input holding n floats:
// its shape at creation with the first extent (the batch) set to n divided
// by the product of the other extents.
func (p *Predictor) BatchShape(n int) ([]int64, error) {
	if len(p.firstShape) == 0 {
		return nil, errorf(InvalidArgument, "Predict: the predictor has no input shape to scale; use PredictShape")
	}
	per := int64(1)
	for _, d := range p.firstShape[1:] {
		per *= d
	}
	if n == 0 || int64(n)%per != 0 {
		return nil, errorf(InvalidArgument,
			"Predict: input has %d floats, expected a positive multiple of %d (a batch of shape %v with any first extent)",
			n, per, p.firstShape)
	}
	s := append([]int64(nil), p.firstShape...)
	s[0] = int64(n) / per
	return s, nil
}

// Predict runs a model with one float32 input and one float32 output: in
// is a batch of the first input (BatchShape(len(in))), out receives the
// output and must have exactly its size. The slices are used in place for
// the duration of the call (no copy in Go). A context already done returns
// its error without running; a call in progress is not interrupted.
func (p *Predictor) Predict(ctx context.Context, in, out []float32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	shape, err := p.BatchShape(len(in))
	if err != nil {
		return err
	}
	return p.predictShape(in, shape, out)
}

// PredictShape is Predict with the input's shape given.
func (p *Predictor) PredictShape(ctx context.Context, in []float32, shape []int64, out []float32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return p.predictShape(in, shape, out)
}

func (p *Predictor) predictShape(in []float32, shape []int64, out []float32) error {
	// The slices are passed as &s[0] (cgo allows Go memory holding no Go
	// pointers for the call). The C ABI rejects a NULL buffer: an empty
	// slice gets a valid address, so the library reports the size instead.
	var zero [1]float32
	if len(in) == 0 {
		in = zero[:0:1]
	}
	if len(out) == 0 {
		out = zero[:0:1]
	}
	if len(shape) == 0 {
		shape = []int64{}
	}
	err := p.call(func(h uintptr) error {
		return capi.Weft_predictor_predict_float(h, in, uint64(len(in)), shape, uint64(len(shape)), out,
			uint64(len(out)))
	})
	runtime.KeepAlive(in)
	runtime.KeepAlive(out)
	return err
}

// PredictTensors runs a model with any number of float32 inputs (one per
// input, in InputNames order) and outputs (one slice per output, each of
// exactly the output's size). The inputs and outputs are copied through one
// packed buffer each (cgo may not receive an array of Go pointers); Predict
// avoids those copies for one input and one output.
func (p *Predictor) PredictTensors(ctx context.Context, inputs []Tensor, outputs [][]float32) error {
	_, err := p.predictPacked(ctx, inputs, outputs, false)
	return err
}

// PredictTensorsShaped is PredictTensors returning the shape of each output
// this call wrote (weft_predictor_predict_packed_shaped): output j is
// written at the start of outputs[j], whose length is a capacity (at least
// the output's size). For a model whose output extents depend on the input
// values (ONNX's NonMaxSuppression: the number of boxes kept is the first
// extent), OutputShape gives sizes that always suffice.
func (p *Predictor) PredictTensorsShaped(ctx context.Context, inputs []Tensor, outputs [][]float32) ([][]int64, error) {
	return p.predictPacked(ctx, inputs, outputs, true)
}

func (p *Predictor) predictPacked(ctx context.Context, inputs []Tensor, outputs [][]float32, shaped bool) ([][]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	const f32 = uint64(unsafe.Sizeof(float32(0)))
	inBytes := make([]uint64, len(inputs))
	indPtr := make([]uint64, 1, len(inputs)+1)
	dims := []int64{}
	n := 0
	for i, t := range inputs {
		inBytes[i] = uint64(len(t.Data)) * f32
		n += len(t.Data)
		dims = append(dims, t.Shape...)
		indPtr = append(indPtr, uint64(len(dims)))
	}
	in := make([]float32, 0, n+1)
	for _, t := range inputs {
		in = append(in, t.Data...)
	}
	outBytes := make([]uint64, len(outputs))
	m := 0
	for j, o := range outputs {
		outBytes[j] = uint64(len(o)) * f32
		m += len(o)
	}
	out := make([]float32, m+1) // +1: a valid address when empty
	outIndPtr := make([]uint64, len(outputs)+1)
	outDims := make([]int64, 8*len(outputs)+1)
	err := p.call(func(h uintptr) error {
		if shaped {
			return capi.Weft_predictor_predict_packed_shaped(h, uint64(len(inputs)), unsafe.Pointer(&in[:1][0]), inBytes,
				indPtr, dims, uint64(len(outputs)), unsafe.Pointer(&out[0]), outBytes, outIndPtr, outDims,
				uint64(len(outDims)))
		}
		return capi.Weft_predictor_predict_packed(h, uint64(len(inputs)), unsafe.Pointer(&in[:1][0]), inBytes, indPtr,
			dims, uint64(len(outputs)), unsafe.Pointer(&out[0]), outBytes)
	})
	if err != nil {
		return nil, err
	}
	off := 0
	for _, o := range outputs {
		off += copy(o, out[off:off+len(o)])
	}
	if !shaped {
		return nil, nil
	}
	shapes := make([][]int64, len(outputs))
	for j := range shapes {
		shapes[j] = append([]int64{}, outDims[outIndPtr[j]:outIndPtr[j+1]]...)
	}
	return shapes, nil
}

// Stats returns the predictor's figures.
func (p *Predictor) Stats() (PredictorStats, error) {
	var s [5]uint64
	err := p.call(func(h uintptr) error { return capi.Weft_predictor_stats(h, s[:]) })
	return PredictorStats{s[0], s[1], s[2], s[3], s[4]}, err
}
