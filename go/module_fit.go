package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// BatchEnd is a training batch that ran (what FitCallbacks.BatchEnd sees).
type BatchEnd struct {
	Epoch      int                // 0-based
	Batch      int64              // 1-based within the epoch
	NumBatches int64              // batches per epoch, -1 when the iterator does not know
	Samples    int64              // samples trained so far this epoch (padding excluded)
	Seconds    float64            // since the epoch started
	Metric     map[string]float64 // the training metric over the epoch's batches so far
}

// EpochEnd is a closed epoch.
type EpochEnd struct {
	Epoch            int
	Batches, Samples int64
	Seconds          float64 // training time
	SamplesPerSec    float64
	Stopped          bool               // a callback stopped training during this epoch
	TrainMetric      map[string]float64 // the training metric
	ValidationMetric map[string]float64 // empty without a validation iterator, or when stopped
}

// FitCallbacks run on the calling goroutine between two training steps
// (either may be nil). Returning false stops training (MXNet's early stop):
// after a batch that epoch closes at once (no validation, no checkpoint);
// after an epoch the later epochs are skipped. They must not use the module
// or the iterators.
type FitCallbacks struct {
	BatchEnd func(BatchEnd) bool
	EpochEnd func(EpochEnd) bool // called for a stopped epoch too
}

// FitWithCallbacks is Fit calling cb after every batch and epoch; it returns
// every closed epoch. The training loop is the library's (a fit session
// driven step by step here): no native thread calls into Go.
func (m *Module) FitWithCallbacks(train, eval *DataIter, metric *Metric, beginEpoch, numEpoch int, progress Progress, checkpointPrefix string, cb FitCallbacks) ([]EpochEnd, error) {
	var eh uintptr
	if eval != nil {
		var err error
		if eh, err = eval.get(); err != nil {
			return nil, err
		}
	}
	mt, err := metric.get()
	if err != nil {
		return nil, err
	}
	var s uintptr
	err = m.with(train, func(mh, th uintptr) error {
		return out(&s, func(o []uintptr) error {
			return capi.Weft_fit_session_create(mh, th, eh, mt, beginEpoch, numEpoch, int(progress), checkpointPrefix, o)
		})
	})
	if err != nil {
		return nil, err
	}
	defer capi.Weft_fit_session_free(s)
	defer runtime.KeepAlive([]interface{}{m, train, eval, metric})
	return runFitSession(s, metric, cb)
}

// out stores the one result of f in *dst.
func out[T any](dst *T, f func([]T) error) error {
	v, err := out1(f)
	*dst = v
	return err
}

func runFitSession(s uintptr, metric *Metric, cb FitCallbacks) ([]EpochEnd, error) {
	var epochs []EpochEnd
	for {
		var ev int32
		if err := out(&ev, func(o []int32) error { return capi.Weft_fit_session_next(s, o) }); err != nil {
			return epochs, err
		}
		switch fitEvent(ev) {
		case fitDone:
			return epochs, nil
		case fitEpochEnd:
			e, err := readEpoch(s, metric)
			if err != nil {
				return epochs, err
			}
			epochs = append(epochs, e)
			if cb.EpochEnd != nil && !cb.EpochEnd(e) {
				if err := wrap(capi.Weft_fit_session_stop(s)); err != nil {
					return epochs, err
				}
			}
			continue
		}
		if cb.BatchEnd == nil {
			continue
		}
		b, err := readBatch(s, metric)
		if err != nil {
			return epochs, err
		}
		if cb.BatchEnd(b) {
			continue
		}
		if err := wrap(capi.Weft_fit_session_stop(s)); err != nil {
			return epochs, err
		}
		e, err := readEpoch(s, metric)
		if err != nil {
			return epochs, err
		}
		epochs = append(epochs, e)
		if cb.EpochEnd != nil {
			cb.EpochEnd(e)
		}
	}
}

func readBatch(s uintptr, metric *Metric) (BatchEnd, error) {
	var epoch [1]int32
	var batch, numBatches, samples [1]int64
	var seconds [1]float64
	if err := wrap(capi.Weft_fit_session_batch(s, epoch[:], batch[:], numBatches[:], samples[:], seconds[:])); err != nil {
		return BatchEnd{}, err
	}
	m, err := metric.Get()
	return BatchEnd{Epoch: int(epoch[0]), Batch: batch[0], NumBatches: numBatches[0], Samples: samples[0],
		Seconds: seconds[0], Metric: m}, err
}

func readEpoch(s uintptr, metric *Metric) (EpochEnd, error) {
	var epoch, stopped [1]int32
	var batches, samples [1]int64
	var seconds, sps [1]float64
	if err := wrap(capi.Weft_fit_session_epoch(s, epoch[:], batches[:], samples[:], seconds[:], sps[:], stopped[:])); err != nil {
		return EpochEnd{}, err
	}
	e := EpochEnd{Epoch: int(epoch[0]), Batches: batches[0], Samples: samples[0], Seconds: seconds[0],
		SamplesPerSec: sps[0], Stopped: stopped[0] != 0}
	var err error
	if e.TrainMetric, err = epochMetric(s, metric, 0); err != nil {
		return e, err
	}
	e.ValidationMetric, err = epochMetric(s, metric, 1)
	return e, err
}

func epochMetric(s uintptr, metric *Metric, validation int) (map[string]float64, error) {
	n, err := metric.numValues()
	if err != nil {
		return nil, err
	}
	vals := make([]float64, n)
	var list [1]uintptr
	var num [1]uint64
	err = wrap(capi.Weft_fit_session_epoch_metric(s, validation, list[:], vals, n, num[:]))
	return metricValues(list[0], vals, num[0], err)
}
