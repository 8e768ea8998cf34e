package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Trainer steps an optimizer over named parameters for autograd training
// (Gluon's Trainer). Every parameter must already have a gradient buffer
// (AttachGrad or MarkVariables); Step updates each from its buffer with
// gradients scaled by 1 / batch size. The optimizer is shared: its states and
// update counts live in it, and it may be closed after NewTrainer.
//
//	tr, err := weft.NewTrainer(names, params, opt)
//	for ... {
//		var loss *weft.NDArray
//		err = weft.Record(true, func() (err error) { loss, err = forward(x, y); return })
//		err = loss.Backward()
//		err = tr.Step(batchSize)
//	}
type Trainer struct {
	handle
}

// NewTrainer creates a trainer of params named names (same length; the
// order is the optimizer's per-parameter index).
func NewTrainer(names []string, params []*NDArray, opt *Optimizer) (*Trainer, error) {
	if len(names) != len(params) {
		return nil, errorf(InvalidArgument, "NewTrainer: %d names for %d parameters", len(names), len(params))
	}
	hs, err := handlesOf(params)
	if err != nil {
		return nil, err
	}
	oh, err := opt.get()
	if err != nil {
		return nil, err
	}
	t, err := owned(func(h uintptr) *Trainer {
		t := &Trainer{handle{h: h, kind: "Trainer"}}
		setFinalizer(t)
		return t
	})(out1(func(out []uintptr) error { return capi.Weft_trainer_create(names, hs, uint64(len(hs)), oh, out) }))
	runtime.KeepAlive(params)
	runtime.KeepAlive(opt)
	return t, err
}

// Close releases the trainer (the parameters stay); further calls return nil.
func (t *Trainer) Close() error { return t.release(t, capi.Weft_trainer_free) }

// Step runs one update of every parameter from its gradient buffer
// (asynchronous, like every op).
func (t *Trainer) Step(batchSize int) error {
	return t.call(func(h uintptr) error { return capi.Weft_trainer_step(h, batchSize) })
}

// CachedOp is a symbol invoked imperatively on arrays (MXNet's CachedOp): it
// binds and plans memory once per input-shape signature and, while the
// thread records (Record), is one node on the tape, so Backward reaches its
// inputs' gradient buffers. A Gluon export's symbol and parameters invoked
// through a cached op is Gluon's SymbolBlock.imports.
type CachedOp struct {
	handle
	monitor monitorSlot
}

// NewCachedOp creates a cached op of sym with MXNet's flags (static_alloc,
// static_shape, data_indices, param_indices, ...; nil for none).
func NewCachedOp(sym *Symbol, flags Params) (*CachedOp, error) {
	k, v := flags.split()
	sh, err := sym.get()
	if err != nil {
		return nil, err
	}
	c, err := owned(func(h uintptr) *CachedOp {
		c := &CachedOp{handle: handle{h: h, kind: "CachedOp"}}
		setFinalizer(c)
		return c
	})(out1(func(out []uintptr) error { return capi.Weft_cached_op_create(sh, uint64(len(k)), k, v, out) }))
	runtime.KeepAlive(sym)
	return c, err
}

// Close releases the op; further calls return nil.
func (c *CachedOp) Close() error {
	err := c.release(c, capi.Weft_cached_op_free)
	c.monitor.close()
	return err
}

// SetMonitorCallback sets (nil removes) a monitor callback on the executors
// the op runs, called on the invoking goroutine (nothing is reported for
// calls inlined node by node while recording); see MonitorFunc.
func (c *CachedOp) SetMonitorCallback(fn MonitorFunc, monitorAll bool) error {
	return c.monitor.install(&c.handle, fn, monitorAll, capi.Weft_cached_op_set_monitor_callback)
}

// Inputs are the inputs Invoke takes, in order: every variable of the symbol.
func (c *CachedOp) Inputs() ([]string, error) {
	return newStrings(result(&c.handle, capi.Weft_cached_op_list_inputs))
}

// Invoke runs the op and returns its new outputs (close them). With
// static_alloc they share the op's arrays, which the next call of the same
// shapes overwrites.
func (c *CachedOp) Invoke(inputs ...*NDArray) ([]*NDArray, error) {
	in, err := handlesOf(inputs)
	if err != nil {
		return nil, err
	}
	outs := make([]uintptr, 64)
	var n [1]uint64
	err = c.call(func(h uintptr) error {
		return capi.Weft_cached_op_invoke(h, in, uint64(len(in)), outs, uint64(len(outs)), n[:])
	})
	runtime.KeepAlive(inputs)
	if err != nil {
		return nil, err
	}
	arrays := make([]*NDArray, n[0])
	for i := range arrays {
		arrays[i] = newNDArray(outs[i])
	}
	return arrays, nil
}
