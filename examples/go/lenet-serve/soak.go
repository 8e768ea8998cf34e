package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	weft "github.com/weft-ai/weft/go"
)

// soak is bench/soak's loop through the Go binding: a predictor with input
// "data" of shape called `calls` times, printing seconds, calls, resident
// memory (MB) and live handles every `interval`, then closing it and
// printing the live handles again. It fails when a call fails or the live
// handles do not return to their count before the predictor was created.
func soak(symbol, params string, calls int, shapeArg string, interval time.Duration) error {
	shape, err := parseShape(shapeArg)
	if err != nil || calls <= 0 || interval <= 0 {
		return fmt.Errorf("soak: bad -calls, -shape or -interval (%v)", err)
	}
	live0 := weft.LiveHandleCount()
	p, err := weft.LoadPredictorFiles(symbol, params,
		weft.PredictorConfig{Inputs: []weft.PredictorInput{{Name: "data", Shape: shape}}})
	if err != nil {
		return err
	}
	outShape, err := p.OutputShape(0, shape)
	if err != nil {
		p.Close()
		return err
	}
	in := make([]float32, product(shape))
	for i := range in {
		in[i] = float32(i%251) / 251
	}
	out := make([]float32, product(outShape))
	ctx := context.Background()
	fmt.Printf("%10s %12s %10s %8s\n", "seconds", "calls", "rss_mb", "handles")
	t0 := time.Now()
	next := t0.Add(interval)
	warm, last, peak := -1.0, 0.0, 0.0
	for c := 0; c < calls; c++ {
		if err := p.PredictShape(ctx, in, shape, out); err != nil {
			p.Close()
			return fmt.Errorf("call %d: %w", c, err)
		}
		if now := time.Now(); !now.Before(next) || c+1 == calls {
			last = rssMB()
			if warm < 0 && c >= calls/10 { // after warm-up: 10 % of the calls
				warm = last
			}
			if last > peak {
				peak = last
			}
			fmt.Printf("%10.1f %12d %10.1f %8d\n", now.Sub(t0).Seconds(), c+1, last, weft.LiveHandleCount())
			next = next.Add(interval)
		}
	}
	p.Close()
	growth := 0.0
	if warm > 0 {
		growth = 100 * (last - warm) / warm
	}
	fmt.Printf("calls %d in %.1f s; rss after warm-up %.1f MB, at the end %.1f MB (%+.1f %%), peak %.1f MB; "+
		"live handles %d -> %d after free\n", calls, time.Since(t0).Seconds(), warm, last, growth, peak, live0,
		weft.LiveHandleCount())
	if weft.LiveHandleCount() != live0 {
		return fmt.Errorf("soak: live handles did not return to %d", live0)
	}
	return nil
}

func parseShape(s string) ([]int64, error) {
	var dims []int64
	for _, f := range strings.Split(s, ",") {
		d, err := strconv.ParseInt(f, 10, 64)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("shape %q: expected positive extents like 1,1,28,28", s)
		}
		dims = append(dims, d)
	}
	return dims, nil
}

func product(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// rssMB is the resident memory in MB (/proc/self/statm: pages).
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		return -1
	}
	return pages * float64(os.Getpagesize()) / (1024 * 1024)
}
