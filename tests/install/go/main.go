// Command weftconsumer is built by tests/install/run_go.sh against an installed
// libweft (cgo flags from the installed weft.pc): it prints the versions, runs
// relu on a 2x3 array and checks the result. Prints "weft go consumer ok" on
// success, exits 1 otherwise.
package main

import (
	"fmt"
	"os"

	weft "github.com/weft-ai/weft/go"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "weftconsumer: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	x, err := weft.FromFloat32([]float32{-1, 2, -3, 4, -5, 6}, 2, 3)
	if err != nil {
		fail("%v", err)
	}
	y, err := weft.Call("relu", nil, x)
	if err != nil {
		fail("%v", err)
	}
	out := make([]float32, 6)
	if err := y.CopyToFloat32(out); err != nil {
		fail("%v", err)
	}
	want := []float32{0, 2, 0, 4, 0, 6}
	for i := range want {
		if out[i] != want[i] {
			fail("relu gave %v, want %v", out, want)
		}
	}
	if err := y.Close(); err != nil {
		fail("%v", err)
	}
	if err := x.Close(); err != nil {
		fail("%v", err)
	}
	if n := weft.LiveHandleCount(); n != 0 {
		fail("%d handles left", n)
	}
	fmt.Printf("weft go consumer ok: weft %s, ABI %d\n", weft.Version(), weft.ABIVersion())
}
