package weft

import (
	"runtime"

	"github.com/weft-ai/weft/go/internal/capi"
)

// KVStore is a key-value store of arrays for data-parallel training
// (MXNet's KVStore): "local", "device" (several cpu(i) devices in one
// process) or "dist_sync" (one store per process of an mpirun job, kept
// identical by allreduce). Push sums the values given for each key (and,
// for dist_sync, across processes); the store takes the sum, or the
// optimizer's update with it. Push and pull are asynchronous: read the
// arrays to see results or errors. One goroutine at a time; with dist_sync
// every process makes the same calls in the same order.
type KVStore struct {
	handle
	updater Updater
}

// Updater is a program's optimizer (MXNet's kvstore updater): it writes
// stored in place; sum and stored are valid during the call only. An error
// it returns is returned by the Push (or Pull, Barrier) that ran it.
type Updater func(key string, sum, stored *NDArray) error

// SetUpdater makes later pushes run u on each key's sum and stored value
// (MXNet's set_updater), on the calling goroutine before Push (or Pull)
// returns; it replaces an optimizer, and nil restores plain sums. The
// library queues the updates and this type runs them after each native
// call, so no native thread calls into Go.
func (kv *KVStore) SetUpdater(u Updater) error {
	err := kv.call(func(h uintptr) error { return capi.Weft_kvstore_set_updater_queue(h, boolInt(u != nil)) })
	if err == nil {
		kv.updater = u
	}
	return err
}

// runUpdates runs the queued updates and reports whether there were any.
func (kv *KVStore) runUpdates() (bool, error) {
	if kv.updater == nil {
		return false, nil
	}
	any := false
	for {
		var key [1]string
		var sum, stored [1]uintptr
		var has [1]int32
		if err := kv.call(func(h uintptr) error {
			return capi.Weft_kvstore_next_update(h, key[:], sum[:], stored[:], has[:])
		}); err != nil {
			return any, err
		}
		if has[0] == 0 {
			return any, nil
		}
		any = true
		s, st := newNDArray(sum[0]), newNDArray(stored[0])
		err := kv.updater(key[0], s, st)
		s.Close()
		st.Close()
		if err != nil {
			return any, err
		}
	}
}

// NewKVStore creates a store of the given type.
func NewKVStore(kind string) (*KVStore, error) {
	return owned(func(h uintptr) *KVStore {
		kv := &KVStore{handle: handle{h: h, kind: "KVStore"}}
		setFinalizer(kv)
		return kv
	})(out1(func(out []uintptr) error { return capi.Weft_kvstore_create(kind, out) }))
}

// Close releases the store; further calls return nil.
func (kv *KVStore) Close() error { return kv.release(kv, capi.Weft_kvstore_free) }

// Type is "local", "device" or "dist_sync".
func (kv *KVStore) Type() (string, error) { return result(&kv.handle, capi.Weft_kvstore_type) }

// Rank returns this process's rank and the number of processes.
func (kv *KVStore) Rank() (rank, workers int, err error) {
	var r, n [1]int32
	err = kv.call(func(h uintptr) error { return capi.Weft_kvstore_rank(h, r[:], n[:]) })
	return int(r[0]), int(n[0]), err
}

// arrays calls f with the store's handle and the arrays' handles.
func (kv *KVStore) arrays(f func(h uintptr, hs ...[]uintptr) error, lists ...[]*NDArray) error {
	hs := make([][]uintptr, len(lists))
	for i, l := range lists {
		var err error
		if hs[i], err = handlesOf(l); err != nil {
			return err
		}
	}
	err := kv.call(func(h uintptr) error { return f(h, hs...) })
	runtime.KeepAlive(lists)
	return err
}

// Init stores a copy of each value under its key.
func (kv *KVStore) Init(keys []string, values []*NDArray) error {
	return kv.arrays(func(h uintptr, hs ...[]uintptr) error {
		return capi.Weft_kvstore_init(h, uint64(len(keys)), keys, hs[0])
	}, values)
}

// Push sums the values of each key (keys may repeat) into the store.
func (kv *KVStore) Push(keys []string, values []*NDArray, priority int) error {
	if err := kv.arrays(func(h uintptr, hs ...[]uintptr) error {
		return capi.Weft_kvstore_push(h, uint64(len(keys)), keys, hs[0], priority)
	}, values); err != nil {
		return err
	}
	_, err := kv.runUpdates()
	return err
}

// Pull copies each key's stored value into outs.
func (kv *KVStore) Pull(keys []string, outs []*NDArray, priority int) error {
	pull := func() error {
		return kv.arrays(func(h uintptr, hs ...[]uintptr) error {
			return capi.Weft_kvstore_pull(h, uint64(len(keys)), keys, hs[0], priority)
		}, outs)
	}
	if err := pull(); err != nil {
		return err
	}
	// dist_sync applies a bucket's updates at the pull that sends it: pull again after them.
	ran, err := kv.runUpdates()
	if err != nil || !ran {
		return err
	}
	return pull()
}

// PushPull is Push then Pull (outs may be values).
func (kv *KVStore) PushPull(keys []string, values, outs []*NDArray, priority int) error {
	if kv.updater != nil {
		if err := kv.Push(keys, values, priority); err != nil {
			return err
		}
		return kv.Pull(keys, outs, priority)
	}
	return kv.arrays(func(h uintptr, hs ...[]uintptr) error {
		return capi.Weft_kvstore_pushpull(h, uint64(len(keys)), keys, hs[0], hs[1], priority)
	}, values, outs)
}

// SetOptimizer makes later pushes update the stored values with opt
// (shared: it may be closed after).
func (kv *KVStore) SetOptimizer(opt *Optimizer) error {
	err := opt.call(func(oh uintptr) error {
		return kv.call(func(h uintptr) error { return capi.Weft_kvstore_set_optimizer(h, oh) })
	})
	if err == nil {
		kv.updater = nil
	}
	return err
}

// Barrier waits for the store's pending work, then (dist_sync) for every process.
func (kv *KVStore) Barrier() error {
	if err := kv.call(capi.Weft_kvstore_barrier); err != nil {
		return err
	}
	_, err := kv.runUpdates()
	return err
}

// FinalizeDistributed ends distributed use in this process: it waits for
// pending work, stops the kvstore's communication thread and finalises MPI
// if Weft initialised it. Go exits without running C exit hooks, so a
// program that used a dist_sync store calls it before returning from main
// (or os.Exit), or mpirun reports the process as ended abnormally.
func FinalizeDistributed() error { return wrap(capi.Weft_kvstore_finalize()) }
