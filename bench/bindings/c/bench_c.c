/*
 * bench_c: the C baseline for scripts/bench_bindings.sh.
 * Prints "<name> <ns per op>" lines:
 *   version_call   weft_abi_version()              (trivial C ABI call)
 *   shape_query    weft_ndarray_ndim() on an array (handle lookup + status)
 *   copy_1m_inout  weft_ndarray_copy_from + copy_to of 1M floats (caller memory)
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "weft/c_api.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int fail(const char* what) {
  fprintf(stderr, "bench_c: %s failed: %s\n", what, weft_last_error());
  return 1;
}

int main(void) {
  const long calls = 5000000;
  const int copies = 200;
  const int64_t n = 1 << 20;
  int64_t shape[1] = {n};
  int64_t small[2] = {2, 3};
  WeftNDArray* a = NULL;
  WeftNDArray* s = NULL;
  volatile int sink = 0;
  int nd = 0;
  float* buf = (float*)malloc((size_t)n * sizeof(float));
  long i;
  double t0, t;
  if (!buf) return 1;
  for (i = 0; i < n; ++i) buf[i] = (float)i;
  if (weft_ndarray_create(shape, 1, WEFT_FLOAT32, WEFT_CPU, 0, &a) != WEFT_OK)
    return fail("create");
  if (weft_ndarray_create(small, 2, WEFT_FLOAT32, WEFT_CPU, 0, &s) != WEFT_OK)
    return fail("create");

  for (i = 0; i < calls / 10; ++i) sink += weft_abi_version();
  t0 = now_ns();
  for (i = 0; i < calls; ++i) sink += weft_abi_version();
  t = now_ns() - t0;
  printf("version_call %.1f\n", t / (double)calls);

  t0 = now_ns();
  for (i = 0; i < calls; ++i) {
    if (weft_ndarray_ndim(s, &nd) != WEFT_OK) return fail("ndim");
    sink += nd;
  }
  t = now_ns() - t0;
  printf("shape_query %.1f\n", t / (double)calls);

  for (i = 0; i < 10; ++i) {
    weft_ndarray_copy_from(a, buf, (size_t)n * sizeof(float));
    weft_ndarray_copy_to(a, buf, (size_t)n * sizeof(float));
  }
  t0 = now_ns();
  for (i = 0; i < copies; ++i) {
    if (weft_ndarray_copy_from(a, buf, (size_t)n * sizeof(float)) != WEFT_OK)
      return fail("copy_from");
    if (weft_ndarray_copy_to(a, buf, (size_t)n * sizeof(float)) != WEFT_OK) return fail("copy_to");
  }
  t = now_ns() - t0;
  printf("copy_1m_inout %.1f\n", t / (double)copies);
  weft_ndarray_free(a);
  weft_ndarray_free(s);
  free(buf);
  return sink == -1;
}
