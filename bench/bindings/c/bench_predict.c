/*
 * bench_predict: the C baseline of the bindings' predict-call benches.
 *   weft_bench_predict_c SYMBOL_JSON PARAMS CALLS
 * Loads a LeNet-shaped checkpoint (input "data" of (1,1,28,28), one float32
 * output) into a predictor with max_executors 1 and prints the median ns per
 * weft_predictor_predict_float() call of one deterministic image over CALLS
 * calls from one thread, after CALLS/10 warm-up calls. The Java harness
 * (`lenet-load-java bench SYMBOL_JSON PARAMS CALLS`) uses the same image and
 * options.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "weft/c_api.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  const char* inputs[1] = {"data"};
  const size_t ind_ptr[2] = {0, 4};
  const int64_t shape[4] = {1, 1, 28, 28};
  const char* keys[1] = {"max_executors"};
  const char* values[1] = {"1"};
  WeftPredictor* p = NULL;
  float x[784];
  float out[64];
  int64_t dims[8];
  size_t ndim = 0, n_out = 1, i;
  long calls;
  int64_t* t;
  if (argc != 4 || (calls = atol(argv[3])) <= 0) {
    fprintf(stderr, "usage: weft_bench_predict_c SYMBOL_JSON PARAMS CALLS\n");
    return 2;
  }
  for (i = 0; i < 784; ++i) x[i] = (float)(i * 37 % 256) / 255.0f;
  if (weft_predictor_create_from_files(argv[1], argv[2], 1, inputs, ind_ptr, shape, WEFT_CPU, 0, 0,
                                       NULL, 1, keys, values, &p) != WEFT_OK ||
      weft_predictor_output_shape(p, 1, ind_ptr, shape, 0, dims, 8, &ndim) != WEFT_OK) {
    fprintf(stderr, "weft_bench_predict_c: %s\n", weft_last_error());
    weft_predictor_free(p);
    return 1;
  }
  for (i = 0; i < ndim; ++i) n_out *= (size_t)dims[i];
  t = (int64_t*)malloc((size_t)calls * sizeof(int64_t));
  if (!t || n_out > 64) {
    fprintf(stderr, "weft_bench_predict_c: %s\n",
            t ? "output larger than 64 floats" : "out of memory");
    free(t);
    weft_predictor_free(p);
    return 1;
  }
  for (i = 0; i < (size_t)(calls / 10 > 10 ? calls / 10 : 10); ++i) {
    if (weft_predictor_predict_float(p, x, 784, shape, 4, out, n_out) != WEFT_OK) {
      fprintf(stderr, "weft_bench_predict_c: %s\n", weft_last_error());
      free(t);
      weft_predictor_free(p);
      return 1;
    }
  }
  for (i = 0; i < (size_t)calls; ++i) {
    int64_t s = now_ns();
    weft_predictor_predict_float(p, x, 784, shape, 4, out, n_out);
    t[i] = now_ns() - s;
  }
  qsort(t, (size_t)calls, sizeof(int64_t), cmp_i64);
  printf("c predict, %ld calls, 1 thread: median %lld ns/call\n", calls, (long long)t[calls / 2]);
  free(t);
  weft_predictor_free(p);
  return 0;
}
