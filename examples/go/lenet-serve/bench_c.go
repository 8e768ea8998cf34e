package main

// The C side of the predict-call bench: the same calls as the Go loop,
// written in C against the C ABI (weft_predictor_predict_float) and timed in
// C, so the difference from the Go figure is the binding's cost per call.
// Go and C rounds alternate (benchPair), so both see the same machine load.

/*
#cgo pkg-config: weft
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "weft/c_api.h"

// A predictor with one input "data" of `shape` and max_executors 1, or NULL
// with weft_last_error() copied into err (256 bytes).
static WeftPredictor* bench_c_open(const char* json, const void* params, size_t params_size,
                                   const int64_t* shape, size_t ndim, char* err) {
  const char* names[] = {"data"};
  size_t ind_ptr[] = {0, ndim};
  const char* keys[] = {"max_executors"};
  const char* vals[] = {"1"};
  WeftPredictor* p = NULL;
  if (weft_predictor_create(json, params, params_size, 1, names, ind_ptr, shape, 1, 0, 0, NULL, 1, keys, vals,
                            &p) == WEFT_OK)
    return p;
  const char* m = weft_last_error();
  size_t i = 0;
  for (; m[i] && i < 255; ++i) err[i] = m[i];
  err[i] = 0;
  return NULL;
}

// ns per call of `round` calls, or -1 on an error (left in weft_last_error()).
static double bench_c_round(WeftPredictor* p, const float* in, size_t in_len, const int64_t* shape,
                            size_t ndim, float* out, size_t out_len, int round) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < round; ++i)
    if (weft_predictor_predict_float(p, in, in_len, shape, ndim, out, out_len) != WEFT_OK) return -1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / round;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// cBench is one C predictor and the C memory its calls read and write.
type cBench struct {
	p        *C.WeftPredictor
	shape    *C.int64_t
	ndim     int
	in, out  *C.float
	nin, nou int
}

func openCBench(json string, params []byte, shape []int64, in []float32, outLen int) (*cBench, error) {
	cjson := C.CString(json)
	defer C.free(unsafe.Pointer(cjson))
	cparams := C.CBytes(params)
	defer C.free(cparams)
	cerr := (*C.char)(C.malloc(256))
	defer C.free(unsafe.Pointer(cerr))
	b := &cBench{
		shape: (*C.int64_t)(C.CBytes(int64Bytes(shape))), ndim: len(shape),
		in: (*C.float)(C.CBytes(float32Bytes(in))), nin: len(in),
		out: (*C.float)(C.malloc(C.size_t(4 * outLen))), nou: outLen,
	}
	b.p = C.bench_c_open(cjson, cparams, C.size_t(len(params)), b.shape, C.size_t(len(shape)), cerr)
	if b.p == nil {
		b.close()
		return nil, fmt.Errorf("C bench: %s", C.GoString(cerr))
	}
	return b, nil
}

// round times `calls` predict calls made from C; it returns ns per call.
func (b *cBench) round(calls int) (float64, error) {
	ns := C.bench_c_round(b.p, b.in, C.size_t(b.nin), b.shape, C.size_t(b.ndim), b.out, C.size_t(b.nou), C.int(calls))
	if ns < 0 {
		return 0, fmt.Errorf("C bench: %s", C.GoString(C.weft_last_error()))
	}
	return float64(ns), nil
}

func (b *cBench) close() {
	if b.p != nil {
		C.weft_predictor_free(b.p)
	}
	C.free(unsafe.Pointer(b.shape))
	C.free(unsafe.Pointer(b.in))
	C.free(unsafe.Pointer(b.out))
}

func int64Bytes(v []int64) []byte {
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))...)
}

func float32Bytes(v []float32) []byte {
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))...)
}
