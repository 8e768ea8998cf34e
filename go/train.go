package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// DataIter batches in-memory arrays (MXNet's NDArrayIter). The source arrays
// are shared and must stay open; batch arrays from Data/Label are rewritten
// by the next Next. One goroutine at a time.
type DataIter struct {
	handle
	keep []map[string]*NDArray // the source arrays stay reachable
}

// NewDataIter iterates over data and label (named cpu arrays, samples along
// the first axis). lastBatch: "pad" ("" too), "discard" or "roll_over";
// shuffle permutes with a generator seeded by seed.
func NewDataIter(data, label map[string]*NDArray, batchSize int, shuffle bool, lastBatch string, seed uint64) (*DataIter, error) {
	dn, dh, err := namedHandles(data)
	if err != nil {
		return nil, err
	}
	ln, lh, err := namedHandles(label)
	if err != nil {
		return nil, err
	}
	if lastBatch == "" {
		lastBatch = "pad"
	}
	out := make([]uintptr, 1)
	err = capi.Weft_data_iter_create_ndarray(uint64(len(dn)), dn, dh, uint64(len(ln)), ln, lh,
		batchSize, boolInt(shuffle), lastBatch, seed, out)
	runtime.KeepAlive(data)
	runtime.KeepAlive(label)
	if err != nil {
		return nil, wrap(err)
	}
	it := &DataIter{handle{h: out[0], kind: "DataIter"}, []map[string]*NDArray{data, label}}
	setFinalizer(it)
	return it, nil
}

// Close releases the iterator; further calls return nil.
func (it *DataIter) Close() error {
	h := it.take()
	if h == 0 {
		return nil
	}
	runtime.SetFinalizer(it, nil)
	it.keep = nil
	return wrap(capi.Weft_data_iter_free(h))
}

// Next advances to the next batch; false at the end of the epoch.
func (it *DataIter) Next() (bool, error) {
	h, err := it.get()
	if err != nil {
		return false, err
	}
	var has [1]int32
	err = capi.Weft_data_iter_next(h, has[:])
	runtime.KeepAlive(it)
	return has[0] != 0, wrap(err)
}

// Reset starts a new epoch.
func (it *DataIter) Reset() error {
	h, err := it.get()
	if err != nil {
		return err
	}
	err = capi.Weft_data_iter_reset(h)
	runtime.KeepAlive(it)
	return wrap(err)
}

// SelectPart restricts the iterator to part partIndex of numParts
// (contiguous samples; MXNet's num_parts/part_index) and resets it.
func (it *DataIter) SelectPart(numParts, partIndex int) error {
	h, err := it.get()
	if err != nil {
		return err
	}
	err = capi.Weft_data_iter_select_part(h, numParts, partIndex)
	runtime.KeepAlive(it)
	return wrap(err)
}

func (it *DataIter) arrays(f func(uintptr, []uintptr) error) (map[string]*NDArray, error) {
	h, err := it.get()
	if err != nil {
		return nil, err
	}
	out := make([]uintptr, 1)
	err = f(h, out)
	runtime.KeepAlive(it)
	if err != nil {
		return nil, wrap(err)
	}
	return takeMap(out[0])
}

// Data is the current batch's data arrays by name (close them).
func (it *DataIter) Data() (map[string]*NDArray, error) { return it.arrays(capi.Weft_data_iter_data) }

// Label is the current batch's label arrays by name (close them).
func (it *DataIter) Label() (map[string]*NDArray, error) { return it.arrays(capi.Weft_data_iter_label) }

func (it *DataIter) intOf(f func(uintptr, []int32) error) (int, error) {
	h, err := it.get()
	if err != nil {
		return 0, err
	}
	var v [1]int32
	err = f(h, v[:])
	runtime.KeepAlive(it)
	return int(v[0]), wrap(err)
}

// Pad is the number of padding rows at the end of the current batch.
func (it *DataIter) Pad() (int, error) { return it.intOf(capi.Weft_data_iter_pad) }

// BatchSize is the batch size.
func (it *DataIter) BatchSize() (int, error) { return it.intOf(capi.Weft_data_iter_batch_size) }

// Metric is an evaluation metric ("acc", "top_k_acc", "ce", "mse", "composite").
type Metric struct {
	handle
}

// NewMetric creates a metric by name.
func NewMetric(name string, params Params) (*Metric, error) {
	k, v := params.split()
	out := make([]uintptr, 1)
	if err := capi.Weft_metric_create(name, k, v, uint64(len(k)), out); err != nil {
		return nil, wrap(err)
	}
	m := &Metric{handle{h: out[0], kind: "Metric"}}
	setFinalizer(m)
	return m, nil
}

// Close releases the metric; further calls return nil.
func (m *Metric) Close() error {
	h := m.take()
	if h == 0 {
		return nil
	}
	runtime.SetFinalizer(m, nil)
	return wrap(capi.Weft_metric_free(h))
}

// Add adds a metric to a composite one.
func (m *Metric) Add(name string, params Params) error {
	h, err := m.get()
	if err != nil {
		return err
	}
	k, v := params.split()
	err = capi.Weft_metric_composite_add(h, name, k, v, uint64(len(k)))
	runtime.KeepAlive(m)
	return wrap(err)
}

// Update accumulates one prediction per label.
func (m *Metric) Update(labels, preds []*NDArray) error {
	h, err := m.get()
	if err != nil {
		return err
	}
	l, err := handlesOf(labels)
	if err != nil {
		return err
	}
	p, err := handlesOf(preds)
	if err != nil {
		return err
	}
	err = capi.Weft_metric_update(h, uint64(len(l)), l, uint64(len(p)), p)
	runtime.KeepAlive(m)
	runtime.KeepAlive(labels)
	runtime.KeepAlive(preds)
	return wrap(err)
}

// Get returns the current values by name (NaN before any instance).
func (m *Metric) Get() (map[string]float64, error) {
	h, err := m.get()
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(m)
	var n [1]uint64
	if err := capi.Weft_metric_num_values(h, n[:]); err != nil {
		return nil, wrap(err)
	}
	names := make([]uintptr, 1)
	vals := make([]float64, n[0])
	var num [1]uint64
	if err := capi.Weft_metric_get(h, names, vals, uint64(len(vals)), num[:]); err != nil {
		return nil, wrap(err)
	}
	ns, err := takeStrings(names[0])
	if err != nil {
		return nil, err
	}
	r := make(map[string]float64, num[0])
	for i := 0; i < int(num[0]); i++ {
		r[ns[i]] = vals[i]
	}
	return r, nil
}

// Reset clears the accumulated values.
func (m *Metric) Reset() error {
	h, err := m.get()
	if err != nil {
		return err
	}
	err = capi.Weft_metric_reset(h)
	runtime.KeepAlive(m)
	return wrap(err)
}

// Initializer is a seeded parameter initializer ("uniform", "normal",
// "xavier", "constant", "zero", "one"). One goroutine at a time.
type Initializer struct {
	handle
}

// NewInitializer creates an initializer by MXNet name.
func NewInitializer(name string, params Params, seed uint64) (*Initializer, error) {
	k, v := params.split()
	out := make([]uintptr, 1)
	if err := capi.Weft_initializer_create(name, k, v, uint64(len(k)), seed, out); err != nil {
		return nil, wrap(err)
	}
	i := &Initializer{handle{h: out[0], kind: "Initializer"}}
	setFinalizer(i)
	return i, nil
}

// Close releases the initializer; further calls return nil.
func (i *Initializer) Close() error {
	h := i.take()
	if h == 0 {
		return nil
	}
	runtime.SetFinalizer(i, nil)
	return wrap(capi.Weft_initializer_free(h))
}

// Init fills arr for parameter paramName by MXNet's naming rules.
func (i *Initializer) Init(paramName string, arr *NDArray) error {
	h, err := i.get()
	if err != nil {
		return err
	}
	a, err := arr.get()
	if err != nil {
		return err
	}
	err = capi.Weft_initializer_init(h, paramName, a)
	runtime.KeepAlive(i)
	runtime.KeepAlive(arr)
	return wrap(err)
}

// Optimizer is an optimizer with per-parameter states ("sgd", "adam").
type Optimizer struct {
	handle
}

// NewOptimizer creates an optimizer by name.
func NewOptimizer(name string, params Params) (*Optimizer, error) {
	k, v := params.split()
	out := make([]uintptr, 1)
	if err := capi.Weft_optimizer_create(name, k, v, uint64(len(k)), out); err != nil {
		return nil, wrap(err)
	}
	o := &Optimizer{handle{h: out[0], kind: "Optimizer"}}
	setFinalizer(o)
	return o, nil
}

// Close releases the optimizer; further calls return nil.
func (o *Optimizer) Close() error {
	h := o.take()
	if h == 0 {
		return nil
	}
	runtime.SetFinalizer(o, nil)
	return wrap(capi.Weft_optimizer_free(h))
}

// Update runs one update of parameter index (weight written in place).
func (o *Optimizer) Update(index int, name string, weight, grad *NDArray) error {
	h, err := o.get()
	if err != nil {
		return err
	}
	w, err := weight.get()
	if err != nil {
		return err
	}
	g, err := grad.get()
	if err != nil {
		return err
	}
	err = capi.Weft_optimizer_update(h, index, name, w, g)
	runtime.KeepAlive(o)
	runtime.KeepAlive(weight)
	runtime.KeepAlive(grad)
	return wrap(err)
}

// SetLrScheduler sets the learning-rate schedule, based at the optimizer's
// learning_rate: kind "factor" (steps: one period), "multifactor"
// (increasing update counts) or "none" (the constant rate again; steps
// ignored); factor <= 1 is applied per step, stopFactorLr bounds "factor"
// schedules from below (MXNet's default 1e-8).
func (o *Optimizer) SetLrScheduler(kind string, steps []int64, factor, stopFactorLr float32) error {
	h, err := o.get()
	if err != nil {
		return err
	}
	if steps == nil {
		steps = []int64{}
	}
	err = capi.Weft_optimizer_set_lr_scheduler(h, kind, steps, uint64(len(steps)), factor, stopFactorLr)
	runtime.KeepAlive(o)
	return wrap(err)
}

// SetRescaleGrad sets the gradient scale (Module uses 1 / batch size).
func (o *Optimizer) SetRescaleGrad(rescale float32) error {
	h, err := o.get()
	if err != nil {
		return err
	}
	err = capi.Weft_optimizer_set_rescale_grad(h, rescale)
	runtime.KeepAlive(o)
	return wrap(err)
}

// NumUpdate is MXNet's num_update.
func (o *Optimizer) NumUpdate() (int64, error) {
	h, err := o.get()
	if err != nil {
		return 0, err
	}
	var n [1]int64
	err = capi.Weft_optimizer_num_update(h, n[:])
	runtime.KeepAlive(o)
	return n[0], wrap(err)
}

// LearningRate is the rate for parameter name at the current num_update.
func (o *Optimizer) LearningRate(name string) (float32, error) {
	h, err := o.get()
	if err != nil {
		return 0, err
	}
	var lr [1]float32
	err = capi.Weft_optimizer_learning_rate(h, name, lr[:])
	runtime.KeepAlive(o)
	return lr[0], wrap(err)
}
