package main

// The HTTP service: POST /predict with one 28x28 image (JSON or raw
// float32), answered by a shared weft.Predictor (safe from every handler
// goroutine at once).

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strings"

	weft "github.com/weft-ai/weft/go"
)

const pixels = 28 * 28

// Answer is the service's reply.
type Answer struct {
	Class         int       `json:"class"`
	Probabilities []float32 `json:"probabilities"`
}

// decodeImage reads one image from a request body: raw little-endian
// float32 (application/octet-stream) or a JSON array of numbers.
func decodeImage(contentType string, body io.Reader) ([]float32, error) {
	img := make([]float32, pixels)
	if strings.HasPrefix(contentType, "application/octet-stream") {
		raw, err := io.ReadAll(io.LimitReader(body, 4*pixels+1))
		if err != nil {
			return nil, err
		}
		if len(raw) != 4*pixels {
			return nil, fmt.Errorf("raw body has %d bytes, expected %d (784 little-endian float32)", len(raw), 4*pixels)
		}
		for i := range img {
			img[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return img, nil
	}
	var v []float32
	dec := json.NewDecoder(io.LimitReader(body, 64*pixels))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("body is not a JSON array of numbers: %v", err)
	}
	if len(v) != pixels {
		return nil, fmt.Errorf("JSON array has %d numbers, expected %d (one 28x28 image)", len(v), pixels)
	}
	return v, nil
}

// classify runs one image through p.
func classify(ctx context.Context, p *weft.Predictor, img []float32) (Answer, error) {
	probs := make([]float32, 10)
	if err := p.Predict(ctx, img, probs); err != nil {
		return Answer{}, err
	}
	best := 0
	for k, v := range probs {
		if v > probs[best] {
			best = k
		}
	}
	return Answer{Class: best, Probabilities: probs}, nil
}

func writeJSON(w http.ResponseWriter, status int, v interface{}) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// handler serves POST /predict.
func handler(p *weft.Predictor) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/predict", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "POST an image to /predict"})
			return
		}
		img, err := decodeImage(r.Header.Get("Content-Type"), r.Body)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		// The request's context: a client gone before the call starts costs
		// no inference.
		a, err := classify(r.Context(), p, img)
		if err != nil {
			status := http.StatusInternalServerError
			var we *weft.Error
			if errors.As(err, &we) && (we.Code == weft.InvalidArgument || we.Code == weft.ShapeError) {
				status = http.StatusBadRequest
			} else if errors.Is(err, context.Canceled) {
				return // nobody is listening
			}
			writeJSON(w, status, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, a)
	})
	return mux
}

// serve listens on addr until the process is killed.
func serve(symbol, params, maxExec, addr string) error {
	return loadWithPredictor(symbol, params, maxExec, func(p *weft.Predictor) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		fmt.Printf("serving LeNet on http://%s/predict\n", ln.Addr())
		return http.Serve(ln, handler(p))
	})
}

// readerPredictor loads the LeNet predictor through weft.LoadPredictor.
func readerPredictor(symbol, params string) (*weft.Predictor, error) {
	s, err := os.Open(symbol)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	p, err := os.Open(params)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return weft.LoadPredictor(s, p, weft.PredictorConfig{
		Inputs: []weft.PredictorInput{{Name: "data", Shape: []int64{1, 1, 28, 28}}}})
}

// selftest serves on 127.0.0.1 (a free port), loads the server with n
// requests from c clients and shuts it down.
func selftest(symbol, params, maxExec string, n, c int) error {
	return loadWithPredictor(symbol, params, maxExec, func(p *weft.Predictor) error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: handler(p)}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		base := "http://" + ln.Addr().String()
		// The answers are checked with a second predictor, loaded from
		// memory (io.Reader) rather than from the files.
		direct, err := readerPredictor(symbol, params)
		if err != nil {
			return err
		}
		defer direct.Close()
		testErr := load(base, direct, n, c)
		if testErr == nil {
			testErr = checkBadRequests(base) // answered 400 with the reason
		}
		if err := srv.Shutdown(context.Background()); err != nil {
			return err
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return testErr
	})
}
