/*
 * C ABI test (C99, CMocka, against libweft.so): imperative invoke: allocated and given outputs,
 * request kinds, errors. Every test checks its happy path and error paths and ends with no leaked
 * handle or byte (assert_no_leaks).
 */
#include "c_test_util.h"

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
  /* A kernel-time failure (quadratic has no int32 kernel) runs on the engine:
   * it surfaces at the wait, naming the op. */
  OK(weft_ndarray_create(shape, 1, WEFT_INT32, WEFT_CPU, 0, &i32));
  OK(weft_op_invoke("quadratic", &i32, 1, NULL, NULL, 0, outs, 1, &n));
  EXPECT_ERR(weft_ndarray_wait_to_read(outs[0]), WEFT_ERR_DTYPE, "'quadratic'", "int32");
  OK(weft_ndarray_free(outs[0]));
  outs[0] = FAKE_HANDLE(0x42);
  n = 777;
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

/* An operator written into its own input (or a view of its bytes) reads its
 * input before the output overwrites it: a temporary stands in. */
static void test_invoke_into_own_input(void** state) {
  const int64_t shape[2] = {3, 3};
  const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float want[9], out[9];
  int i, j, k;
  WeftNDArray* a = make_f32(shape, 2, x);
  WeftNDArray* two[2];
  WeftNDArray* view = NULL;
  (void)state;
  OK(weft_op_invoke_into("transpose", &a, 1, NULL, NULL, 0, &a, 1, NULL));
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) want[i * 3 + j] = x[j * 3 + i];
  read_f32(a, out, 9);
  assert_floats(out, want, 9);

  /* dot(a, a) into a, with a = x again. */
  OK(weft_ndarray_copy_from(a, x, sizeof x));
  two[0] = a;
  two[1] = a;
  OK(weft_op_invoke_into("dot", two, 2, NULL, NULL, 0, &a, 1, NULL));
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) {
      want[i * 3 + j] = 0;
      for (k = 0; k < 3; ++k) want[i * 3 + j] += x[i * 3 + k] * x[k * 3 + j];
    }
  read_f32(a, out, 9);
  assert_floats(out, want, 9);

  /* The output is another handle on the input's bytes (a reshape view). */
  OK(weft_ndarray_copy_from(a, x, sizeof x));
  OK(weft_ndarray_reshape(a, shape, 2, &view));
  OK(weft_op_invoke_into("transpose", &a, 1, NULL, NULL, 0, &view, 1, NULL));
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) want[i * 3 + j] = x[j * 3 + i];
  read_f32(a, out, 9);
  assert_floats(out, want, 9);
  OK(weft_ndarray_free(view));
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

static void test_elemwise_add_and_dot(void** state) {
  const int64_t shape[2] = {2, 2};
  const float x[4] = {1, 2, 3, 4};
  const float y[4] = {10, 20, 30, 40};
  float out[4];
  size_t n = 0;
  WeftNDArray* a = make_f32(shape, 2, x);
  WeftNDArray* b = make_f32(shape, 2, y);
  WeftNDArray* in[2];
  WeftNDArray* outs[1] = {NULL};
  (void)state;
  in[0] = a;
  in[1] = b;
  {
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
  }
  {
    /* [[1,2],[3,4]] x [[10,20],[30,40]] */
    const float want[4] = {70, 100, 150, 220};
    OK(weft_op_invoke("dot", in, 2, NULL, NULL, 0, outs, 1, &n));
    read_f32(outs[0], out, 4);
    assert_floats(out, want, 4);
    OK(weft_ndarray_free(outs[0]));
  }
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_free(b));
  assert_no_leaks();
}

static void test_random_seed_reproducible(void** state) {
  const char* keys[] = {"low", "high", "shape"};
  const char* vals[] = {"-1", "1", "(8,)"};
  float first[8], second[8];
  WeftNDArray* outs[1] = {NULL};
  size_t n = 0;
  int i;
  (void)state;
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

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_invoke_quadratic),          TEST(test_invoke_errors),
      TEST(test_invoke_capacity_too_small), TEST(test_invoke_into),
      TEST(test_invoke_into_errors),        TEST(test_invoke_into_own_input),
      TEST(test_elemwise_add_and_dot),      TEST(test_random_seed_reproducible),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
