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
	defer runtime.KeepAlive([]interface{}{data, label}) // no finalizer frees a handle in use
	return owned(func(h uintptr) *DataIter {
		it := &DataIter{handle{h: h, kind: "DataIter"}, []map[string]*NDArray{data, label}}
		setFinalizer(it)
		return it
	})(out1(func(out []uintptr) error {
		return capi.Weft_data_iter_create_ndarray(uint64(len(dn)), dn, dh, uint64(len(ln)), ln, lh, batchSize,
			boolInt(shuffle), lastBatch, seed, out)
	}))
}

// CreateDataIter creates an iterator by MXNet's name ("CSVIter",
// "LibSVMIter", "MNISTIter": DataIterNames) with parameters under MXNet's
// names, as MXNet's mx.io.<Name>(**params).
func CreateDataIter(name string, params Params) (*DataIter, error) {
	keys, vals := params.split()
	return owned(func(h uintptr) *DataIter {
		it := &DataIter{handle{h: h, kind: "DataIter"}, nil}
		setFinalizer(it)
		return it
	})(out1(func(out []uintptr) error {
		return capi.Weft_data_iter_create(name, keys, vals, uint64(len(keys)), out)
	}))
}

// DataIterNames lists the names CreateDataIter takes.
func DataIterNames() ([]string, error) {
	return newStrings(out1(func(out []uintptr) error { return capi.Weft_data_iter_list(out) }))
}

// Close releases the iterator; further calls return nil.
func (it *DataIter) Close() error {
	err := it.release(it, capi.Weft_data_iter_free)
	it.keep = nil
	return err
}

// Next advances to the next batch; false at the end of the epoch.
func (it *DataIter) Next() (bool, error) {
	has, err := result(&it.handle, capi.Weft_data_iter_next)
	return has != 0, err
}

// Reset starts a new epoch.
func (it *DataIter) Reset() error {
	return it.call(capi.Weft_data_iter_reset)
}

// SelectPart restricts the iterator to part partIndex of numParts
// (contiguous samples; MXNet's num_parts/part_index) and resets it.
func (it *DataIter) SelectPart(numParts, partIndex int) error {
	return it.call(func(h uintptr) error { return capi.Weft_data_iter_select_part(h, numParts, partIndex) })
}

func (it *DataIter) arrays(f func(uintptr, []uintptr) error) (map[string]*NDArray, error) {
	return newMap(result(&it.handle, f))
}

// Data is the current batch's data arrays by name (close them).
func (it *DataIter) Data() (map[string]*NDArray, error) { return it.arrays(capi.Weft_data_iter_data) }

// Label is the current batch's label arrays by name (close them).
func (it *DataIter) Label() (map[string]*NDArray, error) { return it.arrays(capi.Weft_data_iter_label) }

func (it *DataIter) intOf(f func(uintptr, []int32) error) (int, error) {
	v, err := result(&it.handle, f)
	return int(v), err
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
	return owned(func(h uintptr) *Metric {
		m := &Metric{handle{h: h, kind: "Metric"}}
		setFinalizer(m)
		return m
	})(out1(func(out []uintptr) error { return capi.Weft_metric_create(name, k, v, uint64(len(k)), out) }))
}

// Close releases the metric; further calls return nil.
func (m *Metric) Close() error { return m.release(m, capi.Weft_metric_free) }

// Add adds a metric to a composite one.
func (m *Metric) Add(name string, params Params) error {
	k, v := params.split()
	return m.call(func(h uintptr) error { return capi.Weft_metric_composite_add(h, name, k, v, uint64(len(k))) })
}

// Update accumulates one prediction per label.
func (m *Metric) Update(labels, preds []*NDArray) error {
	l, err := handlesOf(labels)
	if err != nil {
		return err
	}
	p, err := handlesOf(preds)
	if err != nil {
		return err
	}
	defer runtime.KeepAlive([]interface{}{labels, preds}) // no finalizer frees a handle in use
	return m.call(func(h uintptr) error { return capi.Weft_metric_update(h, uint64(len(l)), l, uint64(len(p)), p) })
}

// Get returns the current values by name (NaN before any instance).
func (m *Metric) Get() (map[string]float64, error) {
	var vals []float64
	var n, num [1]uint64
	var list [1]uintptr
	err := m.call(func(h uintptr) error {
		if err := capi.Weft_metric_num_values(h, n[:]); err != nil {
			return err
		}
		vals = make([]float64, n[0])
		return capi.Weft_metric_get(h, list[:], vals, uint64(len(vals)), num[:])
	})
	return metricValues(list[0], vals, num[0], err)
}

// metricValues pairs the first num names of a new WeftStringList (freed
// here) with vals, unless the call that made the list failed.
func metricValues(list uintptr, vals []float64, num uint64, err error) (map[string]float64, error) {
	ns, err := newStrings(list, err)
	if err != nil {
		return nil, err
	}
	r := make(map[string]float64, num)
	for i := 0; i < int(num); i++ {
		r[ns[i]] = vals[i]
	}
	return r, nil
}

// numValues is the metric's value count.
func (m *Metric) numValues() (uint64, error) { return result(&m.handle, capi.Weft_metric_num_values) }

// Reset clears the accumulated values.
func (m *Metric) Reset() error {
	return m.call(capi.Weft_metric_reset)
}

// Initializer is a seeded parameter initializer ("uniform", "normal",
// "xavier", "constant", "zero", "one"). One goroutine at a time.
type Initializer struct {
	handle
}

// NewInitializer creates an initializer by MXNet name.
func NewInitializer(name string, params Params, seed uint64) (*Initializer, error) {
	k, v := params.split()
	return owned(func(h uintptr) *Initializer {
		i := &Initializer{handle{h: h, kind: "Initializer"}}
		setFinalizer(i)
		return i
	})(out1(func(out []uintptr) error { return capi.Weft_initializer_create(name, k, v, uint64(len(k)), seed, out) }))
}

// Close releases the initializer; further calls return nil.
func (i *Initializer) Close() error { return i.release(i, capi.Weft_initializer_free) }

// Init fills arr for parameter paramName by MXNet's naming rules.
func (i *Initializer) Init(paramName string, arr *NDArray) error {
	return i.call(func(h uintptr) error {
		return arr.call(func(a uintptr) error { return capi.Weft_initializer_init(h, paramName, a) })
	})
}

// Optimizer is an optimizer with per-parameter states (MXNet's names: "sgd",
// "nag", "signum", "lars", "adam", "adamw", "lamb", "rmsprop", "adagrad",
// "adadelta", "ftrl").
type Optimizer struct {
	handle
}

// NewOptimizer creates an optimizer by name.
func NewOptimizer(name string, params Params) (*Optimizer, error) {
	k, v := params.split()
	return owned(func(h uintptr) *Optimizer {
		o := &Optimizer{handle{h: h, kind: "Optimizer"}}
		setFinalizer(o)
		return o
	})(out1(func(out []uintptr) error { return capi.Weft_optimizer_create(name, k, v, uint64(len(k)), out) }))
}

// Close releases the optimizer; further calls return nil.
func (o *Optimizer) Close() error { return o.release(o, capi.Weft_optimizer_free) }

// Update runs one update of parameter index (weight written in place).
func (o *Optimizer) Update(index int, name string, weight, grad *NDArray) error {
	return o.call(func(h uintptr) error {
		return weight.call(func(w uintptr) error {
			return grad.call(func(g uintptr) error { return capi.Weft_optimizer_update(h, index, name, w, g) })
		})
	})
}

// SetLrScheduler sets the learning-rate schedule, based at the optimizer's
// learning_rate: kind "factor" (steps: one period), "multifactor"
// (increasing update counts) or "none" (the constant rate again; steps
// ignored); factor <= 1 is applied per step, stopFactorLr bounds "factor"
// schedules from below (MXNet's default 1e-8).
func (o *Optimizer) SetLrScheduler(kind string, steps []int64, factor, stopFactorLr float32) error {
	if steps == nil {
		steps = []int64{}
	}
	return o.call(func(h uintptr) error {
		return capi.Weft_optimizer_set_lr_scheduler(h, kind, steps, uint64(len(steps)), factor, stopFactorLr)
	})
}

// SaveStates writes every parameter's states and update counts to path
// (MXNet's Updater.get_states; the layout is in docs/architecture.md).
func (o *Optimizer) SaveStates(path string) error {
	return o.call(func(h uintptr) error { return capi.Weft_optimizer_save_states(h, path) })
}

// LoadStates replaces the states and update counts with those path holds;
// another optimizer's or a malformed file fails and changes nothing.
func (o *Optimizer) LoadStates(path string) error {
	return o.call(func(h uintptr) error { return capi.Weft_optimizer_load_states(h, path) })
}

// SetLrSchedulerParams sets the schedule by MXNet's name and parameters:
// "factor", "multifactor" (step as "(10,20)"), "poly", "cosine" or "none",
// each with base_lr, warmup_steps, warmup_begin_lr and warmup_mode ("linear"
// or "constant").
func (o *Optimizer) SetLrSchedulerParams(name string, params Params) error {
	k, v := params.split()
	return o.call(func(h uintptr) error {
		return capi.Weft_optimizer_set_lr_scheduler_ex(h, name, k, v, uint64(len(k)))
	})
}

// SetRescaleGrad sets the gradient scale (Module uses 1 / batch size).
func (o *Optimizer) SetRescaleGrad(rescale float32) error {
	return o.call(func(h uintptr) error { return capi.Weft_optimizer_set_rescale_grad(h, rescale) })
}

// NumUpdate is MXNet's num_update.
func (o *Optimizer) NumUpdate() (int64, error) {
	return result(&o.handle, capi.Weft_optimizer_num_update)
}

// LearningRate is the rate for parameter name at the current num_update.
func (o *Optimizer) LearningRate(name string) (float32, error) {
	return result(&o.handle, func(h uintptr, out []float32) error { return capi.Weft_optimizer_learning_rate(h, name, out) })
}
