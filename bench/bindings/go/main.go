// Command weftbench is the Go side of scripts/bench_bindings.sh. It prints
// "<name> <ns per op>":
//
//	version_call   weft.ABIVersion() (one cgo call into weft_abi_version)
//	shape_query    NDArray.NDim() (cgo + handle lookup + out-parameter + status)
//	copy_1m_inout  copy 1M floats in and out: zero-copy (the slice is passed)
//	copy_1m_inout_copying  the same allocating a new slice per read (ToFloat32)
package main

import (
	"fmt"
	"os"
	"time"

	weft "github.com/weft-ai/weft/go"
)

var sink int

func main() {
	const calls, copies, n = 2000000, 200, 1 << 20
	a, err := weft.NewNDArray(weft.Float32, n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer a.Close()
	s, _ := weft.NewNDArray(weft.Float32, 2, 3)
	defer s.Close()
	buf := make([]float32, n)
	per := func(start time.Time, k int) float64 { return float64(time.Since(start).Nanoseconds()) / float64(k) }
	for r := 0; r < 3; r++ {
		t0 := time.Now()
		for i := 0; i < calls; i++ {
			sink += weft.ABIVersion()
		}
		version := per(t0, calls)
		t0 = time.Now()
		for i := 0; i < calls; i++ {
			d, _ := s.NDim()
			sink += d
		}
		shape := per(t0, calls)
		t0 = time.Now()
		for i := 0; i < copies; i++ {
			a.CopyFromFloat32(buf)
			a.CopyToFloat32(buf)
		}
		zero := per(t0, copies)
		t0 = time.Now()
		for i := 0; i < copies; i++ {
			a.CopyFromFloat32(buf)
			buf, _ = a.ToFloat32()
		}
		copying := per(t0, copies)
		if r == 2 {
			fmt.Printf("version_call %.1f\nshape_query %.1f\ncopy_1m_inout %.1f\ncopy_1m_inout_copying %.1f\n",
				version, shape, zero, copying)
		}
	}
}
