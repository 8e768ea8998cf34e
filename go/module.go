package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// Module is MXNet's Module training loop: a symbol whose arguments split into
// data, labels and parameters, bound for an iterator's batch shapes, with an
// optimizer. One goroutine at a time; distinct modules may run concurrently.
type Module struct {
	handle
}

// NewModule creates a module over sym on cpu(0) (OnDevice chooses another
// device); every argument not named in dataNames or labelNames is a parameter.
func NewModule(sym *Symbol, dataNames, labelNames []string, opts ...BindOption) (*Module, error) {
	cfg := bindConfigOf(opts)
	if len(cfg.group2ctx) != 0 {
		return nil, errorf(InvalidArgument, "NewModule: WithGroup2Ctx applies to SimpleBind and Bind only")
	}
	if cfg.useOptions() {
		return nil, errorf(InvalidArgument, "NewModule: executor options (WithMatchRange, WithGradReqs, ...) apply to SimpleBind and Bind only")
	}
	devType, devID := cfg.ctx.codes()
	return owned(newModule)(result(&sym.handle, func(s uintptr, out []uintptr) error {
		return capi.Weft_module_create(s, uint64(len(dataNames)), dataNames, uint64(len(labelNames)), labelNames,
			devType, devID, out)
	}))
}

func newModule(h uintptr) *Module {
	m := &Module{handle{h: h, kind: "Module"}}
	setFinalizer(m)
	return m
}

// Close releases the module; further calls return nil.
func (m *Module) Close() error { return m.release(m, capi.Weft_module_free) }

// with runs f on the module handle and the handle of it (0 when it is nil).
func (m *Module) with(it *DataIter, f func(mh, ih uintptr) error) error {
	if it == nil {
		return m.call(func(mh uintptr) error { return f(mh, 0) })
	}
	return m.call(func(mh uintptr) error { return it.call(func(ih uintptr) error { return f(mh, ih) }) })
}

// SetFixedParams fixes parameters (MXNet's fixed_param_names): bound
// without gradients, never updated. Call before Bind; the list replaces the
// previous one.
func (m *Module) SetFixedParams(names []string) error {
	return m.call(func(h uintptr) error { return capi.Weft_module_set_fixed_params(h, uint64(len(names)), names) })
}

// Bind binds for the batch shapes of it; forTraining allocates gradients.
func (m *Module) Bind(it *DataIter, forTraining bool) error {
	return m.with(it, func(mh, ih uintptr) error { return capi.Weft_module_bind(mh, ih, boolInt(forTraining)) })
}

// ndarrayList makes a named WeftNDArrayList holding copies of arrays (0 for nil).
func ndarrayList(arrays map[string]*NDArray) (uintptr, error) {
	if arrays == nil {
		return 0, nil
	}
	names, hs, err := namedHandles(arrays)
	if err != nil {
		return 0, err
	}
	defer runtime.KeepAlive(arrays)
	return out1(func(out []uintptr) error { return capi.Weft_ndarray_list_create(hs, names, uint64(len(hs)), out) })
}

// InitParams sets every parameter and aux state from args/aux (either may be
// nil), the rest from init (may be nil when everything is given).
func (m *Module) InitParams(init *Initializer, args, aux map[string]*NDArray, allowMissing bool) error {
	var ih uintptr
	if init != nil {
		var err error
		if ih, err = init.get(); err != nil {
			return err
		}
	}
	al, err := ndarrayList(args)
	if err != nil {
		return err
	}
	defer capi.Weft_ndarray_list_free(al)
	xl, err := ndarrayList(aux)
	if err != nil {
		return err
	}
	defer capi.Weft_ndarray_list_free(xl)
	err = m.call(func(mh uintptr) error {
		return capi.Weft_module_init_params(mh, ih, al, xl, boolInt(allowMissing))
	})
	runtime.KeepAlive(init)
	return err
}

// InitOptimizer attaches opt (its state is shared); rescale_grad = 1/batch size.
func (m *Module) InitOptimizer(opt *Optimizer) error {
	return opt.call(func(oh uintptr) error {
		return m.call(func(mh uintptr) error { return capi.Weft_module_init_optimizer(mh, oh) })
	})
}

// InitOptimizerKVStore attaches opt and trains through kv (both shared):
// see KVStore.
func (m *Module) InitOptimizerKVStore(opt *Optimizer, kv *KVStore) error {
	return opt.call(func(oh uintptr) error {
		return kv.call(func(kh uintptr) error {
			return m.call(func(mh uintptr) error { return capi.Weft_module_init_optimizer_kvstore(mh, oh, kh) })
		})
	})
}

// Forward runs the forward graph on it's current batch.
func (m *Module) Forward(it *DataIter, isTrain bool) error {
	return m.with(it, func(mh, ih uintptr) error { return capi.Weft_module_forward(mh, ih, boolInt(isTrain)) })
}

// Backward runs the gradient graph after a training forward.
func (m *Module) Backward() error {
	return m.call(capi.Weft_module_backward)
}

// Update runs one optimizer step on every parameter.
func (m *Module) Update() error {
	return m.call(capi.Weft_module_update)
}

// UpdateMetric updates metric with the last outputs and it's labels (padding excluded).
func (m *Module) UpdateMetric(metric *Metric, it *DataIter) error {
	mt, err := metric.get()
	if err != nil {
		return err
	}
	err = m.with(it, func(mh, ih uintptr) error { return capi.Weft_module_update_metric(mh, mt, ih) })
	runtime.KeepAlive(metric)
	return err
}

func (m *Module) lists(f func(mh uintptr, out []uintptr) error) (map[string]*NDArray, error) {
	return newMap(result(&m.handle, f))
}

// Outputs are the last forward's outputs by name (close them).
func (m *Module) Outputs() (map[string]*NDArray, error) { return m.lists(capi.Weft_module_outputs) }

// ArgParams are the parameters by name, sharing the module's arrays (close them).
func (m *Module) ArgParams() (map[string]*NDArray, error) {
	return m.lists(func(mh uintptr, out []uintptr) error { return capi.Weft_module_params(mh, out, nil) })
}

// AuxParams are the auxiliary states by name (close them).
func (m *Module) AuxParams() (map[string]*NDArray, error) {
	return m.lists(func(mh uintptr, out []uintptr) error { return capi.Weft_module_params(mh, nil, out) })
}

// Fit trains epochs [beginEpoch, numEpoch) on train, evaluating metric on
// eval (may be nil) after each; with checkpointPrefix != "" a checkpoint is
// written per epoch. It returns the last epoch's samples per second.
func (m *Module) Fit(train, eval *DataIter, metric *Metric, beginEpoch, numEpoch int, progress Progress, checkpointPrefix string) (float64, error) {
	var eh uintptr
	if eval != nil {
		var err error
		if eh, err = eval.get(); err != nil {
			return 0, err
		}
	}
	mt, err := metric.get()
	if err != nil {
		return 0, err
	}
	var sps [1]float64
	err = m.with(train, func(mh, th uintptr) error {
		return capi.Weft_module_fit(mh, th, eh, mt, beginEpoch, numEpoch, int(progress), checkpointPrefix, sps[:])
	})
	runtime.KeepAlive(eval)
	runtime.KeepAlive(metric)
	return sps[0], err
}

// Score runs it from its start in inference mode into metric and returns its values.
func (m *Module) Score(it *DataIter, metric *Metric) (map[string]float64, error) {
	mt, err := metric.get()
	if err != nil {
		return nil, err
	}
	err = m.with(it, func(mh, ih uintptr) error { return capi.Weft_module_score(mh, ih, mt) })
	runtime.KeepAlive(metric)
	if err != nil {
		return nil, err
	}
	return metric.Get()
}

// SaveCheckpoint writes prefix-symbol.json and prefix-EPOCH.params.
func (m *Module) SaveCheckpoint(prefix string, epoch int) error {
	return m.call(func(mh uintptr) error { return capi.Weft_module_save_checkpoint(mh, prefix, epoch) })
}

// Checkpoint is a loaded checkpoint: the symbol and the parameters by name
// (no "arg:"/"aux:" prefix). Close closes them all (idempotent).
type Checkpoint struct {
	Symbol *Symbol
	Args   map[string]*NDArray
	Aux    map[string]*NDArray
}

// SaveCheckpoint writes sym, args and aux (may be nil) as epoch epoch of prefix.
func SaveCheckpoint(prefix string, epoch int, sym *Symbol, args, aux map[string]*NDArray) error {
	s, err := sym.get()
	if err != nil {
		return err
	}
	an, ah, err := namedHandles(args)
	if err != nil {
		return err
	}
	xn, xh, err := namedHandles(aux)
	if err != nil {
		return err
	}
	err = capi.Weft_checkpoint_save(prefix, epoch, s, uint64(len(an)), an, ah, uint64(len(xn)), xn, xh)
	runtime.KeepAlive(sym)
	runtime.KeepAlive(args)
	runtime.KeepAlive(aux)
	return wrap(err)
}

// LoadCheckpoint reads epoch epoch of the checkpoint at prefix.
func LoadCheckpoint(prefix string, epoch int) (*Checkpoint, error) {
	s := make([]uintptr, 1)
	a := make([]uintptr, 1)
	x := make([]uintptr, 1)
	if err := capi.Weft_checkpoint_load(prefix, epoch, s, a, x); err != nil {
		return nil, wrap(err)
	}
	ck := &Checkpoint{Symbol: newSymbol(s[0])}
	var err error
	if ck.Args, err = takeMap(a[0]); err != nil {
		capi.Weft_ndarray_list_free(x[0])
		ck.Close()
		return nil, err
	}
	if ck.Aux, err = takeMap(x[0]); err != nil {
		ck.Close()
		return nil, err
	}
	return ck, nil
}

// Close closes the symbol and the arrays; further calls do nothing.
func (c *Checkpoint) Close() error {
	err := c.Symbol.Close()
	CloseAll(c.Args)
	CloseAll(c.Aux)
	return err
}
