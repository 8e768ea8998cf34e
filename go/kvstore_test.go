package weft

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// KVStore through the binding (the same cases in JUnit and NUnit).
// conformance: kvstore.push_sums_and_pull_copies
func TestKVStorePushSumsRepeatedKeysAndPullCopies(t *testing.T) {
	checkLive(t)
	kv := must(NewKVStore("local"))
	w := must(FromFloat32([]float32{1, 2, 3}, 3))
	a := must(FromFloat32([]float32{0.5, -1, 4}, 3))
	b := must(FromFloat32([]float32{10, 20, 30}, 3))
	out := must(FromFloat32([]float32{0, 0, 0}, 3))
	defer closeAll(t, kv, w, a, b, out)
	if typ := must(kv.Type()); typ != "local" {
		t.Fatalf("type %q", typ)
	}
	rank, workers, err := kv.Rank()
	check(t, err)
	if rank != 0 || workers != 1 {
		t.Fatalf("rank %d of %d", rank, workers)
	}
	check(t, kv.Init([]string{"w"}, []*NDArray{w}))
	check(t, kv.Push([]string{"w", "w"}, []*NDArray{a, b}, 0))
	check(t, kv.Pull([]string{"w"}, []*NDArray{out}, 0))
	floatsEqual(t, must(out.ToFloat32()), []float32{10.5, 19, 34})
	check(t, kv.Barrier())
}

// conformance: kvstore.optimizer_runs_on_push
func TestKVStoreOptimizerRunsOnPush(t *testing.T) {
	checkLive(t)
	kv := must(NewKVStore("device"))
	opt := must(NewOptimizer("sgd", Params{"learning_rate": 0.1}))
	w := must(FromFloat32([]float32{1, -1}, 2))
	g := must(FromFloat32([]float32{0.5, 2}, 2))
	defer closeAll(t, kv, opt, w, g)
	check(t, kv.SetOptimizer(opt))
	check(t, kv.Init([]string{"fc_weight"}, []*NDArray{w}))
	check(t, kv.PushPull([]string{"fc_weight"}, []*NDArray{g}, []*NDArray{w}, 0))
	got := must(w.ToFloat32())
	want := []float32{1 - 0.1*0.5, -1 - 0.1*2}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("weights %v, want %v", got, want)
		}
	}
}

// conformance: kvstore.updater_runs_on_push
func TestKVStoreUpdaterRunsOnPush(t *testing.T) {
	checkLive(t)
	kv := must(NewKVStore("local"))
	w := must(FromFloat32([]float32{1, 2}, 2))
	g1 := must(FromFloat32([]float32{1, 3}, 2))
	g2 := must(FromFloat32([]float32{3, 1}, 2))
	out := must(FromFloat32([]float32{0, 0}, 2))
	defer closeAll(t, kv, w, g1, g2, out)
	var calls []string
	check(t, kv.Init([]string{"w"}, []*NDArray{w}))
	check(t, kv.SetUpdater(func(key string, sum, stored *NDArray) error { // stored -= 0.5 * sum
		calls = append(calls, key)
		return InvokeInto("sgd_update", Params{"lr": 0.5}, []*NDArray{stored, sum}, stored)
	}))
	check(t, kv.Push([]string{"w", "w"}, []*NDArray{g1, g2}, 0))
	check(t, kv.Pull([]string{"w"}, []*NDArray{out}, 0))
	floatsEqual(t, must(out.ToFloat32()), []float32{-1, 0})
	check(t, kv.PushPull([]string{"w"}, []*NDArray{g1}, []*NDArray{out}, 0))
	floatsEqual(t, must(out.ToFloat32()), []float32{-1.5, -1.5})
	if len(calls) != 2 || calls[0] != "w" || calls[1] != "w" {
		t.Fatalf("calls %v", calls)
	}
	failed := errors.New("updater failed")
	check(t, kv.SetUpdater(func(string, *NDArray, *NDArray) error { return failed }))
	if err := kv.Push([]string{"w"}, []*NDArray{g1}, 0); !errors.Is(err, failed) {
		t.Fatalf("push with a failing updater: %v", err)
	}
	check(t, kv.SetUpdater(nil)) // plain sums again
	check(t, kv.PushPull([]string{"w"}, []*NDArray{g2}, []*NDArray{out}, 0))
	floatsEqual(t, must(out.ToFloat32()), []float32{3, 1})
}

// conformance: kvstore.errors_name_the_key
func TestKVStoreErrorsNameTheKey(t *testing.T) {
	checkLive(t)
	_, err := NewKVStore("ps")
	expectError(t, err, InvalidArgument)
	kv := must(NewKVStore("local"))
	w := must(FromFloat32([]float32{1, 2}, 2))
	big := must(FromFloat32([]float32{1, 2, 3}, 3))
	defer closeAll(t, w, big)
	err = kv.Push([]string{"w"}, []*NDArray{w}, 0)
	expectError(t, err, InvalidArgument)
	if !strings.Contains(err.Error(), "'w'") {
		t.Fatalf("message %q", err)
	}
	check(t, kv.Init([]string{"w"}, []*NDArray{w}))
	expectError(t, kv.Pull([]string{"w"}, []*NDArray{big}, 0), ShapeError)
	check(t, kv.Close())
	expectError(t, kv.Barrier(), InvalidHandle)
}
