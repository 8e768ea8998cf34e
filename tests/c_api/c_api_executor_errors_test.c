/*
 * C ABI tests of weft_executor_* error paths: NULL, freed, double-freed and
 * wrongly typed handles; missing arguments, wrong shapes, dtypes, gradient
 * sizes and requests; backward before forward and wrong head gradients;
 * a kernel failure reported at the sync copy, not by forward/backward.
 * Each test ends with no leaked handles or bytes.
 */
#include "c_api_executor_util.h"

/* NULL, freed, double-freed and wrongly typed handles. */
static void test_handle_errors(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutor* ex = bind_abc(sym, k23, "write");
  WeftExecutor* stale = ex;
  WeftNDArrayList* l = NULL;
  WeftStringList* text = NULL;
  WeftExecutorMemory mem;
  (void)state;

  OK(weft_executor_free(NULL));
  EXPECT_ERR(weft_executor_forward(NULL, 0), WEFT_ERR_INVALID_ARGUMENT, "weft_executor_forward",
             "'exec' is NULL");
  EXPECT_ERR(weft_executor_backward(NULL, NULL, 0), WEFT_ERR_INVALID_ARGUMENT, "'exec' is NULL");
  EXPECT_ERR(weft_executor_outputs(NULL, &l), WEFT_ERR_INVALID_ARGUMENT, "'exec' is NULL");
  EXPECT_ERR(weft_executor_outputs(ex, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERR(weft_executor_arg_arrays(ex, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERR(weft_executor_grad_arrays(NULL, &l), WEFT_ERR_INVALID_ARGUMENT, "'exec' is NULL");
  EXPECT_ERR(weft_executor_aux_arrays(NULL, &l), WEFT_ERR_INVALID_ARGUMENT, "'exec' is NULL");
  EXPECT_ERR(weft_executor_memory(ex, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERR(weft_executor_print(NULL, &text), WEFT_ERR_INVALID_ARGUMENT, "'exec' is NULL");
  EXPECT_ERR(weft_executor_simple_bind(NULL, WEFT_CPU, 0, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL,
                                       &stale),
             WEFT_ERR_INVALID_ARGUMENT, "weft_executor_simple_bind", "'sym' is NULL");
  EXPECT_ERR(weft_executor_bind(NULL, WEFT_CPU, 0, NULL, 0, NULL, NULL, NULL, 0, &stale),
             WEFT_ERR_INVALID_ARGUMENT, "weft_executor_bind", "'sym' is NULL");
  /* A symbol handle where an executor is expected, and the reverse. */
  EXPECT_ERR(weft_executor_forward((WeftExecutor*)sym, 0), WEFT_ERR_INVALID_HANDLE,
             "is a WeftSymbolHandle handle, expected a WeftExecutor handle");
  EXPECT_ERR(weft_executor_forward((WeftExecutor*)(uintptr_t)0x1234, 0), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftExecutor");

  OK(weft_executor_free(ex));
  EXPECT_ERR(weft_executor_forward(stale, 1), WEFT_ERR_INVALID_HANDLE, "weft_executor_forward",
             "freed or invalid WeftExecutor handle");
  EXPECT_ERR(weft_executor_memory(stale, &mem), WEFT_ERR_INVALID_HANDLE, "freed or invalid");
  EXPECT_ERR(weft_executor_outputs(stale, &l), WEFT_ERR_INVALID_HANDLE, "freed or invalid");
  EXPECT_ERR(weft_executor_free(stale), WEFT_ERR_INVALID_HANDLE, "weft_executor_free",
             "freed or invalid WeftExecutor handle");
  assert_null(l);
  assert_null(text);

  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* Missing arguments, wrong shapes, dtypes, gradient sizes and requests. */
static void test_bind_errors(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftNDArray* args[3];
  WeftNDArray* grads[3];
  WeftNDArray* wrong_shape = NULL;
  WeftNDArray* f64 = NULL;
  WeftExecutor* ex = NULL;
  const int64_t k32[2] = {3, 2};
  const int bad_reqs[3] = {WEFT_REQ_WRITE, 2, WEFT_REQ_WRITE};
  const int write_reqs[3] = {WEFT_REQ_WRITE, WEFT_REQ_WRITE, WEFT_REQ_WRITE};
  const int64_t k24[2] = {2, 4};
  size_t i;
  (void)state;

  for (i = 0; i < 3; ++i) {
    args[i] = make_f32(k23, 2, NULL);
    grads[i] = make_f32(k23, 2, NULL);
  }
  OK(weft_ndarray_create(k23, 2, WEFT_FLOAT64, WEFT_CPU, 0, &f64));
  wrong_shape = make_f32(k24, 2, NULL);

  /* Missing arguments. */
  EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, args, 2, NULL, NULL, NULL, 0, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "weft_executor_bind", "expected 3 argument array(s)",
             "given 2");
  {
    WeftNDArray* with_null[3];
    with_null[0] = args[0];
    with_null[1] = NULL;
    with_null[2] = args[2];
    EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, with_null, 3, NULL, NULL, NULL, 0, &ex),
               WEFT_ERR_INVALID_ARGUMENT, "'args[1]' is NULL");
  }
  EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, NULL, 3, NULL, NULL, NULL, 0, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "'args' is NULL but its count is 3");
  EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, NULL, NULL, NULL, 0, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  /* Wrong shape and dtype of an argument. */
  {
    WeftNDArray* a2[3];
    a2[0] = args[0];
    a2[1] = wrong_shape;
    a2[2] = args[2];
    EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, a2, 3, NULL, NULL, NULL, 0, &ex),
               WEFT_ERR_SHAPE, "weft_executor_bind", "(2,4)");
    a2[1] = f64;
    EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, a2, 3, NULL, NULL, NULL, 0, &ex),
               WEFT_ERR_DTYPE, "weft_executor_bind", "expected float32, given float64");
  }
  /* Wrong gradient size, bad and inconsistent requests. */
  {
    WeftNDArray* g2[3];
    WeftNDArray* g32 = make_f32(k32, 2, NULL);
    g2[0] = grads[0];
    g2[1] = g32;
    g2[2] = grads[2];
    EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, g2, NULL, NULL, 0, &ex),
               WEFT_ERR_SHAPE, "weft_executor_bind", "gradient array of 'b' is (3,2)",
               "expected (2,3)");
    OK(weft_ndarray_free(g32));
    g2[1] = NULL;
    EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, g2, write_reqs, NULL, 0, &ex),
               WEFT_ERR_INVALID_ARGUMENT, "is missing but grad_req is write");
  }
  EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, grads, bad_reqs, NULL, 0, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "'grad_reqs[1]' is 2");
  EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, NULL, write_reqs, NULL, 0, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "'arg_grads' is NULL");
  EXPECT_ERR(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, NULL, NULL, args, 1, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "auxiliary state");
  EXPECT_ERR(weft_executor_bind(sym, 7, 0, args, 3, NULL, NULL, NULL, 0, &ex), WEFT_ERR_DEVICE,
             "weft_executor_bind");
  assert_null(ex);

  for (i = 0; i < 3; ++i) {
    OK(weft_ndarray_free(args[i]));
    OK(weft_ndarray_free(grads[i]));
  }
  OK(weft_ndarray_free(f64));
  OK(weft_ndarray_free(wrong_shape));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

static void test_simple_bind_errors(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutor* ex = NULL;
  const char* names[3] = {"a", "b", "c"};
  const char* bogus[1] = {"zz"};
  const size_t ind_ptr[4] = {0, 2, 4, 6};
  const int64_t dims[6] = {2, 3, 2, 3, 2, 3};
  const int64_t conflict[6] = {2, 3, 2, 4, 2, 3};
  const int bad_code[1] = {99};
  const int f32_codes[2] = {WEFT_FLOAT32, WEFT_FLOAT64};
  const char* dnames[2] = {"a", "b"};
  (void)state;

  EXPECT_ERR(weft_executor_simple_bind(sym, WEFT_CPU, 0, 3, names, ind_ptr, dims, 0, NULL, NULL,
                                       "sometimes", &ex),
             WEFT_ERR_INVALID_ARGUMENT, "weft_executor_simple_bind", "'sometimes'",
             "null, write, add");
  /* Missing argument shapes (one would do: a*b + b*c infers the others). */
  EXPECT_ERR(
      weft_executor_simple_bind(sym, WEFT_CPU, 0, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL, &ex),
      WEFT_ERR_SHAPE, "weft_executor_simple_bind", "cannot infer the shapes of", "a");
  EXPECT_ERR(weft_executor_simple_bind(sym, WEFT_CPU, 0, 3, names, ind_ptr, conflict, 0, NULL, NULL,
                                       NULL, &ex),
             WEFT_ERR_SHAPE, "weft_executor_simple_bind");
  EXPECT_ERR(weft_executor_simple_bind(sym, WEFT_CPU, 0, 1, bogus, ind_ptr, dims, 0, NULL, NULL,
                                       NULL, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "zz");
  EXPECT_ERR(weft_executor_simple_bind(sym, WEFT_CPU, 0, 1, names, ind_ptr, dims, 1, names,
                                       bad_code, NULL, &ex),
             WEFT_ERR_DTYPE, "'dtypes[0]' (input 'a') is 99");
  EXPECT_ERR(weft_executor_simple_bind(sym, WEFT_CPU, 0, 3, names, ind_ptr, dims, 2, dnames,
                                       f32_codes, NULL, &ex),
             WEFT_ERR_DTYPE, "weft_executor_simple_bind");
  EXPECT_ERR(
      weft_executor_simple_bind(sym, WEFT_CPU, 0, 3, names, NULL, dims, 0, NULL, NULL, NULL, &ex),
      WEFT_ERR_INVALID_ARGUMENT, "'ind_ptr' is NULL");
  EXPECT_ERR(weft_executor_simple_bind(sym, WEFT_CPU, 0, 3, names, ind_ptr, dims, 0, NULL, NULL,
                                       NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  assert_null(ex);

  /* A float64 graph binds when every input is float64. */
  {
    const int codes[3] = {WEFT_FLOAT64, WEFT_FLOAT64, WEFT_FLOAT64};
    WeftNDArrayList* l = NULL;
    WeftNDArray* out;
    int dtype = -1;
    OK(weft_executor_simple_bind(sym, WEFT_CPU, 0, 3, names, ind_ptr, dims, 3, names, codes, "null",
                                 &ex));
    OK(weft_executor_outputs(ex, &l));
    out = list_get(l, 0);
    OK(weft_ndarray_dtype(out, &dtype));
    assert_int_equal(dtype, WEFT_FLOAT64);
    OK(weft_ndarray_free(out));
    OK(weft_ndarray_list_free(l));
    OK(weft_executor_free(ex));
  }
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* Backward before forward; wrong number and shape of head gradients. */
static void test_backward_errors(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutor* ex = bind_abc(sym, k23, "write");
  const int64_t k32[2] = {3, 2};
  WeftNDArray* heads[2];
  (void)state;

  heads[0] = make_f32(k23, 2, kG);
  heads[1] = make_f32(k32, 2, kG);
  EXPECT_ERR(weft_executor_backward(ex, heads, 1), WEFT_ERR_INVALID_ARGUMENT,
             "weft_executor_backward", "Forward must run first");
  OK(weft_executor_forward(ex, 1));
  EXPECT_ERR(weft_executor_backward(ex, heads, 2), WEFT_ERR_INVALID_ARGUMENT,
             "expected 1 head gradient(s), given 2");
  EXPECT_ERR(weft_executor_backward(ex, NULL, 0), WEFT_ERR_INVALID_ARGUMENT,
             "weft_executor_backward");
  EXPECT_ERR(weft_executor_backward(ex, NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "'head_grads' is NULL but its count is 1");
  EXPECT_ERR(weft_executor_backward(ex, &heads[1], 1), WEFT_ERR_SHAPE, "head gradient 0", "(3,2)");
  {
    WeftNDArray* null_head = NULL;
    EXPECT_ERR(weft_executor_backward(ex, &null_head, 1), WEFT_ERR_INVALID_ARGUMENT,
               "'head_grads[0]' is NULL");
  }
  OK(weft_executor_backward(ex, heads, 1));

  OK(weft_ndarray_free(heads[0]));
  OK(weft_ndarray_free(heads[1]));
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* A kernel failure is deferred (the executor runs on the engine): forward
 * and backward return WEFT_OK, the sync copy of the array the failing node
 * wrote returns the error, naming the node's op, and so does every later
 * wait until a later round with a valid label rewrites the array. */
static void test_kernel_error_at_sync_copy(void** state) {
  const int64_t k13[2] = {1, 3};
  const int64_t k1[1] = {1};
  const float zeros[3] = {0, 0, 0};
  const float bad = 7, good = 2;
  WeftSymbolHandle* in[2];
  WeftSymbolHandle* sm;
  WeftNDArray* args[2];
  WeftNDArray* grads[2];
  int reqs[2] = {WEFT_REQ_WRITE, WEFT_REQ_NULL};
  WeftExecutor* ex = NULL;
  float g[3];
  (void)state;

  in[0] = var("x");
  in[1] = var("label");
  sm = apply("SoftmaxOutput", "sm", in, 2);
  args[0] = make_f32(k13, 2, zeros);
  args[1] = make_f32(k1, 1, &bad);
  grads[0] = make_f32(k13, 2, NULL);
  grads[1] = NULL;
  OK(weft_executor_bind(sm, WEFT_CPU, 0, args, 2, grads, reqs, NULL, 0, &ex));
  OK(weft_executor_forward(ex, 1));
  OK(weft_executor_backward(ex, NULL, 0));
  EXPECT_ERR(weft_ndarray_copy_to(grads[0], g, sizeof g), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_to", "SoftmaxOutput:sm", "label 7");
  EXPECT_ERR(weft_ndarray_wait_to_read(grads[0]), WEFT_ERR_INVALID_ARGUMENT,
             "label 7"); /* not consumed */

  OK(weft_ndarray_copy_from(args[1], &good, sizeof good));
  OK(weft_executor_forward(ex, 1));
  OK(weft_executor_backward(ex, NULL, 0));
  read_f32(grads[0], g, 3);
  assert_true(fabsf(g[0] - 1.0f / 3) < 1e-5f);
  assert_true(fabsf(g[2] - (1.0f / 3 - 1)) < 1e-5f);

  OK(weft_executor_free(ex));
  OK(weft_ndarray_free(args[0]));
  OK(weft_ndarray_free(args[1]));
  OK(weft_ndarray_free(grads[0]));
  OK(weft_symbol_free(in[0]));
  OK(weft_symbol_free(in[1]));
  OK(weft_symbol_free(sm));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_handle_errors),
      TEST(test_bind_errors),
      TEST(test_simple_bind_errors),
      TEST(test_backward_errors),
      TEST(test_kernel_error_at_sync_copy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
