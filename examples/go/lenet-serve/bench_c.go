package main

// The C side of the predict-call bench: the same loop as benchOne, written
// in C against the C ABI (weft_predictor_predict_float), timed in C, so the
// difference from the Go figure is the binding's cost per call.

/*
#cgo pkg-config: weft
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "weft/c_api.h"

// Creates a predictor (one input "data" of `shape`, max_executors 1) and
// fills ns_per_call[r] for `rounds` rounds of `round` calls. Returns 0, or
// -1 with weft_last_error() copied into err (256 bytes).
static int bench_c(const char* json, const void* params, size_t params_size, const int64_t* shape,
                   size_t ndim, const float* in, size_t in_len, float* out, size_t out_len,
                   int rounds, int round, double* ns_per_call, char* err) {
  const char* names[] = {"data"};
  size_t ind_ptr[] = {0, ndim};
  const char* keys[] = {"max_executors"};
  const char* vals[] = {"1"};
  WeftPredictor* p = NULL;
  WeftStatus st = weft_predictor_create(json, params, params_size, 1, names, ind_ptr, shape, 1, 0, 0,
                                        NULL, 1, keys, vals, &p);
  for (int r = 0; st == WEFT_OK && r < rounds; ++r) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; st == WEFT_OK && i < round; ++i)
      st = weft_predictor_predict_float(p, in, in_len, shape, ndim, out, out_len);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ns_per_call[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / round;
  }
  if (st != WEFT_OK) {
    const char* m = weft_last_error();
    size_t i = 0;
    for (; m[i] && i < 255; ++i) err[i] = m[i];
    err[i] = 0;
  }
  weft_predictor_free(p);
  return st == WEFT_OK ? 0 : -1;
}
*/
import "C"

import (
	"fmt"
	"sort"
	"unsafe"
)

// benchC runs benchOne's loop in C: one float32 input of shape, one output
// of outLen floats, calls rounded up to whole rounds of 100. It prints the
// median ns per call of the rounds after the first tenth.
func benchC(name, json string, params []byte, shape []int64, in []float32, outLen, calls int) error {
	const round = 100
	rounds := (calls + round - 1) / round
	if rounds < 3 {
		rounds = 3
	}
	// Everything the C code reads or writes lives in C memory.
	cjson := C.CString(json)
	defer C.free(unsafe.Pointer(cjson))
	cparams := C.CBytes(params)
	defer C.free(cparams)
	cshape := (*C.int64_t)(C.CBytes(int64Bytes(shape)))
	defer C.free(unsafe.Pointer(cshape))
	cin := (*C.float)(C.CBytes(float32Bytes(in)))
	defer C.free(unsafe.Pointer(cin))
	cout := (*C.float)(C.malloc(C.size_t(4 * outLen)))
	defer C.free(unsafe.Pointer(cout))
	cns := (*C.double)(C.malloc(C.size_t(8 * rounds)))
	defer C.free(unsafe.Pointer(cns))
	cerr := (*C.char)(C.malloc(256))
	defer C.free(unsafe.Pointer(cerr))
	if C.bench_c(cjson, cparams, C.size_t(len(params)), cshape, C.size_t(len(shape)), cin, C.size_t(len(in)),
		cout, C.size_t(outLen), C.int(rounds), round, cns, cerr) != 0 {
		return fmt.Errorf("C bench %s: %s", name, C.GoString(cerr))
	}
	per := append([]float64(nil), unsafe.Slice((*float64)(unsafe.Pointer(cns)), rounds)...)
	per = per[len(per)/10:]
	sort.Float64s(per)
	fmt.Printf("C  predict_float %s: median %.0f ns/call over %d rounds of %d calls\n", name, per[len(per)/2], len(per), round)
	return nil
}

func int64Bytes(v []int64) []byte {
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))...)
}

func float32Bytes(v []float32) []byte {
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))...)
}
