package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Autograd: imperative gradients with MXNet's semantics (mxnet.autograd).
// While the calling thread records, every Invoke/Call/InvokeInto on it is
// recorded; Backward differentiates what the heads were computed from and
// writes (or adds) into the gradient buffers of the arrays marked with
// MarkVariables or AttachGrad.
//
// The recording and training flags belong to the OS thread (as in MXNet),
// and a goroutine may move to another OS thread between two calls. Record and
// Pause lock the goroutine to its thread while they run fn; IsRecording,
// IsTraining, SetRecording and SetTraining act on the current thread, so use
// them only between runtime.LockOSThread and runtime.UnlockOSThread (or
// inside Record's fn). Backward, Grad and GetSymbol work on the recorded
// arrays and may run on any goroutine.

// flag runs a flag call of the C ABI, which fails only for a NULL out slot
// (never passed here).
func flag(f func(out []int32) error) bool {
	v, err := out1(f)
	if err != nil {
		panic("weft: autograd flag: " + err.Error())
	}
	return v != 0
}

// IsRecording reports whether the current OS thread records (see Record).
func IsRecording() bool { return flag(capi.Weft_autograd_is_recording) }

// IsTraining reports whether ops run in training mode on the current OS
// thread (Dropout masks, BatchNorm batch statistics).
func IsTraining() bool { return flag(capi.Weft_autograd_is_training) }

// SetRecording sets whether the current OS thread records and returns the
// previous setting. The goroutine must be locked to its thread
// (runtime.LockOSThread) for the setting to apply to its later calls.
func SetRecording(on bool) (prev bool) {
	return flag(func(out []int32) error { return capi.Weft_autograd_set_is_recording(boolInt(on), out) })
}

// SetTraining sets the current OS thread's training flag and returns the
// previous setting (a locked thread, as for SetRecording).
func SetTraining(on bool) (prev bool) {
	return flag(func(out []int32) error { return capi.Weft_autograd_set_is_training(boolInt(on), out) })
}

// Record runs fn with recording on and the training flag set to trainMode
// (MXNet's `with autograd.record(train_mode)`): the goroutine is locked to
// its OS thread for the duration, and both flags are restored when fn
// returns, fails or panics. Returns fn's error.
func Record(trainMode bool, fn func() error) error { return withFlags(true, trainMode, fn) }

// Pause runs fn with recording off and the training flag set to trainMode
// (MXNet's autograd.pause), restoring both afterwards as Record does.
func Pause(trainMode bool, fn func() error) error { return withFlags(false, trainMode, fn) }

func withFlags(recording, training bool, fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prevRecording := SetRecording(recording)
	defer SetRecording(prevRecording)
	prevTraining := SetTraining(training)
	defer SetTraining(prevTraining)
	return fn()
}

// optionalHandles returns the raw handles of objs, which may be nil (nil
// result) and hold nil entries (0); when given, one per `per` (count).
func optionalHandles(fn, arg string, objs []*NDArray, per string, count int) ([]uintptr, error) {
	if objs == nil {
		return nil, nil
	}
	if len(objs) != count {
		return nil, errorf(InvalidArgument, "%s: %s has %d entries, expected one per %s (%d)", fn, arg, len(objs), per, count)
	}
	hs := make([]uintptr, len(objs))
	for i, o := range objs {
		if o != nil {
			h, err := o.get()
			if err != nil {
				return nil, err
			}
			hs[i] = h
		}
	}
	return hs, nil
}

// MarkVariables marks vars as variables with gradient buffers grads (each of
// its variable's shape, dtype and device; nil where the request is GradNull)
// and one request per variable (reqs nil: GradWrite for all). Each variable
// keeps a reference to its buffer: closing the buffer afterwards is fine.
func MarkVariables(vars []*NDArray, reqs []GradReq, grads []*NDArray) error {
	v, err := handlesOf(vars)
	if err != nil {
		return err
	}
	if reqs != nil && len(reqs) != len(v) {
		return errorf(InvalidArgument, "MarkVariables: reqs has %d entries, expected one per variable (%d)", len(reqs), len(v))
	}
	r := make([]int32, len(v))
	for i := range r {
		r[i] = int32(GradWrite)
		if reqs != nil {
			r[i] = int32(reqs[i])
		}
	}
	g, err := optionalHandles("MarkVariables", "grads", grads, "variable", len(v))
	if err != nil {
		return err
	}
	err = capi.Weft_autograd_mark_variables(v, uint64(len(v)), r, g)
	runtime.KeepAlive(vars)
	runtime.KeepAlive(grads)
	return wrap(err)
}

// BackwardOption configures Backward and Grad.
type BackwardOption func(*backwardConfig)

type backwardConfig struct {
	headGrads   []*NDArray
	retainGraph bool
	createGraph bool
	trainMode   bool
}

// WithHeadGrads gives one gradient per head (a nil entry: ones, the default).
func WithHeadGrads(grads ...*NDArray) BackwardOption {
	return func(c *backwardConfig) { c.headGrads = grads }
}

// WithRetainGraph keeps the recorded values for another Backward or Grad
// (by default they are freed and a second pass over them fails).
func WithRetainGraph() BackwardOption { return func(c *backwardConfig) { c.retainGraph = true } }

// WithCreateGraph (Grad only) records the gradient computation too, so the
// gradients can be differentiated again (higher order) where the gradient
// ops have gradients; it keeps the graph. It fails with NotImplemented
// through a recorded CachedOp call.
func WithCreateGraph() BackwardOption { return func(c *backwardConfig) { c.createGraph = true } }

// WithTrainMode sets whether the gradient ops run in training mode (default true).
func WithTrainMode(on bool) BackwardOption { return func(c *backwardConfig) { c.trainMode = on } }

// backwardArgs resolves the options and the handles of heads and head gradients.
func backwardArgs(fn string, heads []*NDArray, opts []BackwardOption) (backwardConfig, []uintptr, []uintptr, error) {
	cfg := backwardConfig{trainMode: true}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := handlesOf(heads)
	if err != nil {
		return cfg, nil, nil, err
	}
	hg, err := optionalHandles(fn, "head gradients", cfg.headGrads, "head", len(h))
	return cfg, h, hg, err
}

// Backward back-propagates from heads (recorded arrays) into the marked
// variables' gradient buffers, written or added per their requests.
func Backward(heads []*NDArray, opts ...BackwardOption) error {
	cfg, h, hg, err := backwardArgs("Backward", heads, opts)
	if err != nil {
		return err
	}
	err = capi.Weft_autograd_backward(h, uint64(len(h)), hg, boolInt(cfg.retainGraph), boolInt(cfg.trainMode))
	runtime.KeepAlive(heads)
	runtime.KeepAlive(cfg.headGrads)
	return wrap(err)
}

// Grad returns the gradients of heads with respect to the marked variables
// as new arrays (close them), leaving the gradient buffers alone.
func Grad(heads, variables []*NDArray, opts ...BackwardOption) ([]*NDArray, error) {
	cfg, h, hg, err := backwardArgs("Grad", heads, opts)
	if err != nil {
		return nil, err
	}
	v, err := handlesOf(variables)
	if err != nil {
		return nil, err
	}
	outs := make([]uintptr, len(v))
	err = capi.Weft_autograd_grad_ex(h, uint64(len(h)), hg, v, uint64(len(v)), boolInt(cfg.retainGraph),
		boolInt(cfg.createGraph), boolInt(cfg.trainMode), outs)
	runtime.KeepAlive([]interface{}{heads, variables, cfg.headGrads})
	if err != nil {
		return nil, wrap(err)
	}
	grads := make([]*NDArray, len(outs))
	for i, o := range outs {
		grads[i] = newNDArray(o)
	}
	return grads, nil
}

// GetSymbol returns the recorded graph that computed a as a new symbol.
func GetSymbol(a *NDArray) (*Symbol, error) {
	return owned(newSymbol)(result(&a.handle, capi.Weft_autograd_get_symbol))
}

// AttachGrad gives a a zeroed gradient buffer (same shape, dtype and device)
// and marks it as a variable with request req (GradWrite when none is given;
// MXNet's attach_grad).
func (a *NDArray) AttachGrad(req ...GradReq) error {
	r := GradWrite
	if len(req) > 0 {
		r = req[0]
	}
	var g *NDArray
	err := Pause(false, func() (err error) { // the zeros are not recorded
		g, err = Call("zeros_like", nil, a)
		return err
	})
	if err != nil {
		return err
	}
	defer g.Close() // a keeps its own reference to the buffer
	return MarkVariables([]*NDArray{a}, []GradReq{r}, []*NDArray{g})
}

// Grad returns a's gradient buffer as a new array sharing it (close it), or
// nil when a is not marked.
func (a *NDArray) Grad() (*NDArray, error) {
	g, err := result(&a.handle, capi.Weft_ndarray_get_grad)
	if err != nil || g == 0 {
		return nil, err
	}
	return newNDArray(g), nil
}

// Detach returns a new array on a's storage without its autograd record:
// gradients stop there.
func (a *NDArray) Detach() (*NDArray, error) {
	return owned(newNDArray)(result(&a.handle, capi.Weft_ndarray_detach))
}

// Backward is Backward from a alone.
func (a *NDArray) Backward(opts ...BackwardOption) error { return Backward([]*NDArray{a}, opts...) }
