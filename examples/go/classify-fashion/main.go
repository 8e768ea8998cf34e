// Command classify-fashion loads a checkpoint written by `weft train`,
// classifies the first N images of Fashion-MNIST's test set with it and
// compares each prediction with the C++ one (`weft predict --out FILE`: one
// class per line).
//
//	classify-fashion PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS
//
// Prints one line; exits 0 when every prediction agrees with C++, 1 when some
// differ or on an error, 2 on a usage error.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	weft "github.com/weft-ai/weft/go"
)

const batch = 100 // as weft predict

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: classify-fashion PREFIX EPOCH DATA_DIR N CPP_PREDICTIONS")
		os.Exit(2)
	}
	code, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "Go: error:", err)
	}
	os.Exit(code)
}

func run(args []string) (int, error) {
	epoch, err := strconv.Atoi(args[1])
	if err != nil {
		return 1, err
	}
	n, err := strconv.Atoi(args[3])
	if err != nil {
		return 1, err
	}
	predicted, truth, err := classify(args[0], epoch, args[2], n)
	if err != nil {
		return 1, err
	}
	text, err := os.ReadFile(args[4])
	if err != nil {
		return 1, err
	}
	cpp := strings.Fields(string(text))
	if len(cpp) != n {
		return 1, fmt.Errorf("%s holds %d predictions, expected %d", args[4], len(cpp), n)
	}
	correct, disagree := 0, 0
	for i := 0; i < n; i++ {
		if predicted[i] == int(truth[i]) {
			correct++
		}
		if c, err := strconv.Atoi(cpp[i]); err != nil || c != predicted[i] {
			disagree++
		}
	}
	fmt.Printf("Go:   accuracy %.2f%% on %d images, %d disagreements with C++\n",
		100*float64(correct)/float64(n), n, disagree)
	if disagree != 0 {
		return 1, nil
	}
	return 0, nil
}

// classify returns the predicted class (arg max of the output) and the label
// of each of the first n test images.
func classify(prefix string, epoch int, dataDir string, n int) ([]int, []float32, error) {
	ck, err := weft.LoadCheckpoint(prefix, epoch) // symbol + parameters
	if err != nil {
		return nil, nil, err
	}
	defer ck.Close()
	allImages, allLabels, err := weft.LoadMNISTSet(dataDir, "t10k") // (10000,1,28,28), labels
	if err != nil {
		return nil, nil, err
	}
	defer allImages.Close()
	defer allLabels.Close()
	images, err := allImages.Slice(0, int64(n)) // views: no copy
	if err != nil {
		return nil, nil, err
	}
	defer images.Close()
	labels, err := allLabels.Slice(0, int64(n))
	if err != nil {
		return nil, nil, err
	}
	defer labels.Close()
	truth, err := labels.ToFloat32()
	if err != nil {
		return nil, nil, err
	}
	it, err := weft.NewDataIter(map[string]*weft.NDArray{"data": images},
		map[string]*weft.NDArray{"softmax_label": labels}, batch, false, "pad", 0)
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	mod, err := weft.NewModule(ck.Symbol, []string{"data"}, []string{"softmax_label"}) // cpu(0)
	if err != nil {
		return nil, nil, err
	}
	defer mod.Close()
	if err := mod.Bind(it, false); err != nil { // inference only
		return nil, nil, err
	}
	if err := mod.InitParams(nil, ck.Args, ck.Aux, false); err != nil {
		return nil, nil, err
	}
	predicted := make([]int, 0, n)
	for {
		more, err := it.Next()
		if err != nil {
			return nil, nil, err
		}
		if !more {
			break
		}
		if err := mod.Forward(it, false); err != nil {
			return nil, nil, err
		}
		pad, err := it.Pad()
		if err != nil {
			return nil, nil, err
		}
		outs, err := mod.Outputs() // new handles: close them
		if err != nil {
			return nil, nil, err
		}
		var out *weft.NDArray
		for _, a := range outs { // one output: (batch, classes)
			out = a
		}
		shape, err := out.Shape()
		var scores []float32
		if err == nil {
			scores, err = out.ToFloat32()
		}
		weft.CloseAll(outs)
		if err != nil {
			return nil, nil, err
		}
		classes := int(shape[1])
		for r := 0; r < batch-pad; r++ { // padded rows are repeats
			best := 0
			for c := 1; c < classes; c++ {
				if scores[r*classes+c] > scores[r*classes+best] {
					best = c
				}
			}
			predicted = append(predicted, best)
		}
	}
	return predicted, truth, nil
}
