// Command lenet-serve serves a LeNet checkpoint over HTTP with a
// weft.Predictor, and drives it with a bounded load generator.
//
//	lenet-serve init     -symbol S -out PREFIX             write PREFIX-0000.params (xavier, seeded)
//	lenet-serve serve    -symbol S -params P [-addr A]     serve POST /predict until killed
//	lenet-serve load     -url U -symbol S -params P [-n N -c C]
//	lenet-serve selftest -symbol S -params P [-n N -c C]   serve on 127.0.0.1:0 and load it
//	lenet-serve bench    -symbol S -params P [-calls K]    median ns per predict call, Go vs C (1 thread)
//	lenet-serve soak     -symbol S -params P -calls K [-shape 1,1,28,28] [-interval 10s]
//	                     bench/soak's loop through the Go binding (RSS and live handles)
//
// A request carries one 28x28 image: a JSON array of 784 numbers, or 3136
// bytes of little-endian float32 with Content-Type application/octet-stream.
// The answer is JSON {"class": k, "probabilities": [...]}; a bad request gets
// 400 with {"error": "..."}.
//
// load and selftest send N requests from C concurrent clients (pseudo-random
// images, alternately JSON and raw), check every answer against a direct
// Predict of the same image in this process (same class, same
// probabilities), print requests/s and p50/p99 latency, and exit 1 on any
// mismatch or failed request. Exit 2 is a usage error.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	weft "github.com/weft-ai/weft/go"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	symbol := fs.String("symbol", "", "the -symbol.json file")
	params := fs.String("params", "", "the .params file")
	out := fs.String("out", "", "init: checkpoint prefix to write")
	addr := fs.String("addr", "127.0.0.1:8080", "serve: listen address")
	url := fs.String("url", "", "load: the server's base URL (http://127.0.0.1:8080)")
	n := fs.Int("n", 200, "load/selftest: requests")
	c := fs.Int("c", 4, "load/selftest: concurrent clients")
	calls := fs.Int("calls", 20000, "bench/soak: Predict calls")
	shape := fs.String("shape", "1,1,28,28", "soak: the input's shape")
	interval := fs.Duration("interval", 10*time.Second, "soak: how often to print RSS and live handles")
	maxExec := fs.String("max-executors", "", "predictor option max_executors (default: the library's)")
	_ = fs.Parse(os.Args[2:])
	if *symbol == "" || (os.Args[1] != "init" && *params == "") {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "init":
		if *out == "" {
			usage()
		}
		err = initCheckpoint(*symbol, *out)
	case "serve":
		err = serve(*symbol, *params, *maxExec, *addr)
	case "load":
		if *url == "" {
			usage()
		}
		err = loadWithPredictor(*symbol, *params, *maxExec, func(p *weft.Predictor) error {
			return load(*url, p, *n, *c)
		})
	case "selftest":
		err = selftest(*symbol, *params, *maxExec, *n, *c)
	case "bench":
		err = bench(*symbol, *params, *calls)
	case "soak":
		err = soak(*symbol, *params, *calls, *shape, *interval)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lenet-serve:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: lenet-serve init|serve|load|selftest|bench|soak -symbol S [-params P] [flags] (see the source)")
	os.Exit(2)
}

// newPredictor loads a LeNet predictor: input "data" of shape (1,1,28,28).
func newPredictor(symbol, params, maxExec string) (*weft.Predictor, error) {
	cfg := weft.PredictorConfig{Inputs: []weft.PredictorInput{{Name: "data", Shape: []int64{1, 1, 28, 28}}}}
	if maxExec != "" {
		cfg.Options = map[string]string{"max_executors": maxExec}
	}
	return weft.LoadPredictorFiles(symbol, params, cfg)
}

func loadWithPredictor(symbol, params, maxExec string, f func(*weft.Predictor) error) error {
	p, err := newPredictor(symbol, params, maxExec)
	if err != nil {
		return err
	}
	defer p.Close()
	return f(p)
}

// initCheckpoint writes epoch 0 of prefix: symbol's weights from a seeded
// xavier initializer, fc2_bias non-zero.
func initCheckpoint(symbolPath, prefix string) error {
	sym, err := weft.LoadSymbol(symbolPath)
	if err != nil {
		return err
	}
	defer sym.Close()
	ex, err := weft.SimpleBind(sym, map[string][]int64{"data": {1, 1, 28, 28}}, "null")
	if err != nil {
		return err
	}
	defer ex.Close()
	args, err := ex.ArgArrays()
	if err != nil {
		return err
	}
	defer weft.CloseAll(args)
	init, err := weft.NewInitializer("xavier", nil, 7)
	if err != nil {
		return err
	}
	defer init.Close()
	weights := map[string]*weft.NDArray{}
	for name, a := range args {
		if name == "data" || name == "softmax_label" {
			continue
		}
		if err := init.Init(name, a); err != nil {
			return err
		}
		weights[name] = a
	}
	if b, ok := weights["fc2_bias"]; ok {
		v := make([]float32, 10)
		for i := range v {
			v[i] = 0.1 * float32(i%3)
		}
		if err := b.CopyFromFloat32(v); err != nil {
			return err
		}
	}
	return weft.SaveCheckpoint(prefix, 0, sym, weights, nil)
}
