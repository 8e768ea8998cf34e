// Command train-dist trains a model on Fashion-MNIST data-parallel across the
// processes of an MPI job through a dist_sync KVStore: each rank reads its
// part of the training images, gradients are summed across ranks by
// allreduce, and every rank applies the same step, so the weights stay
// identical. Rank 0 prints the epoch summaries and the test accuracy.
//
//	mpirun -np 2 train-dist SYMBOL.json DATA_DIR EPOCHS [KVSTORE]
//
// KVSTORE defaults to dist_sync ("local" runs one process on its own).
// Exits 0 on success, 1 on an error, 2 on a usage error.
package main

import (
	"fmt"
	"os"
	"strconv"

	weft "github.com/weft-ai/weft/go"
)

const batch = 64 // per process: the global batch is 64 x processes

func main() {
	if len(os.Args) != 4 && len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: mpirun -np N train-dist SYMBOL.json DATA_DIR EPOCHS [KVSTORE]")
		os.Exit(2)
	}
	kind := "dist_sync"
	if len(os.Args) == 5 {
		kind = os.Args[4]
	}
	err := run(os.Args[1], os.Args[2], os.Args[3], kind)
	// Go exits without C exit hooks: finalise MPI here, on every path.
	if ferr := weft.FinalizeDistributed(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "train-dist: error:", err)
		os.Exit(1)
	}
}

func run(symbolPath, dataDir, epochsText, kind string) error {
	epochs, err := strconv.Atoi(epochsText)
	if err != nil {
		return err
	}
	kv, err := weft.NewKVStore(kind)
	if err != nil {
		return err
	}
	defer kv.Close()
	rank, workers, err := kv.Rank()
	if err != nil {
		return err
	}
	sym, err := weft.LoadSymbol(symbolPath)
	if err != nil {
		return err
	}
	defer sym.Close()
	trainX, trainY, err := weft.LoadMNISTSet(dataDir, "train")
	if err != nil {
		return err
	}
	defer trainX.Close()
	defer trainY.Close()
	testX, testY, err := weft.LoadMNISTSet(dataDir, "t10k")
	if err != nil {
		return err
	}
	defer testX.Close()
	defer testY.Close()
	train, err := weft.NewDataIter(map[string]*weft.NDArray{"data": trainX},
		map[string]*weft.NDArray{"softmax_label": trainY}, batch, true, "pad", 1)
	if err != nil {
		return err
	}
	defer train.Close()
	if err := train.SelectPart(workers, rank); err != nil { // this rank's share of the images
		return err
	}
	test, err := weft.NewDataIter(map[string]*weft.NDArray{"data": testX},
		map[string]*weft.NDArray{"softmax_label": testY}, batch, false, "pad", 0)
	if err != nil {
		return err
	}
	defer test.Close()

	mod, err := weft.NewModule(sym, []string{"data"}, []string{"softmax_label"})
	if err != nil {
		return err
	}
	defer mod.Close()
	if err := mod.Bind(train, true); err != nil {
		return err
	}
	init, err := weft.NewInitializer("xavier", nil, uint64(1+rank)) // differs per rank: the kvstore gives all rank 0's
	if err != nil {
		return err
	}
	defer init.Close()
	if err := mod.InitParams(init, nil, nil, true); err != nil {
		return err
	}
	opt, err := weft.NewOptimizer("sgd", weft.Params{"learning_rate": 0.05, "momentum": 0.9})
	if err != nil {
		return err
	}
	defer opt.Close()
	if err := mod.InitOptimizerKVStore(opt, kv); err != nil {
		return err
	}
	acc, err := weft.NewMetric("acc", nil)
	if err != nil {
		return err
	}
	defer acc.Close()
	if rank == 0 {
		fmt.Printf("Go: %d process(es), kvstore %s, global batch %d\n", workers, kind, batch*workers)
	}
	// Fit prints the epoch summaries on rank 0 only.
	if _, err := mod.Fit(train, nil, acc, 0, epochs, weft.ProgressEpoch, ""); err != nil {
		return err
	}
	score, err := mod.Score(test, acc)
	if err != nil {
		return err
	}
	if rank == 0 {
		fmt.Printf("Go: test accuracy %.4f\n", score["accuracy"])
	}
	return kv.Barrier()
}
