package main

// The bounded load generator (n requests, c clients, then it stops) and the
// predict-call bench.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	weft "github.com/weft-ai/weft/go"
)

// image returns pseudo-random image i (a fixed LCG per index).
func image(i int) []float32 {
	img := make([]float32, pixels)
	s := uint32(i)*2654435761 + 12345
	for k := range img {
		s = s*1664525 + 1013904223
		img[k] = float32(s>>8) / float32(1<<24)
	}
	return img
}

// post sends image i (raw float32 when raw, else JSON) and decodes the answer.
func post(client *http.Client, url string, img []float32, raw bool) (Answer, error) {
	var body []byte
	ctype := "application/json"
	if raw {
		ctype = "application/octet-stream"
		body = make([]byte, 4*len(img))
		for k, v := range img {
			binary.LittleEndian.PutUint32(body[4*k:], math.Float32bits(v))
		}
	} else {
		var err error
		if body, err = json.Marshal(img); err != nil {
			return Answer{}, err
		}
	}
	resp, err := client.Post(url+"/predict", ctype, bytes.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return Answer{}, fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(text)))
	}
	var a Answer
	if err := json.Unmarshal(text, &a); err != nil {
		return Answer{}, fmt.Errorf("answer %q: %v", text, err)
	}
	return a, nil
}

// load sends n requests from c concurrent clients, checks each answer
// against a direct Predict of the same image with p, and prints
// throughput and latency percentiles.
func load(url string, p *weft.Predictor, n, c int) error {
	if n < 1 || c < 1 {
		return fmt.Errorf("-n %d -c %d: both must be at least 1", n, c)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	jobs := make(chan int)
	lat := make([]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				img := image(i)
				t0 := time.Now()
				a, err := post(client, url, img, i%2 == 1)
				lat[i] = time.Since(t0)
				if err == nil {
					err = sameAsDirect(p, img, a)
				}
				errs[i] = err
			}
		}()
	}
	for i := 0; i < n; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	bad := 0
	for i, err := range errs {
		if err != nil {
			if bad < 5 {
				fmt.Printf("request %d: %v\n", i, err)
			}
			bad++
		}
	}
	sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
	pct := func(q float64) time.Duration { return lat[int(math.Ceil(q*float64(n)))-1] }
	fmt.Printf("%d requests, %d clients: %.1f requests/s, p50 %.2f ms, p99 %.2f ms, %d wrong or failed\n",
		n, c, float64(n)/elapsed.Seconds(), ms(pct(0.50)), ms(pct(0.99)), bad)
	if bad > 0 {
		return fmt.Errorf("%d of %d answers wrong or failed", bad, n)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// sameAsDirect checks the service's answer against Predict in this process.
func sameAsDirect(p *weft.Predictor, img []float32, a Answer) error {
	want, err := classify(context.Background(), p, img)
	if err != nil {
		return err
	}
	if a.Class != want.Class || len(a.Probabilities) != len(want.Probabilities) {
		return fmt.Errorf("class %d (%d probabilities), direct predict gives %d", a.Class, len(a.Probabilities), want.Class)
	}
	for k := range want.Probabilities {
		if a.Probabilities[k] != want.Probabilities[k] {
			return fmt.Errorf("probability %d is %v, direct predict gives %v", k, a.Probabilities[k], want.Probabilities[k])
		}
	}
	return nil
}

// checkBadRequests expects 400 with a reason for malformed images.
func checkBadRequests(url string) error {
	cases := []struct{ ctype, body, reason string }{
		{"application/json", "[1, 2, 3]", "3 numbers"},
		{"application/json", "{not json", "not a JSON array"},
		{"application/octet-stream", "abcd", "4 bytes"},
	}
	for _, tc := range cases {
		resp, err := http.Post(url+"/predict", tc.ctype, strings.NewReader(tc.body))
		if err != nil {
			return err
		}
		text, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(text), tc.reason) {
			return fmt.Errorf("bad request %q: status %d %q, expected 400 naming %q", tc.body, resp.StatusCode, text, tc.reason)
		}
	}
	fmt.Printf("%d malformed requests answered 400 with the reason\n", len(cases))
	return nil
}

// bench prints the median ns of one predict call (1 thread, one sample,
// rounds of 100 calls, the first tenth dropped as warm-up), from Go
// (Predictor.Predict) and from C (weft_predictor_predict_float in a C loop,
// bench_c.go), for the LeNet checkpoint and for a tiny model (relu over 10
// floats, no weights) whose time is almost all call overhead: the binding,
// the predictor's executor pool and the copies in and out.
func bench(symbol, params string, calls int) error {
	js, err := os.ReadFile(symbol)
	if err != nil {
		return err
	}
	pb, err := os.ReadFile(params)
	if err != nil {
		return err
	}
	if err := benchPair("lenet", string(js), pb, []int64{1, 1, 28, 28}, image(0), 10, calls); err != nil {
		return err
	}
	tjs, tpb, err := tinyModel()
	if err != nil {
		return err
	}
	return benchPair("tiny relu(1x10)", tjs, tpb, []int64{1, 10}, image(1)[:10], 10, calls*10)
}

func benchPair(name, js string, params []byte, shape []int64, in []float32, outLen, calls int) error {
	p, err := weft.NewPredictor(js, params, weft.PredictorConfig{
		Inputs:  []weft.PredictorInput{{Name: "data", Shape: shape}},
		Options: map[string]string{"max_executors": "1"}})
	if err != nil {
		return err
	}
	defer p.Close()
	cb, err := openCBench(js, params, shape, in, outLen)
	if err != nil {
		return err
	}
	defer cb.close()
	ctx := context.Background()
	out := make([]float32, outLen)
	const round = 100
	var goNs, cNs []float64
	for r := 0; r*round < calls || r < 3; r++ { // Go and C rounds alternate
		t0 := time.Now()
		for i := 0; i < round; i++ {
			if err := p.Predict(ctx, in, out); err != nil {
				return err
			}
		}
		goNs = append(goNs, float64(time.Since(t0).Nanoseconds())/round)
		ns, err := cb.round(round)
		if err != nil {
			return err
		}
		cNs = append(cNs, ns)
	}
	fmt.Printf("Go Predict       %s: median %.0f ns/call over %d rounds of %d calls\n", name, median(goNs), len(goNs), round)
	fmt.Printf("C  predict_float %s: median %.0f ns/call over %d rounds of %d calls\n", name, median(cNs), len(cNs), round)
	return nil
}

// median of v after dropping its first tenth (warm-up).
func median(v []float64) float64 {
	v = append([]float64(nil), v[len(v)/10:]...)
	sort.Float64s(v)
	return v[len(v)/2]
}

// tinyModel is relu over a (1,10) input: its JSON and an empty .params.
func tinyModel() (string, []byte, error) {
	x, err := weft.Variable("data")
	if err != nil {
		return "", nil, err
	}
	defer x.Close()
	y, err := weft.Apply("Activation", "relu", weft.Params{"act_type": "relu"}, x)
	if err != nil {
		return "", nil, err
	}
	defer y.Close()
	js, err := y.JSON()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "lenet-serve-bench")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(dir)
	empty := filepath.Join(dir, "empty.params")
	if err := weft.SaveParams(empty, map[string]*weft.NDArray{}); err != nil {
		return "", nil, err
	}
	params, err := os.ReadFile(empty)
	return js, params, err
}
