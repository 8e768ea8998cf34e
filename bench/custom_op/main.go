// Go side of bench/bench_custom_op.sh (see bench_custom_op.c): prints "<name> <us>".
package main

import (
	"fmt"
	"time"

	weft "github.com/weft-ai/weft/go"
)

type identityProp struct{ weft.CustomOpDefaults }
type identityOp struct{}

func (identityProp) InferShape(in [][]int64) ([][]int64, error) { return [][]int64{in[0]}, nil }
func (identityProp) CreateOperator(weft.Context, [][]int64, []weft.DType) (weft.CustomOp, error) {
	return identityOp{}, nil
}

func (identityOp) Forward(isTrain bool, req []weft.GradReq, in, out, aux []*weft.NDArray) error {
	src, err := in[0].Float32Data()
	if err != nil {
		return err
	}
	dst, err := out[0].Float32Data()
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

func (identityOp) Backward(req []weft.GradReq, og, in, out, ig, aux []*weft.NDArray) error {
	return nil
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

func bench(node string, n int64, iters int) float64 {
	sym, err := weft.SymbolFromJSON(`{"nodes": [{"op": "null", "name": "x", "inputs": []}, ` + node +
		`], "arg_nodes": [0], "heads": [[1, 0, 0]]}`)
	check(err)
	defer sym.Close()
	ex, err := weft.SimpleBind(sym, map[string][]int64{"x": {n}}, "null")
	check(err)
	defer ex.Close()
	outs, err := ex.Outputs()
	check(err)
	out := outs[0].Array
	defer out.Close()
	var t0 time.Time
	for i := -iters / 10; i < iters; i++ {
		if i == 0 {
			t0 = time.Now()
		}
		check(ex.Forward(false))
		check(out.WaitToRead())
	}
	return float64(time.Since(t0).Microseconds()) / float64(iters)
}

func main() {
	builtin := `{"op": "identity", "name": "y", "inputs": [[0, 0, 0]]}`
	custom := `{"op": "Custom", "name": "y", "attrs": {"op_type": "bench_identity"}, "inputs": [[0, 0, 0]]}`
	check(weft.RegisterCustomOp("bench_identity", func(map[string]string) (weft.CustomOpProp, error) {
		return identityProp{}, nil
	}))
	defer weft.UnregisterCustomOp("bench_identity")
	fmt.Printf("builtin_1 %.2f\n", bench(builtin, 1, 20000))
	fmt.Printf("custom_1 %.2f\n", bench(custom, 1, 20000))
	fmt.Printf("builtin_1m %.2f\n", bench(builtin, 1<<20, 300))
	fmt.Printf("custom_1m %.2f\n", bench(custom, 1<<20, 300))
}
