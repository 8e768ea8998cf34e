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
}

// NewKVStore creates a store of the given type.
func NewKVStore(kind string) (*KVStore, error) {
	out := make([]uintptr, 1)
	if err := capi.Weft_kvstore_create(kind, out); err != nil {
		return nil, wrap(err)
	}
	kv := &KVStore{handle{h: out[0], kind: "KVStore"}}
	setFinalizer(kv)
	return kv, nil
}

// Close releases the store; further calls return an error.
func (kv *KVStore) Close() error {
	h := kv.take()
	if h == 0 {
		return nil
	}
	runtime.SetFinalizer(kv, nil)
	return wrap(capi.Weft_kvstore_free(h))
}

// Type is "local", "device" or "dist_sync".
func (kv *KVStore) Type() (string, error) {
	h, err := kv.get()
	if err != nil {
		return "", err
	}
	out := make([]string, 1)
	err = capi.Weft_kvstore_type(h, out)
	runtime.KeepAlive(kv)
	return out[0], wrap(err)
}

// Rank returns this process's rank and the number of processes.
func (kv *KVStore) Rank() (rank, workers int, err error) {
	h, err := kv.get()
	if err != nil {
		return 0, 0, err
	}
	var r, n [1]int32
	err = capi.Weft_kvstore_rank(h, r[:], n[:])
	runtime.KeepAlive(kv)
	return int(r[0]), int(n[0]), wrap(err)
}

// arrays calls f with the store's handle and the arrays' handles.
func (kv *KVStore) arrays(f func(h uintptr, hs ...[]uintptr) error, lists ...[]*NDArray) error {
	h, err := kv.get()
	if err != nil {
		return err
	}
	hs := make([][]uintptr, len(lists))
	for i, l := range lists {
		if hs[i], err = handlesOf(l); err != nil {
			return err
		}
	}
	err = f(h, hs...)
	runtime.KeepAlive(kv)
	runtime.KeepAlive(lists)
	return wrap(err)
}

// Init stores a copy of each value under its key.
func (kv *KVStore) Init(keys []string, values []*NDArray) error {
	return kv.arrays(func(h uintptr, hs ...[]uintptr) error {
		return capi.Weft_kvstore_init(h, uint64(len(keys)), keys, hs[0])
	}, values)
}

// Push sums the values of each key (keys may repeat) into the store.
func (kv *KVStore) Push(keys []string, values []*NDArray, priority int) error {
	return kv.arrays(func(h uintptr, hs ...[]uintptr) error {
		return capi.Weft_kvstore_push(h, uint64(len(keys)), keys, hs[0], priority)
	}, values)
}

// Pull copies each key's stored value into outs.
func (kv *KVStore) Pull(keys []string, outs []*NDArray, priority int) error {
	return kv.arrays(func(h uintptr, hs ...[]uintptr) error {
		return capi.Weft_kvstore_pull(h, uint64(len(keys)), keys, hs[0], priority)
	}, outs)
}

// PushPull is Push then Pull (outs may be values).
func (kv *KVStore) PushPull(keys []string, values, outs []*NDArray, priority int) error {
	return kv.arrays(func(h uintptr, hs ...[]uintptr) error {
		return capi.Weft_kvstore_pushpull(h, uint64(len(keys)), keys, hs[0], hs[1], priority)
	}, values, outs)
}

// SetOptimizer makes later pushes update the stored values with opt
// (shared: it may be closed after).
func (kv *KVStore) SetOptimizer(opt *Optimizer) error {
	oh, err := opt.get()
	if err != nil {
		return err
	}
	err = kv.arrays(func(h uintptr, _ ...[]uintptr) error { return capi.Weft_kvstore_set_optimizer(h, oh) })
	runtime.KeepAlive(opt)
	return err
}

// Barrier waits for the store's pending work, then (dist_sync) for every process.
func (kv *KVStore) Barrier() error {
	return kv.arrays(func(h uintptr, _ ...[]uintptr) error { return capi.Weft_kvstore_barrier(h) })
}

// FinalizeDistributed ends distributed use in this process: it waits for
// pending work, stops the kvstore's communication thread and finalises MPI
// if Weft initialised it. Go exits without running C exit hooks, so a
// program that used a dist_sync store calls it before returning from main
// (or os.Exit), or mpirun reports the process as ended abnormally.
func FinalizeDistributed() error { return wrap(capi.Weft_kvstore_finalize()) }
