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
	return owned(func(h uintptr) *KVStore {
		kv := &KVStore{handle{h: h, kind: "KVStore"}}
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
	return opt.call(func(oh uintptr) error {
		return kv.call(func(h uintptr) error { return capi.Weft_kvstore_set_optimizer(h, oh) })
	})
}

// Barrier waits for the store's pending work, then (dist_sync) for every process.
func (kv *KVStore) Barrier() error { return kv.call(capi.Weft_kvstore_barrier) }

// FinalizeDistributed ends distributed use in this process: it waits for
// pending work, stops the kvstore's communication thread and finalises MPI
// if Weft initialised it. Go exits without running C exit hooks, so a
// program that used a dist_sync store calls it before returning from main
// (or os.Exit), or mpirun reports the process as ended abnormally.
func FinalizeDistributed() error { return wrap(capi.Weft_kvstore_finalize()) }
