/*
 * The C ABI test: pure C99 against libweft.so (CMocka).
 *
 * Every function of weft/c_api.h is exercised on its happy path and on its
 * error paths (NULL arguments, invalid and freed handles, bad shapes, dtypes,
 * devices and parameters). Each test ends by asserting that the number of
 * live handles and the live bytes of the cpu(0) pool are back to their values
 * at the start of the test. Thread-locality of the last error is tested on
 * the C++ side; this file stays single-threaded.
 */
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

static void check_error(WeftStatus got, WeftStatus want, const char* what, int line, ...) {
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

static size_t cpu_live_bytes(void) {
  size_t live = 0, pooled = 0;
  OK(weft_storage_stats(WEFT_CPU, 0, &live, &pooled));
  return live;
}

/* Baselines recorded by setup() before each test. */
static size_t g_start_handles;
static size_t g_start_bytes;

static int setup(void** state) {
  (void)state;
  g_start_handles = weft_live_handle_count();
  g_start_bytes = cpu_live_bytes();
  return 0;
}

/* Every test ends with this: nothing leaked. */
static void assert_no_leaks(void) {
  assert_int_equal(weft_live_handle_count(), g_start_handles);
  assert_int_equal(cpu_live_bytes(), g_start_bytes);
}

/* A float32 cpu(0) array of `shape` filled from `data` (may be NULL). */
static WeftNDArray* make_f32(const int64_t* shape, int ndim, const float* data) {
  WeftNDArray* a = NULL;
  int64_t n = 0;
  OK(weft_ndarray_create(shape, ndim, WEFT_FLOAT32, WEFT_CPU, 0, &a));
  OK(weft_ndarray_size(a, &n));
  if (data) OK(weft_ndarray_copy_from(a, data, (size_t)n * sizeof(float)));
  return a;
}

/* Copies `n` float32 values of `a` into `out`. */
static void read_f32(const WeftNDArray* a, float* out, size_t n) {
  OK(weft_ndarray_copy_to(a, out, n * sizeof(float)));
}

static void assert_floats(const float* got, const float* want, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (fabsf(got[i] - want[i]) > 1e-5f * (1.0f + fabsf(want[i])))
      fail_msg("element %d: got %g, expected %g", (int)i, (double)got[i], (double)want[i]);
  }
}

static int op_exists(const char* name) {
  const char* doc = NULL;
  size_t n = 0;
  return weft_op_info(name, &doc, &n) == WEFT_OK;
}

/* Runs quadratic(a, b, c) on `x` (one output), returning the new handle. */
static WeftNDArray* run_quadratic(WeftNDArray* x, const char* a, const char* b, const char* c) {
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

/* ------------------------------------------------------- library, errors */

/* Runs first: no call has failed yet on this thread. */
static void test_last_error_initially_empty(void** state) {
  (void)state;
  assert_string_equal(weft_last_error(), "");
  assert_int_equal(weft_last_error_code(), WEFT_OK);
  assert_no_leaks();
}

static void test_version(void** state) {
  const char* v = weft_version();
  (void)state;
  assert_non_null(v);
  assert_true(strlen(v) >= 5); /* "0.1.0" */
  assert_non_null(strchr(v, '.'));
  assert_ptr_equal(weft_version(), v);
  assert_int_equal(weft_abi_version(), WEFT_API_VERSION);
  assert_no_leaks();
}

static void test_last_error_kept_after_success(void** state) {
  size_t count = 0;
  char first[512];
  (void)state;
  EXPECT_ERR(weft_op_count(NULL), WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  assert_string_equal(weft_last_error(), "weft_op_count: argument 'out' is NULL");
  snprintf(first, sizeof first, "%s", weft_last_error());
  /* A successful call returns WEFT_OK and leaves the last error alone. */
  OK(weft_op_count(&count));
  assert_string_equal(weft_last_error(), first);
  assert_int_equal(weft_last_error_code(), WEFT_ERR_INVALID_ARGUMENT);
  /* The next failure replaces it. */
  EXPECT_ERR(weft_op_info("no_such_op_xyz", NULL, NULL), WEFT_ERR_NOT_FOUND, "no_such_op_xyz");
  assert_int_equal(weft_last_error_code(), WEFT_ERR_NOT_FOUND);
  assert_no_leaks();
}

static void test_random_seed_and_wait_all(void** state) {
  (void)state;
  OK(weft_random_seed(42));
  OK(weft_random_seed(UINT64_MAX));
  OK(weft_wait_all());
  assert_no_leaks();
}

/* ------------------------------------------------------------- operators */

static void test_op_listing(void** state) {
  size_t count = 0, i;
  int found = 0;
  const char* prev = NULL;
  const char* name = NULL;
  const char* again = NULL;
  (void)state;
  OK(weft_op_count(&count));
  assert_true(count >= 2); /* quadratic and _backward_quadratic at least */
  for (i = 0; i < count; ++i) {
    OK(weft_op_name(i, &name));
    assert_non_null(name);
    if (prev) assert_true(strcmp(prev, name) < 0); /* sorted, unique */
    if (strcmp(name, "quadratic") == 0) found = 1;
    assert_string_not_equal(name, "_contrib_quadratic"); /* aliases excluded */
    prev = name;
  }
  assert_true(found);
  /* Strings stay valid and stable. */
  OK(weft_op_name(0, &name));
  OK(weft_op_name(0, &again));
  assert_ptr_equal(name, again);

  name = "untouched";
  EXPECT_ERR(weft_op_name(count, &name), WEFT_ERR_INVALID_ARGUMENT, "weft_op_name", "'index'");
  assert_string_equal(name, "untouched");
  EXPECT_ERR(weft_op_name(0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_name: argument 'out_name' is NULL");
  EXPECT_ERR(weft_op_count(NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_count: argument 'out' is NULL");
  assert_no_leaks();
}

static void test_op_info(void** state) {
  const char* doc = NULL;
  const char* doc2 = NULL;
  size_t n = 0, n2 = 0;
  (void)state;
  OK(weft_op_info("quadratic", &doc, &n));
  assert_non_null(doc);
  assert_non_null(strstr(doc, "quadratic"));
  assert_int_equal(n, 3);
  /* An alias resolves to the same definition. */
  OK(weft_op_info("_contrib_quadratic", &doc2, &n2));
  assert_ptr_equal(doc, doc2);
  assert_int_equal(n2, 3);

  doc = "untouched";
  EXPECT_ERR(weft_op_info("no_such_op_abc", &doc, &n), WEFT_ERR_NOT_FOUND, "weft_op_info",
             "no_such_op_abc");
  assert_string_equal(doc, "untouched");
  EXPECT_ERR(weft_op_info(NULL, &doc, &n), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_info: argument 'op' is NULL");
  EXPECT_ERR(weft_op_info("quadratic", NULL, &n), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_doc' is NULL");
  EXPECT_ERR(weft_op_info("quadratic", &doc, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_num_params' is NULL");
  assert_no_leaks();
}

static int is_param_type(const char* t) {
  static const char* const kTypes[] = {"int",  "float",  "boolean", "shape",
                                       "enum", "string", "dtype",   "context"};
  size_t i;
  for (i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i)
    if (strcmp(t, kTypes[i]) == 0) return 1;
  return 0;
}

static void test_op_param(void** state) {
  const char *name = NULL, *type = NULL, *def = NULL, *doc = NULL;
  size_t count = 0, i, j;
  (void)state;
  OK(weft_op_param("quadratic", 0, &name, &type, &def, &doc));
  assert_string_equal(name, "a");
  assert_string_equal(type, "float");
  assert_non_null(def);
  assert_string_equal(def, "0");
  assert_non_null(doc);
  assert_true(strlen(doc) > 0);
  OK(weft_op_param("quadratic", 2, &name, NULL, NULL, NULL));
  assert_string_equal(name, "c");
  /* Every out-pointer may be NULL. */
  OK(weft_op_param("quadratic", 1, NULL, NULL, NULL, NULL));

  /* Every parameter of every op has a known type name; a NULL default
   * means the parameter is required. */
  OK(weft_op_count(&count));
  for (i = 0; i < count; ++i) {
    const char* op = NULL;
    const char* odoc = NULL;
    size_t np = 0;
    OK(weft_op_name(i, &op));
    OK(weft_op_info(op, &odoc, &np));
    for (j = 0; j < np; ++j) {
      name = type = NULL;
      OK(weft_op_param(op, j, &name, &type, &def, &doc));
      assert_non_null(name);
      assert_true(is_param_type(type));
    }
    EXPECT_ERR(weft_op_param(op, np, &name, &type, &def, &doc), WEFT_ERR_INVALID_ARGUMENT,
               "'index'", op);
  }

  name = "untouched";
  EXPECT_ERR(weft_op_param("quadratic", 3, &name, NULL, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_param", "quadratic", "3 parameter(s)");
  assert_string_equal(name, "untouched");
  EXPECT_ERR(weft_op_param("nope_op", 0, &name, NULL, NULL, NULL), WEFT_ERR_NOT_FOUND, "nope_op");
  EXPECT_ERR(weft_op_param(NULL, 0, &name, NULL, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'op' is NULL");
  assert_no_leaks();
}

/* --------------------------------------------------------------- ndarray */

static void test_create_and_query(void** state) {
  const int64_t shape[3] = {2, 3, 4};
  int64_t got[4] = {0, 0, 0, -7};
  int64_t size = 0;
  int ndim = -1, dtype = -1, dev_type = 0, dev_id = -1;
  WeftNDArray* a = NULL;
  (void)state;
  OK(weft_ndarray_create(shape, 3, WEFT_FLOAT32, WEFT_CPU, 0, &a));
  assert_non_null(a);
  assert_int_equal(weft_live_handle_count(), g_start_handles + 1);
  assert_true(cpu_live_bytes() >= g_start_bytes + 24 * sizeof(float));
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 3);
  OK(weft_ndarray_shape(a, got, 4));
  assert_int_equal(got[0], 2);
  assert_int_equal(got[1], 3);
  assert_int_equal(got[2], 4);
  assert_int_equal(got[3], -7); /* slots past the rank are not written */
  OK(weft_ndarray_size(a, &size));
  assert_int_equal(size, 24);
  OK(weft_ndarray_dtype(a, &dtype));
  assert_int_equal(dtype, WEFT_FLOAT32);
  OK(weft_ndarray_context(a, &dev_type, &dev_id));
  assert_int_equal(dev_type, WEFT_CPU);
  assert_int_equal(dev_id, 0);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_create_scalar_dtypes_devices(void** state) {
  static const size_t kElemSize[7] = {4, 8, 2, 1, 4, 1, 8};
  unsigned char buf[64];
  int64_t shape[32];
  int64_t size = 0;
  int ndim = -1, dtype = -1, dev_type = 0, dev_id = -1, code, i;
  WeftNDArray* a = NULL;
  (void)state;
  /* A scalar: ndim 0, shape may be NULL, size 1. */
  OK(weft_ndarray_create(NULL, 0, WEFT_FLOAT64, WEFT_CPU, 0, &a));
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 0);
  OK(weft_ndarray_size(a, &size));
  assert_int_equal(size, 1);
  OK(weft_ndarray_shape(a, NULL, 0));
  OK(weft_ndarray_free(a));

  /* Every dtype, checked through its element size. */
  for (code = WEFT_FLOAT32; code <= WEFT_INT64; ++code) {
    const int64_t s[2] = {2, 3};
    OK(weft_ndarray_create(s, 2, code, WEFT_CPU, 0, &a));
    OK(weft_ndarray_dtype(a, &dtype));
    assert_int_equal(dtype, code);
    memset(buf, 0x5a, sizeof buf);
    OK(weft_ndarray_copy_from(a, buf, 6 * kElemSize[code]));
    OK(weft_ndarray_copy_to(a, buf, 6 * kElemSize[code]));
    EXPECT_ERR(weft_ndarray_copy_to(a, buf, 6 * kElemSize[code] + 1), WEFT_ERR_INVALID_ARGUMENT,
               "nbytes");
    OK(weft_ndarray_free(a));
  }

  /* The maximum rank is 32. */
  for (i = 0; i < 32; ++i) shape[i] = 1;
  shape[31] = 2;
  OK(weft_ndarray_create(shape, 32, WEFT_INT8, WEFT_CPU, 0, &a));
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 32);
  OK(weft_ndarray_free(a));

  /* Another cpu device id is reported back. */
  OK(weft_ndarray_create(shape + 31, 1, WEFT_UINT8, WEFT_CPU, 1, &a));
  OK(weft_ndarray_context(a, &dev_type, &dev_id));
  assert_int_equal(dev_type, WEFT_CPU);
  assert_int_equal(dev_id, 1);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_create_errors(void** state) {
  const int64_t good[2] = {2, 3};
  const int64_t zero[3] = {2, 0, 3};
  const int64_t negative[3] = {4, 5, -2};
  int64_t big[33];
  WeftNDArray* a = FAKE_HANDLE(0x77);
  WeftStatus st;
  int i;
  (void)state;
  for (i = 0; i < 33; ++i) big[i] = 1;
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_CPU, 0, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  assert_string_equal(weft_last_error(), "weft_ndarray_create: argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_create(NULL, 2, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_create", "argument 'shape' is NULL");
  EXPECT_ERR(weft_ndarray_create(good, -1, WEFT_FLOAT32, WEFT_CPU, 0, &a),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'ndim' is -1");
  EXPECT_ERR(weft_ndarray_create(big, 33, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'ndim' is 33", "0..32");
  EXPECT_ERR(weft_ndarray_create(zero, 3, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_SHAPE,
             "extent 1 is 0");
  EXPECT_ERR(weft_ndarray_create(negative, 3, WEFT_FLOAT32, WEFT_CPU, 0, &a), WEFT_ERR_SHAPE,
             "extent 2 is -2");
  EXPECT_ERR(weft_ndarray_create(good, 2, 7, WEFT_CPU, 0, &a), WEFT_ERR_DTYPE,
             "argument 'dtype' is 7");
  EXPECT_ERR(weft_ndarray_create(good, 2, -1, WEFT_CPU, 0, &a), WEFT_ERR_DTYPE,
             "argument 'dtype' is -1");
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, 3, 0, &a), WEFT_ERR_DEVICE,
             "argument 'dev_type' is 3");
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, 0, 0, &a), WEFT_ERR_DEVICE,
             "argument 'dev_type' is 0");
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_CPU, -1, &a), WEFT_ERR_DEVICE,
             "argument 'dev_id' is -1");
  /* The out-parameter is untouched by every failure above. */
  assert_ptr_equal(a, FAKE_HANDLE(0x77));

  /* A GPU: either a real device, or a clear device error. */
  st = weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_GPU, 0, &a);
  if (st == WEFT_OK) {
    OK(weft_ndarray_free(a));
  } else {
    EXPECT_ERR(st, WEFT_ERR_DEVICE, "gpu(0)");
    assert_ptr_equal(a, FAKE_HANDLE(0x77));
  }
  EXPECT_ERR(weft_ndarray_create(good, 2, WEFT_FLOAT32, WEFT_GPU, 1000, &a), WEFT_ERR_DEVICE,
             "gpu(1000)");
  assert_no_leaks();
}

static void test_query_null_arguments(void** state) {
  const int64_t shape[1] = {3};
  WeftNDArray* a = make_f32(shape, 1, NULL);
  int64_t s64 = 0;
  int i32 = 0, j32 = 0;
  (void)state;
  EXPECT_ERR(weft_ndarray_ndim(NULL, &i32), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_ndim: argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_ndim(a, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_ndim: argument 'out_ndim' is NULL");
  EXPECT_ERR(weft_ndarray_shape(NULL, &s64, 1), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_size(NULL, &s64), WEFT_ERR_INVALID_ARGUMENT, "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_size(a, NULL), WEFT_ERR_INVALID_ARGUMENT, "argument 'out_size' is NULL");
  EXPECT_ERR(weft_ndarray_dtype(NULL, &i32), WEFT_ERR_INVALID_ARGUMENT, "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_dtype(a, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_dtype' is NULL");
  EXPECT_ERR(weft_ndarray_context(NULL, &i32, &j32), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_context(a, NULL, &j32), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_dev_type' is NULL");
  EXPECT_ERR(weft_ndarray_context(a, &i32, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_dev_id' is NULL");
  EXPECT_ERR(weft_ndarray_wait_to_read(NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_wait_to_read: argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_wait_to_write(NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_wait_to_write: argument 'arr' is NULL");
  OK(weft_ndarray_wait_to_read(a));
  OK(weft_ndarray_wait_to_write(a));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_shape_capacity(void** state) {
  const int64_t shape[3] = {4, 1, 2};
  WeftNDArray* a = make_f32(shape, 3, NULL);
  int64_t out[3] = {-1, -1, -1};
  (void)state;
  EXPECT_ERR(weft_ndarray_shape(a, out, 2), WEFT_ERR_INVALID_ARGUMENT, "weft_ndarray_shape",
             "'capacity' is 2", "rank 3");
  assert_int_equal(out[0], -1); /* untouched on failure */
  EXPECT_ERR(weft_ndarray_shape(a, NULL, 3), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_shape' is NULL");
  EXPECT_ERR(weft_ndarray_shape(a, NULL, 0), WEFT_ERR_INVALID_ARGUMENT, "'capacity' is 0");
  OK(weft_ndarray_shape(a, out, 3));
  assert_int_equal(out[0], 4);
  assert_int_equal(out[1], 1);
  assert_int_equal(out[2], 2);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_copy_roundtrip_and_errors(void** state) {
  const int64_t shape[2] = {2, 3};
  const float in[6] = {1.5f, -2.0f, 3.25f, 0.0f, 1e6f, -7.0f};
  float out[7] = {0, 0, 0, 0, 0, 0, 99.0f};
  WeftNDArray* a = make_f32(shape, 2, in);
  (void)state;
  read_f32(a, out, 6);
  assert_floats(out, in, 6);
  assert_true(out[6] == 99.0f);

  EXPECT_ERR(weft_ndarray_copy_from(a, in, 5 * sizeof(float)), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_from", "'nbytes' is 20", "expected 24");
  EXPECT_ERR(weft_ndarray_copy_from(a, in, 7 * sizeof(float)), WEFT_ERR_INVALID_ARGUMENT,
             "'nbytes' is 28", "expected 24");
  EXPECT_ERR(weft_ndarray_copy_to(a, out, 0), WEFT_ERR_INVALID_ARGUMENT, "weft_ndarray_copy_to",
             "'nbytes' is 0", "expected 24");
  EXPECT_ERR(weft_ndarray_copy_to(a, out, 7 * sizeof(float)), WEFT_ERR_INVALID_ARGUMENT,
             "'nbytes' is 28");
  EXPECT_ERR(weft_ndarray_copy_from(a, NULL, 24), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_from: argument 'data' is NULL");
  EXPECT_ERR(weft_ndarray_copy_to(a, NULL, 24), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_to: argument 'data' is NULL");
  EXPECT_ERR(weft_ndarray_copy_from(NULL, in, 24), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  EXPECT_ERR(weft_ndarray_copy_to(NULL, out, 24), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  /* Failed copies changed nothing. */
  memset(out, 0, sizeof out);
  read_f32(a, out, 6);
  assert_floats(out, in, 6);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

/* ------------------------------------------------------------- handles */

static void test_freed_handle_is_detected(void** state) {
  const int64_t shape[1] = {4};
  const int64_t shape2[2] = {2, 2};
  float buf[4] = {1, 2, 3, 4};
  int64_t s64 = 0;
  int i32 = 0, j32 = 0;
  size_t n = 0;
  WeftNDArray* a = make_f32(shape, 1, buf);
  WeftNDArray* b = NULL;
  WeftNDArray* v = FAKE_HANDLE(0x99);
  WeftNDArray* outs[1] = {NULL};
  (void)state;
  OK(weft_ndarray_free(a));
  /* The slot is reused by a new array; the stale handle must not alias it. */
  b = make_f32(shape, 1, buf);
  assert_ptr_not_equal(a, b);

  EXPECT_ERR(weft_ndarray_copy_to(a, buf, sizeof buf), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_copy_to: argument 'arr' is a freed or invalid WeftNDArray handle");
  EXPECT_ERR(weft_ndarray_copy_from(a, buf, sizeof buf), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_copy_from: argument 'arr' is a freed or invalid WeftNDArray handle");
  EXPECT_ERR(weft_ndarray_ndim(a, &i32), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_ndim", "freed");
  EXPECT_ERR(weft_ndarray_shape(a, &s64, 1), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_shape");
  EXPECT_ERR(weft_ndarray_size(a, &s64), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_size");
  EXPECT_ERR(weft_ndarray_dtype(a, &i32), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_dtype");
  EXPECT_ERR(weft_ndarray_context(a, &i32, &j32), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_context");
  EXPECT_ERR(weft_ndarray_reshape(a, shape2, 2, &v), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_reshape");
  EXPECT_ERR(weft_ndarray_slice(a, 0, 1, &v), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_slice");
  EXPECT_ERR(weft_ndarray_wait_to_read(a), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_wait_to_read");
  EXPECT_ERR(weft_ndarray_wait_to_write(a), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_wait_to_write");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, NULL, NULL, 0, outs, 1, &n),
             WEFT_ERR_INVALID_HANDLE,
             "weft_op_invoke: argument 'inputs[0]' is a freed or invalid "
             "WeftNDArray handle");
  EXPECT_ERR(weft_op_invoke_into("quadratic", &b, 1, NULL, NULL, 0, &a, 1, NULL),
             WEFT_ERR_INVALID_HANDLE, "argument 'outputs[0]' is a freed or invalid");
  assert_ptr_equal(v, FAKE_HANDLE(0x99));
  assert_null(outs[0]);

  /* The live array in the reused slot is unaffected. */
  memset(buf, 0, sizeof buf);
  read_f32(b, buf, 4);
  assert_true(buf[3] == 4.0f);
  OK(weft_ndarray_free(b));
  assert_no_leaks();
}

static void test_double_free_and_free_null(void** state) {
  const int64_t shape[1] = {8};
  WeftNDArray* a = make_f32(shape, 1, NULL);
  size_t live = weft_live_handle_count();
  (void)state;
  OK(weft_ndarray_free(NULL)); /* no-op */
  assert_int_equal(weft_live_handle_count(), live);
  OK(weft_ndarray_free(a));
  assert_int_equal(weft_live_handle_count(), live - 1);
  EXPECT_ERR(weft_ndarray_free(a), WEFT_ERR_INVALID_HANDLE,
             "weft_ndarray_free: argument 'arr' is a freed or invalid WeftNDArray handle");
  EXPECT_ERR(weft_ndarray_free(a), WEFT_ERR_INVALID_HANDLE, "freed or invalid");
  assert_int_equal(weft_live_handle_count(), live - 1);
  assert_no_leaks();
}

static void test_foreign_handles_are_rejected(void** state) {
  int local = 0;
  int64_t size = 0;
  /* Small integers, real pointers, all ones and, on 64-bit, well-formed
   * encodings (tag 1) with generation 0 or an index never issued. */
  /* clang-format off */
  const uintptr_t fakes[] = {
      (uintptr_t)0x1, (uintptr_t)0x1234, (uintptr_t)&local, (uintptr_t)&size, ~(uintptr_t)0,
#if UINTPTR_MAX > 0xFFFFFFFFu
      (uintptr_t)1 << 56,
      ((uintptr_t)1 << 56) | ((uintptr_t)1 << 32) | 0x7ffffff,
#endif
  };
  /* clang-format on */
  size_t i;
  (void)state;
  for (i = 0; i < sizeof fakes / sizeof fakes[0]; ++i) {
    WeftNDArray* h = FAKE_HANDLE(fakes[i]);
    EXPECT_ERR(weft_ndarray_size(h, &size), WEFT_ERR_INVALID_HANDLE,
               "argument 'arr' is a freed or invalid WeftNDArray handle");
    EXPECT_ERR(weft_ndarray_free(h), WEFT_ERR_INVALID_HANDLE, "weft_ndarray_free");
  }
  assert_int_equal(local, 0);
  assert_no_leaks();
}

/* ---------------------------------------------------------------- views */

static void test_reshape(void** state) {
  const int64_t shape[2] = {2, 3};
  const int64_t to[3] = {3, 1, 2};
  const int64_t wrong[2] = {4, 2};
  const int64_t zero[2] = {6, 0};
  const float in[6] = {0, 1, 2, 3, 4, 5};
  const float upd[6] = {10, 11, 12, 13, 14, 15};
  float out[6];
  int64_t got[3];
  WeftNDArray* a = make_f32(shape, 2, in);
  WeftNDArray* r = NULL;
  WeftNDArray* keep = FAKE_HANDLE(0x55);
  (void)state;
  OK(weft_ndarray_reshape(a, to, 3, &r));
  OK(weft_ndarray_shape(r, got, 3));
  assert_int_equal(got[0], 3);
  assert_int_equal(got[1], 1);
  assert_int_equal(got[2], 2);
  read_f32(r, out, 6);
  assert_floats(out, in, 6);
  /* The view shares storage: writes through it show in the base. */
  OK(weft_ndarray_copy_from(r, upd, sizeof upd));
  read_f32(a, out, 6);
  assert_floats(out, upd, 6);

  EXPECT_ERR(weft_ndarray_reshape(a, wrong, 2, &keep), WEFT_ERR_SHAPE, "weft_ndarray_reshape",
             "(2,3)", "(4,2)");
  EXPECT_ERR(weft_ndarray_reshape(a, zero, 2, &keep), WEFT_ERR_SHAPE, "extent 1 is 0");
  EXPECT_ERR(weft_ndarray_reshape(a, NULL, 2, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'shape' is NULL");
  EXPECT_ERR(weft_ndarray_reshape(a, to, 40, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'ndim' is 40");
  EXPECT_ERR(weft_ndarray_reshape(a, to, 3, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_reshape: argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_reshape(NULL, to, 3, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  assert_ptr_equal(keep, FAKE_HANDLE(0x55));
  OK(weft_ndarray_free(r));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_slice(void** state) {
  const int64_t shape[2] = {4, 2};
  const float in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  float out[4];
  int64_t got[2];
  int ndim = 0;
  WeftNDArray* a = make_f32(shape, 2, in);
  WeftNDArray* s = NULL;
  WeftNDArray* scalar = NULL;
  WeftNDArray* keep = FAKE_HANDLE(0x66);
  (void)state;
  OK(weft_ndarray_slice(a, 1, 3, &s));
  OK(weft_ndarray_ndim(s, &ndim));
  assert_int_equal(ndim, 2);
  OK(weft_ndarray_shape(s, got, 2));
  assert_int_equal(got[0], 2);
  assert_int_equal(got[1], 2);
  read_f32(s, out, 4);
  assert_floats(out, in + 2, 4);

  EXPECT_ERR(weft_ndarray_slice(a, 3, 5, &keep), WEFT_ERR_INVALID_ARGUMENT, "weft_ndarray_slice",
             "[3, 5)", "out of range");
  EXPECT_ERR(weft_ndarray_slice(a, -1, 2, &keep), WEFT_ERR_INVALID_ARGUMENT, "out of range");
  EXPECT_ERR(weft_ndarray_slice(a, 2, 2, &keep), WEFT_ERR_INVALID_ARGUMENT, "out of range");
  EXPECT_ERR(weft_ndarray_slice(a, 0, 1, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_slice: argument 'out' is NULL");
  EXPECT_ERR(weft_ndarray_slice(NULL, 0, 1, &keep), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'arr' is NULL");
  OK(weft_ndarray_create(NULL, 0, WEFT_FLOAT32, WEFT_CPU, 0, &scalar));
  EXPECT_ERR(weft_ndarray_slice(scalar, 0, 1, &keep), WEFT_ERR_SHAPE, "scalar");
  assert_ptr_equal(keep, FAKE_HANDLE(0x66));
  OK(weft_ndarray_free(scalar));
  OK(weft_ndarray_free(s));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_views_outlive_base(void** state) {
  const int64_t shape[2] = {3, 2};
  const int64_t flat[1] = {6};
  const float in[6] = {1, 2, 3, 4, 5, 6};
  float out[6];
  size_t with_views;
  WeftNDArray* a = make_f32(shape, 2, in);
  WeftNDArray* r = NULL;
  WeftNDArray* s = NULL;
  WeftNDArray* ss = NULL;
  (void)state;
  OK(weft_ndarray_reshape(a, flat, 1, &r));
  OK(weft_ndarray_slice(a, 2, 3, &s));
  OK(weft_ndarray_slice(r, 1, 4, &ss)); /* a view of a view */
  with_views = cpu_live_bytes();
  assert_int_equal(weft_live_handle_count(), g_start_handles + 4);

  OK(weft_ndarray_free(a));
  /* The storage is still held by the views. */
  assert_int_equal(cpu_live_bytes(), with_views);
  read_f32(r, out, 6);
  assert_floats(out, in, 6);
  read_f32(s, out, 2);
  assert_floats(out, in + 4, 2);
  read_f32(ss, out, 3);
  assert_floats(out, in + 1, 3);

  OK(weft_ndarray_free(r));
  OK(weft_ndarray_free(s));
  read_f32(ss, out, 3);
  assert_floats(out, in + 1, 3);
  OK(weft_ndarray_free(ss));
  assert_no_leaks();
}

static void test_storage_stats(void** state) {
  const int64_t shape[1] = {1000};
  size_t live0 = 0, pooled0 = 0, live1 = 0, pooled1 = 0, live2 = 0, pooled2 = 0;
  size_t keep = 12345;
  WeftNDArray* a = NULL;
  WeftStatus st;
  (void)state;
  OK(weft_storage_stats(WEFT_CPU, 0, &live0, &pooled0));
  a = make_f32(shape, 1, NULL);
  OK(weft_storage_stats(WEFT_CPU, 0, &live1, &pooled1));
  assert_true(live1 >= live0 + 1000 * sizeof(float));
  OK(weft_ndarray_free(a));
  OK(weft_storage_stats(WEFT_CPU, 0, &live2, &pooled2));
  assert_int_equal(live2, live0);
  assert_true(pooled2 >= 1000 * sizeof(float)); /* the block is kept for reuse */

  EXPECT_ERR(weft_storage_stats(WEFT_CPU, 0, NULL, &pooled0), WEFT_ERR_INVALID_ARGUMENT,
             "weft_storage_stats: argument 'live_bytes' is NULL");
  EXPECT_ERR(weft_storage_stats(WEFT_CPU, 0, &live0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'pooled_bytes' is NULL");
  EXPECT_ERR(weft_storage_stats(9, 0, &keep, &keep), WEFT_ERR_DEVICE, "argument 'dev_type' is 9");
  EXPECT_ERR(weft_storage_stats(WEFT_CPU, -3, &keep, &keep), WEFT_ERR_DEVICE,
             "argument 'dev_id' is -3");
  assert_int_equal(keep, 12345);
  st = weft_storage_stats(WEFT_GPU, 0, &live0, &pooled0);
  if (st != WEFT_OK) EXPECT_ERR(st, WEFT_ERR_DEVICE, "gpu(0)");
  assert_no_leaks();
}

/* ------------------------------------------------------------- invoke */

static void test_invoke_quadratic(void** state) {
  const int64_t shape[2] = {2, 2};
  const int64_t three[1] = {3};
  const float x[4] = {1, 2, 3, 4};
  const float want[4] = {6, 11, 18, 27}; /* x^2 + 2x + 3 */
  const double xd[3] = {-1, 0, 0.5};
  const double wantd[3] = {-3, 0, 0.75}; /* -x^2 + 2x */
  const char* keys[] = {"a", "b"};
  const char* vals[] = {"-1", "2"};
  double outd[3];
  float out[4];
  int64_t got[2];
  int dtype = -1;
  size_t n = 0;
  WeftNDArray* a = make_f32(shape, 2, x);
  WeftNDArray* d = NULL;
  WeftNDArray* outs[3] = {NULL, NULL, NULL};
  WeftNDArray* y = NULL;
  (void)state;
  y = run_quadratic(a, "1", "2", "3");
  OK(weft_ndarray_shape(y, got, 2));
  assert_int_equal(got[0], 2);
  assert_int_equal(got[1], 2);
  OK(weft_ndarray_dtype(y, &dtype));
  assert_int_equal(dtype, WEFT_FLOAT32);
  read_f32(y, out, 4);
  assert_floats(out, want, 4);
  OK(weft_ndarray_free(y));

  /* Alias, float64, defaults, and a larger capacity than needed. */
  OK(weft_ndarray_create(three, 1, WEFT_FLOAT64, WEFT_CPU, 0, &d));
  OK(weft_ndarray_copy_from(d, xd, sizeof xd));
  OK(weft_op_invoke("_contrib_quadratic", &d, 1, keys, vals, 2, outs, 3, &n));
  assert_int_equal(n, 1);
  assert_non_null(outs[0]);
  assert_null(outs[1]); /* slots past num_outputs are not written */
  OK(weft_ndarray_dtype(outs[0], &dtype));
  assert_int_equal(dtype, WEFT_FLOAT64);
  OK(weft_ndarray_copy_to(outs[0], outd, sizeof outd));
  {
    int i;
    for (i = 0; i < 3; ++i) assert_true(fabs(outd[i] - wantd[i]) < 1e-12);
  }
  OK(weft_ndarray_free(outs[0]));

  /* No parameters at all: every default is 0. */
  OK(weft_op_invoke("quadratic", &a, 1, NULL, NULL, 0, outs, 1, &n));
  read_f32(outs[0], out, 4);
  {
    const float zeros[4] = {0, 0, 0, 0};
    assert_floats(out, zeros, 4);
  }
  OK(weft_ndarray_free(outs[0]));
  OK(weft_ndarray_free(d));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_invoke_errors(void** state) {
  const int64_t shape[1] = {3};
  const float x[3] = {1, 2, 3};
  const char* keys[] = {"a"};
  const char* bad_vals[] = {"abc"};
  const char* unknown_keys[] = {"gamma"};
  const char* unknown_vals[] = {"7.5"};
  const char* dup_keys[] = {"a", "a"};
  const char* dup_vals[] = {"1", "2"};
  const char* null_key[] = {NULL};
  const char* null_val[] = {NULL};
  const char* ok_vals[] = {"1"};
  WeftNDArray* a = make_f32(shape, 1, x);
  WeftNDArray* i32 = NULL;
  WeftNDArray* two[2];
  WeftNDArray* null_in[1] = {NULL};
  WeftNDArray* outs[1] = {FAKE_HANDLE(0x42)};
  size_t n = 777;
  (void)state;
  two[0] = a;
  two[1] = a;
  EXPECT_ERR(weft_op_invoke("no_such_op", &a, 1, NULL, NULL, 0, outs, 1, &n), WEFT_ERR_NOT_FOUND,
             "weft_op_invoke", "no_such_op");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, keys, bad_vals, 1, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "quadratic", "'a'", "'abc'");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, unknown_keys, unknown_vals, 1, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "quadratic", "'gamma'", "7.5");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, dup_keys, dup_vals, 2, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "quadratic", "'a'", "twice");
  EXPECT_ERR(weft_op_invoke("quadratic", two, 2, NULL, NULL, 0, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "quadratic", "expected 1 input(s), given 2");
  EXPECT_ERR(weft_op_invoke("quadratic", NULL, 0, NULL, NULL, 0, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "expected 1 input(s), given 0");
  /* NULL arguments, each named. */
  EXPECT_ERR(weft_op_invoke(NULL, &a, 1, NULL, NULL, 0, outs, 1, &n), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_invoke: argument 'op' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", NULL, 1, NULL, NULL, 0, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'inputs' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", null_in, 1, NULL, NULL, 0, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'inputs[0]' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, NULL, ok_vals, 1, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'keys' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, keys, NULL, 1, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'vals' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, null_key, ok_vals, 1, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'keys[0]' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, keys, null_val, 1, outs, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'vals[0]' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, NULL, NULL, 0, NULL, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'outputs' is NULL");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, NULL, NULL, 0, outs, 1, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'num_outputs' is NULL");
  /* A kernel-time failure (quadratic has no int32 kernel) creates nothing. */
  OK(weft_ndarray_create(shape, 1, WEFT_INT32, WEFT_CPU, 0, &i32));
  EXPECT_ERR(weft_op_invoke("quadratic", &i32, 1, NULL, NULL, 0, outs, 1, &n), WEFT_ERR_DTYPE,
             "quadratic", "int32");
  OK(weft_ndarray_free(i32));
  /* Out-parameters are untouched by every failure. */
  assert_ptr_equal(outs[0], FAKE_HANDLE(0x42));
  assert_int_equal(n, 777);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_invoke_capacity_too_small(void** state) {
  const int64_t shape[1] = {2};
  WeftNDArray* a = make_f32(shape, 1, NULL);
  WeftNDArray* outs[1] = {FAKE_HANDLE(0x42)};
  size_t n = 777;
  size_t live = weft_live_handle_count();
  size_t bytes = cpu_live_bytes();
  (void)state;
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, NULL, NULL, 0, outs, 0, &n),
             WEFT_ERR_INVALID_ARGUMENT, "weft_op_invoke", "'capacity' is 0", "quadratic",
             "1 output(s)");
  EXPECT_ERR(weft_op_invoke("quadratic", &a, 1, NULL, NULL, 0, NULL, 0, &n),
             WEFT_ERR_INVALID_ARGUMENT, "'capacity' is 0");
  /* Nothing was created or allocated, and nothing was written. */
  assert_int_equal(weft_live_handle_count(), live);
  assert_int_equal(cpu_live_bytes(), bytes);
  assert_ptr_equal(outs[0], FAKE_HANDLE(0x42));
  assert_int_equal(n, 777);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_invoke_into(void** state) {
  const int64_t shape[1] = {4};
  const float x[4] = {1, 2, 3, 4};
  const float start[4] = {100, 200, 300, 400};
  const float fx[4] = {3, 5, 7, 9}; /* 2x + 1 */
  const char* keys[] = {"b", "c"};
  const char* vals[] = {"2", "1"};
  float want[4], out[4];
  int req;
  int i;
  WeftNDArray* a = make_f32(shape, 1, x);
  WeftNDArray* y = make_f32(shape, 1, start);
  (void)state;
  /* reqs NULL: all write. */
  OK(weft_op_invoke_into("quadratic", &a, 1, keys, vals, 2, &y, 1, NULL));
  read_f32(y, out, 4);
  assert_floats(out, fx, 4);
  /* add accumulates. */
  req = WEFT_REQ_ADD;
  OK(weft_op_invoke_into("quadratic", &a, 1, keys, vals, 2, &y, 1, &req));
  for (i = 0; i < 4; ++i) want[i] = 2 * fx[i];
  read_f32(y, out, 4);
  assert_floats(out, want, 4);
  /* null skips the output. */
  req = WEFT_REQ_NULL;
  OK(weft_op_invoke_into("quadratic", &a, 1, keys, vals, 2, &y, 1, &req));
  read_f32(y, out, 4);
  assert_floats(out, want, 4);
  /* explicit write, in place on the input. */
  req = WEFT_REQ_WRITE;
  OK(weft_op_invoke_into("quadratic", &a, 1, keys, vals, 2, &a, 1, &req));
  read_f32(a, out, 4);
  assert_floats(out, fx, 4);
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_invoke_into_errors(void** state) {
  const int64_t shape[1] = {4};
  const int64_t other[2] = {2, 2};
  const float start[4] = {1, 2, 3, 4};
  float out[4];
  int req;
  const int bad_reqs[] = {2, -1, 7};
  size_t i;
  WeftNDArray* a = make_f32(shape, 1, start);
  WeftNDArray* y = make_f32(shape, 1, start);
  WeftNDArray* wrong_shape = make_f32(other, 2, NULL);
  WeftNDArray* wrong_type = NULL;
  WeftNDArray* pair[2];
  WeftNDArray* null_out[1] = {NULL};
  (void)state;
  pair[0] = y;
  pair[1] = y;
  OK(weft_ndarray_create(shape, 1, WEFT_FLOAT64, WEFT_CPU, 0, &wrong_type));
  EXPECT_ERR(weft_op_invoke_into("quadratic", &a, 1, NULL, NULL, 0, &wrong_shape, 1, NULL),
             WEFT_ERR_SHAPE, "weft_op_invoke_into", "quadratic", "output 0", "(2,2)", "(4,)");
  EXPECT_ERR(weft_op_invoke_into("quadratic", &a, 1, NULL, NULL, 0, &wrong_type, 1, NULL),
             WEFT_ERR_DTYPE, "quadratic", "float64", "float32");
  for (i = 0; i < sizeof bad_reqs / sizeof bad_reqs[0]; ++i) {
    req = bad_reqs[i];
    EXPECT_ERR(weft_op_invoke_into("quadratic", &a, 1, NULL, NULL, 0, &y, 1, &req),
               WEFT_ERR_INVALID_ARGUMENT, "argument 'reqs[0]'", "WEFT_REQ_ADD (3)");
  }
  EXPECT_ERR(weft_op_invoke_into("quadratic", &a, 1, NULL, NULL, 0, pair, 2, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'num_outputs' is 2", "1 output(s)");
  EXPECT_ERR(weft_op_invoke_into("quadratic", &a, 1, NULL, NULL, 0, NULL, 0, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'num_outputs' is 0");
  EXPECT_ERR(weft_op_invoke_into("quadratic", &a, 1, NULL, NULL, 0, NULL, 1, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'outputs' is NULL");
  EXPECT_ERR(weft_op_invoke_into("quadratic", &a, 1, NULL, NULL, 0, null_out, 1, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'outputs[0]' is NULL");
  EXPECT_ERR(weft_op_invoke_into("quadratic", pair, 2, NULL, NULL, 0, &y, 1, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "expected 1 input(s), given 2");
  EXPECT_ERR(weft_op_invoke_into("quadratic_nope", &a, 1, NULL, NULL, 0, &y, 1, NULL),
             WEFT_ERR_NOT_FOUND, "quadratic_nope");
  EXPECT_ERR(weft_op_invoke_into(NULL, &a, 1, NULL, NULL, 0, &y, 1, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "weft_op_invoke_into: argument 'op' is NULL");
  /* The output is unchanged by every failed call. */
  read_f32(y, out, 4);
  assert_floats(out, start, 4);
  OK(weft_ndarray_free(wrong_type));
  OK(weft_ndarray_free(wrong_shape));
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

/* Ops written alongside this file: tested when present, skipped otherwise. */
static void test_elemwise_add_and_dot_if_present(void** state) {
  const int64_t shape[2] = {2, 2};
  const float x[4] = {1, 2, 3, 4};
  const float y[4] = {10, 20, 30, 40};
  float out[4];
  size_t n = 0;
  int tested = 0;
  WeftNDArray* a = make_f32(shape, 2, x);
  WeftNDArray* b = make_f32(shape, 2, y);
  WeftNDArray* in[2];
  WeftNDArray* outs[1] = {NULL};
  (void)state;
  in[0] = a;
  in[1] = b;
  if (op_exists("elemwise_add")) {
    const float want[4] = {11, 22, 33, 44};
    OK(weft_op_invoke("elemwise_add", in, 2, NULL, NULL, 0, outs, 1, &n));
    read_f32(outs[0], out, 4);
    assert_floats(out, want, 4);
    OK(weft_ndarray_free(outs[0]));
    /* req=add through an existing output. */
    {
      int req = WEFT_REQ_ADD;
      const float twice[4] = {22, 44, 66, 88};
      WeftNDArray* acc = make_f32(shape, 2, want);
      OK(weft_op_invoke_into("elemwise_add", in, 2, NULL, NULL, 0, &acc, 1, &req));
      read_f32(acc, out, 4);
      assert_floats(out, twice, 4);
      OK(weft_ndarray_free(acc));
    }
    tested = 1;
  }
  if (op_exists("dot")) {
    /* [[1,2],[3,4]] x [[10,20],[30,40]] */
    const float want[4] = {70, 100, 150, 220};
    OK(weft_op_invoke("dot", in, 2, NULL, NULL, 0, outs, 1, &n));
    read_f32(outs[0], out, 4);
    assert_floats(out, want, 4);
    OK(weft_ndarray_free(outs[0]));
    tested = 1;
  }
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_free(b));
  assert_no_leaks();
  if (!tested) skip();
}

/* Random ops reproduce after weft_random_seed (when _random_uniform exists). */
static void test_random_seed_reproducible_if_present(void** state) {
  const char* keys[] = {"low", "high", "shape"};
  const char* vals[] = {"-1", "1", "(8,)"};
  float first[8], second[8];
  WeftNDArray* outs[1] = {NULL};
  size_t n = 0;
  int i;
  (void)state;
  if (!op_exists("_random_uniform")) skip();
  OK(weft_random_seed(1234));
  OK(weft_op_invoke("_random_uniform", NULL, 0, keys, vals, 3, outs, 1, &n));
  read_f32(outs[0], first, 8);
  OK(weft_ndarray_free(outs[0]));
  OK(weft_random_seed(1234));
  OK(weft_op_invoke("_random_uniform", NULL, 0, keys, vals, 3, outs, 1, &n));
  read_f32(outs[0], second, 8);
  OK(weft_ndarray_free(outs[0]));
  for (i = 0; i < 8; ++i) {
    assert_true(first[i] == second[i]);
    assert_true(first[i] >= -1.0f && first[i] <= 1.0f);
  }
  assert_no_leaks();
}

#define TEST(f) cmocka_unit_test_setup(f, setup)

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_last_error_initially_empty), /* must stay first */
      TEST(test_version),
      TEST(test_last_error_kept_after_success),
      TEST(test_random_seed_and_wait_all),
      TEST(test_op_listing),
      TEST(test_op_info),
      TEST(test_op_param),
      TEST(test_create_and_query),
      TEST(test_create_scalar_dtypes_devices),
      TEST(test_create_errors),
      TEST(test_query_null_arguments),
      TEST(test_shape_capacity),
      TEST(test_copy_roundtrip_and_errors),
      TEST(test_freed_handle_is_detected),
      TEST(test_double_free_and_free_null),
      TEST(test_foreign_handles_are_rejected),
      TEST(test_reshape),
      TEST(test_slice),
      TEST(test_views_outlive_base),
      TEST(test_storage_stats),
      TEST(test_invoke_quadratic),
      TEST(test_invoke_errors),
      TEST(test_invoke_capacity_too_small),
      TEST(test_invoke_into),
      TEST(test_invoke_into_errors),
      TEST(test_elemwise_add_and_dot_if_present),
      TEST(test_random_seed_reproducible_if_present),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
