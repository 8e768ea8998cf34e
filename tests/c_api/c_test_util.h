/*
 * Shared helpers of the C ABI tests (CMocka, C99): status checks that print
 * the library's message, leak baselines, and small array builders. Each
 * .c file under tests/c_api is its own test binary and includes this once.
 */
#ifndef WEFT_TESTS_C_API_C_TEST_UTIL_H_
#define WEFT_TESTS_C_API_C_TEST_UTIL_H_

/* cmocka.h needs these four headers first. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "weft/c_api.h"

/* ------------------------------------------------------------- helpers */

/* Fails the test with the library's message when `call` is not WEFT_OK. */
#define OK(call)                                                                        \
  do {                                                                                  \
    WeftStatus ok_status_ = (call);                                                     \
    if (ok_status_ != WEFT_OK)                                                          \
      fail_msg("%s:%d: %s returned %d: %s", __FILE__, __LINE__, #call, (int)ok_status_, \
               weft_last_error());                                                      \
  } while (0)

/* Asserts that `call` fails with `code` and that weft_last_error() contains
 * every given substring (at least one). */
#define EXPECT_ERR(call, code, ...) \
  check_error((call), (code), #call, __LINE__, __VA_ARGS__, (const char*)NULL)

static inline void check_error(WeftStatus got, WeftStatus want, const char* what, int line, ...) {
  const char* msg = weft_last_error();
  va_list ap;
  const char* sub;
  if (got != want)
    fail_msg("line %d: %s returned %d, expected %d (last error: %s)", line, what, (int)got,
             (int)want, msg);
  if (weft_last_error_code() != want)
    fail_msg("line %d: %s: weft_last_error_code() is %d, expected %d", line, what,
             (int)weft_last_error_code(), (int)want);
  va_start(ap, line);
  while ((sub = va_arg(ap, const char*)) != NULL) {
    if (strstr(msg, sub) == NULL) {
      va_end(ap);
      fail_msg("line %d: %s: message \"%s\" does not contain \"%s\"", line, what, msg, sub);
    }
  }
  va_end(ap);
}

static inline size_t cpu_live_bytes(void) {
  size_t live = 0, pooled = 0;
  OK(weft_storage_stats(WEFT_CPU, 0, &live, &pooled));
  return live;
}

/* Baselines recorded by setup() before each test. */
static size_t g_start_handles;
static size_t g_start_bytes;

static inline int setup(void** state) {
  (void)state;
  g_start_handles = weft_live_handle_count();
  g_start_bytes = cpu_live_bytes();
  return 0;
}

/* Every test ends with this: nothing leaked. Memory is returned when the
 * engine work using it is done (forward/backward are asynchronous), so it
 * waits for all pending work first. */
static inline void assert_no_leaks(void) {
  OK(weft_wait_all());
  assert_int_equal(weft_live_handle_count(), g_start_handles);
  assert_int_equal(cpu_live_bytes(), g_start_bytes);
}

/* A float32 cpu(0) array of `shape` filled from `data` (may be NULL). */
static inline WeftNDArray* make_f32(const int64_t* shape, int ndim, const float* data) {
  WeftNDArray* a = NULL;
  int64_t n = 0;
  OK(weft_ndarray_create(shape, ndim, WEFT_FLOAT32, WEFT_CPU, 0, &a));
  OK(weft_ndarray_size(a, &n));
  if (data) OK(weft_ndarray_copy_from(a, data, (size_t)n * sizeof(float)));
  return a;
}

/* Copies `n` float32 values of `a` into `out`. */
static inline void read_f32(const WeftNDArray* a, float* out, size_t n) {
  OK(weft_ndarray_copy_to(a, out, n * sizeof(float)));
}

static inline void assert_floats(const float* got, const float* want, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (fabsf(got[i] - want[i]) > 1e-5f * (1.0f + fabsf(want[i])))
      fail_msg("element %d: got %g, expected %g", (int)i, (double)got[i], (double)want[i]);
  }
}

/* Runs quadratic(a, b, c) on `x` (one output), returning the new handle. */
static inline WeftNDArray* run_quadratic(WeftNDArray* x, const char* a, const char* b,
                                         const char* c) {
  const char* keys[] = {"a", "b", "c"};
  const char* vals[3];
  WeftNDArray* out[1] = {NULL};
  size_t n = 0;
  vals[0] = a;
  vals[1] = b;
  vals[2] = c;
  OK(weft_op_invoke("quadratic", &x, 1, keys, vals, 3, out, 1, &n));
  assert_int_equal(n, 1);
  return out[0];
}

/* A handle value that was never issued by the library. */
#define FAKE_HANDLE(bits) ((WeftNDArray*)(uintptr_t)(bits))

#define TEST(f) cmocka_unit_test_setup(f, setup)

#endif /* WEFT_TESTS_C_API_C_TEST_UTIL_H_ */
