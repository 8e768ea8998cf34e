/*
 * C ABI tests of WeftExecutorOptions and weft_executor_*bind_with_options:
 * each option's effect on the bound executor (memory plan figures, the
 * printed plan, gradient arrays and their accumulation, device groups),
 * defaults for NULL options, and the error paths of every setter and bind.
 * Each test ends with no leaked handles or bytes.
 */
#include "c_api_executor_util.h"

static const char* kArgs[3] = {"a", "b", "c"};
static const size_t kIndPtr[4] = {0, 2, 4, 6};
static const int64_t kDims[6] = {2, 3, 2, 3, 2, 3};

static WeftExecutor* bind_with(const WeftSymbolHandle* sym, const WeftExecutorOptions* opts) {
  WeftExecutor* ex = NULL;
  OK(weft_executor_simple_bind_with_options(sym, WEFT_CPU, 0, 3, kArgs, kIndPtr, kDims, 0, NULL,
                                            NULL, opts, &ex));
  return ex;
}

/* Asserts that weft_executor_print(ex) contains `want` (or lacks it). */
static void expect_print(const WeftExecutor* ex, const char* want, int present) {
  WeftStringList* l = NULL;
  const char* text = NULL;
  OK(weft_executor_print(ex, &l));
  OK(weft_string_list_get(l, 0, &text));
  if ((strstr(text, want) != NULL) != present)
    fail_msg("executor print %s \"%s\":\n%s", present ? "lacks" : "has", want, text);
  OK(weft_string_list_free(l));
}

static void forward_and_check(const WeftExecutor* ex) {
  float y[6], want[6];
  size_t i;
  set_abc(ex);
  OK(weft_executor_forward((WeftExecutor*)ex, 0));
  read_result(ex, 0, 0, y, 6);
  for (i = 0; i < 6; ++i) want[i] = kA[i] * kB[i] + kB[i] * kC[i];
  assert_floats(y, want, 6);
}

/* NULL options and fresh options both give simple_bind's defaults. */
static void test_defaults(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutorOptions* opts = NULL;
  WeftExecutor *ex = bind_with(sym, NULL), *ex2;
  WeftNDArrayList* grads = NULL;
  WeftExecutorMemory mem;
  WeftNDArray* g;
  (void)state;
  forward_and_check(ex);
  OK(weft_executor_memory(ex, &mem));
  assert_int_equal(mem.match_range, 16);
  OK(weft_executor_grad_arrays(ex, &grads));
  g = list_get(grads, 0); /* "a": written (only *data / *label get null) */
  assert_non_null(g);
  OK(weft_ndarray_free(g));
  OK(weft_ndarray_list_free(grads));

  OK(weft_executor_options_create(&opts));
  OK(weft_executor_options_set_allow_fallback(opts, 0)); /* nothing to fall back on a CPU */
  ex2 = bind_with(sym, opts);
  OK(weft_executor_memory(ex2, &mem));
  assert_int_equal(mem.match_range, 16);
  {
    /* One device: no fallback, no copies. */
    WeftStringList* fallback = NULL;
    size_t copies = 99, bytes = 99, n = 99;
    OK(weft_executor_placement(ex2, &fallback, &copies, &bytes));
    OK(weft_string_list_size(fallback, &n));
    assert_int_equal(n, 0);
    assert_int_equal(copies, 0);
    assert_int_equal(bytes, 0);
    OK(weft_string_list_free(fallback));
  }
  OK(weft_executor_free(ex2));
  OK(weft_executor_options_free(opts));
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* match_range, num_groups and bulk_max_nodes reach the plan; a failed
 * setter leaves the previous value. */
static void test_plan_options(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutorOptions* opts = NULL;
  WeftExecutor* ex;
  WeftExecutorMemory mem;
  (void)state;
  OK(weft_executor_options_create(&opts));
  OK(weft_executor_options_set_match_range(opts, 3));
  EXPECT_ERR(weft_executor_options_set_match_range(opts, -1), WEFT_ERR_INVALID_ARGUMENT,
             "weft_executor_options_set_match_range: argument 'match_range' is -1, expected >= 0");
  OK(weft_executor_options_set_num_groups(opts, 2));
  OK(weft_executor_options_set_bulk_max_nodes(opts, 1));
  ex = bind_with(sym, opts);
  OK(weft_executor_memory(ex, &mem));
  assert_int_equal(mem.match_range, 3);
  expect_print(ex, "(bulk_max_nodes 1)", 1);
  forward_and_check(ex);
  OK(weft_executor_free(ex));

  OK(weft_executor_options_set_bulk_max_nodes(opts, 7));
  ex = bind_with(sym, opts);
  expect_print(ex, "(bulk_max_nodes 7)", 1);
  forward_and_check(ex);
  OK(weft_executor_free(ex));
  OK(weft_executor_options_free(opts));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* Per-argument gradient requests: named arguments get theirs, the others
 * none; "add" accumulates over two backward passes. Without any gradient
 * the inference passes run unless optimize_inference is 0. */
static void test_grad_req_and_optimize_inference(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutorOptions* opts = NULL;
  WeftExecutor* ex;
  WeftNDArrayList* grads = NULL;
  WeftNDArray *g = make_f32(k23, 2, kG), *c_grad;
  float got[6], want[6];
  size_t i;
  (void)state;
  OK(weft_executor_options_create(&opts));
  OK(weft_executor_options_set_grad_req(opts, "a", WEFT_REQ_ADD));
  OK(weft_executor_options_set_grad_req(opts, "b", WEFT_REQ_NULL));
  OK(weft_executor_options_set_grad_req(opts, "b", WEFT_REQ_WRITE)); /* replaces */
  ex = bind_with(sym, opts);
  OK(weft_executor_grad_arrays(ex, &grads));
  c_grad = list_get(grads, 2);
  assert_null(c_grad);
  OK(weft_ndarray_list_free(grads));
  set_abc(ex);
  OK(weft_executor_forward(ex, 1));
  OK(weft_executor_backward(ex, &g, 1));
  OK(weft_executor_forward(ex, 1));
  OK(weft_executor_backward(ex, &g, 1));
  read_result(ex, 1, 0, got, 6);
  for (i = 0; i < 6; ++i) want[i] = 2 * kG[i] * kB[i]; /* added twice */
  assert_floats(got, want, 6);
  read_result(ex, 1, 1, got, 6);
  for (i = 0; i < 6; ++i) want[i] = kG[i] * (kA[i] + kC[i]); /* written */
  assert_floats(got, want, 6);
  OK(weft_executor_free(ex));
  OK(weft_executor_options_free(opts));

  /* No gradients: optimised by default, not with optimize_inference 0. */
  OK(weft_executor_options_create(&opts));
  OK(weft_executor_options_set_grad_req(opts, "a", WEFT_REQ_NULL));
  ex = bind_with(sym, opts);
  expect_print(ex, "Inference passes: off", 0);
  forward_and_check(ex);
  OK(weft_executor_free(ex));
  OK(weft_executor_options_set_optimize_inference(opts, 0));
  ex = bind_with(sym, opts);
  expect_print(ex, "Inference passes: off", 1);
  forward_and_check(ex);
  OK(weft_executor_free(ex));
  OK(weft_executor_options_free(opts));
  OK(weft_ndarray_free(g));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* Device groups through options: a * b (group dev1) + c (group dev2) with
 * dev1 on cpu(1): a lives there and a copy brings the product to cpu(0). */
static void test_groups(void** state) {
  WeftSymbolHandle* a = var("a");
  WeftSymbolHandle* b = var("b");
  WeftSymbolHandle* c = var("c");
  WeftSymbolHandle* sym;
  WeftExecutorOptions* opts = NULL;
  WeftExecutor* ex;
  (void)state;
  OK(weft_symbol_set_attr(a, "ctx_group", "dev1"));
  sym = seed_net_of(a, b, c);
  OK(weft_executor_options_create(&opts));
  OK(weft_executor_options_add_group(opts, "dev1", WEFT_CPU, 1));
  EXPECT_ERR(weft_executor_options_add_group(opts, "dev1", WEFT_CPU, 2), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'group': 'dev1' was already added");
  EXPECT_ERR(weft_executor_options_add_group(opts, "dev2", WEFT_CPU, -1), WEFT_ERR_DEVICE,
             "group 'dev2'");
  EXPECT_ERR(weft_executor_options_add_group(opts, NULL, WEFT_CPU, 0), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'group' is NULL");
  OK(weft_executor_options_add_group(opts, "dev2", WEFT_CPU, 0));
  {
    WeftExecutor* out = NULL;
    OK(weft_executor_simple_bind_with_options(sym, WEFT_CPU, 0, 3, kArgs, kIndPtr, kDims, 0, NULL,
                                              NULL, opts, &out));
    ex = out;
  }
  expect_print(ex, "_CrossDeviceCopy", 1);
  {
    /* Copies between cpu(1) and cpu(0) (the product at least); no fallback:
     * every op has a CPU kernel. */
    WeftStringList* fallback = NULL;
    size_t copies = 0, bytes = 0, n = 99;
    OK(weft_executor_placement(ex, &fallback, &copies, &bytes));
    OK(weft_string_list_size(fallback, &n));
    assert_int_equal(n, 0);
    assert_true(copies >= 1);
    assert_true(bytes >= sizeof(float) * 6); /* at least one (2, 3) float32 copy per forward */
    OK(weft_string_list_free(fallback));
    EXPECT_ERR(weft_executor_placement(ex, NULL, &copies, &bytes), WEFT_ERR_INVALID_ARGUMENT,
               "argument 'fallback_nodes' is NULL");
    EXPECT_ERR(weft_executor_placement(ex, &fallback, &copies, NULL), WEFT_ERR_INVALID_ARGUMENT,
               "argument 'forward_copy_bytes' is NULL");
  }
  {
    WeftNDArrayList* args = NULL;
    WeftNDArray* arr;
    int type = -1, id = -1;
    OK(weft_executor_arg_arrays(ex, &args));
    arr = list_get(args, 0);
    OK(weft_ndarray_context(arr, &type, &id));
    assert_int_equal(id, 1);
    OK(weft_ndarray_free(arr));
    OK(weft_ndarray_list_free(args));
  }
  OK(weft_executor_free(ex));
  OK(weft_executor_options_free(opts));
  OK(weft_symbol_free(sym));
  OK(weft_wait_all());
  assert_int_equal(weft_live_handle_count(), g_start_handles);
}

/* weft_executor_bind_with_options: the given arrays, options for the plan. */
static void test_bind_with_options(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutorOptions* opts = NULL;
  WeftNDArray* args[3];
  WeftExecutor* ex = NULL;
  WeftExecutorMemory mem;
  int i;
  (void)state;
  for (i = 0; i < 3; ++i) args[i] = make_f32(k23, 2, NULL);
  OK(weft_executor_options_create(&opts));
  OK(weft_executor_options_set_match_range(opts, 5));
  OK(weft_executor_bind_with_options(sym, WEFT_CPU, 0, args, 3, NULL, NULL, NULL, 0, opts, &ex));
  OK(weft_executor_memory(ex, &mem));
  assert_int_equal(mem.match_range, 5);
  forward_and_check(ex);
  OK(weft_executor_free(ex));
  /* Gradient requests by name are for simple_bind only. */
  OK(weft_executor_options_set_grad_req(opts, "a", WEFT_REQ_WRITE));
  ex = NULL;
  EXPECT_ERR(
      weft_executor_bind_with_options(sym, WEFT_CPU, 0, args, 3, NULL, NULL, NULL, 0, opts, &ex),
      WEFT_ERR_INVALID_ARGUMENT,
      "weft_executor_bind_with_options: argument 'opts' sets gradient requests", "'grad_reqs'");
  assert_null(ex);
  OK(weft_executor_options_free(opts));
  for (i = 0; i < 3; ++i) OK(weft_ndarray_free(args[i]));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

static void test_errors(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutorOptions *opts = NULL, *stale = NULL;
  WeftExecutor* ex = NULL;
  WeftNDArray* arr = make_f32(k23, 2, NULL);
  (void)state;
  EXPECT_ERR(weft_executor_options_create(NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out' is NULL");
  OK(weft_executor_options_free(NULL));
  EXPECT_ERR(weft_executor_options_set_match_range(NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'opts' is NULL");
  EXPECT_ERR(weft_executor_options_set_num_groups(NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'opts' is NULL");
  EXPECT_ERR(weft_executor_options_set_bulk_max_nodes(NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'opts' is NULL");
  EXPECT_ERR(weft_executor_options_set_optimize_inference(NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'opts' is NULL");
  EXPECT_ERR(weft_executor_options_add_group(NULL, "g", WEFT_CPU, 0), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'opts' is NULL");
  EXPECT_ERR(weft_executor_options_set_grad_req(NULL, "a", WEFT_REQ_WRITE),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'opts' is NULL");
  /* A foreign handle where options are expected. */
  EXPECT_ERR(weft_executor_options_set_num_groups((WeftExecutorOptions*)arr, 1),
             WEFT_ERR_INVALID_HANDLE,
             "argument 'opts' is a WeftNDArray handle, expected a WeftExecutorOptions handle");
  EXPECT_ERR(weft_executor_options_free((WeftExecutorOptions*)arr), WEFT_ERR_INVALID_HANDLE,
             "is a WeftNDArray handle, expected a WeftExecutorOptions handle");
  EXPECT_ERR(
      weft_executor_simple_bind_with_options(sym, WEFT_CPU, 0, 3, kArgs, kIndPtr, kDims, 0, NULL,
                                             NULL, (const WeftExecutorOptions*)arr, &ex),
      WEFT_ERR_INVALID_HANDLE,
      "argument 'opts' is a WeftNDArray handle, expected a WeftExecutorOptions");

  OK(weft_executor_options_create(&opts));
  EXPECT_ERR(weft_executor_options_set_num_groups(opts, 0), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'num_groups' is 0, expected >= 1");
  EXPECT_ERR(weft_executor_options_set_optimize_inference(opts, 2), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'enable' is 2, expected 0 or 1");
  EXPECT_ERR(weft_executor_options_set_allow_fallback(opts, 2), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'enable' is 2, expected 0 or 1");
  EXPECT_ERR(weft_executor_options_set_allow_fallback(NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'opts' is NULL");
  EXPECT_ERR(
      weft_executor_options_set_grad_req(opts, "a", 2), WEFT_ERR_INVALID_ARGUMENT,
      "argument 'req' is 2, expected WEFT_REQ_NULL (0), WEFT_REQ_WRITE (1) or WEFT_REQ_ADD (3)");
  EXPECT_ERR(weft_executor_options_set_grad_req(opts, NULL, WEFT_REQ_WRITE),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'arg' is NULL");
  EXPECT_ERR(weft_executor_options_set_grad_req(opts, "", WEFT_REQ_WRITE),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'arg' is \"\"");
  EXPECT_ERR(weft_executor_simple_bind_with_options(sym, WEFT_CPU, 0, 3, kArgs, kIndPtr, kDims, 0,
                                                    NULL, NULL, opts, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  /* A name that is not an argument fails at bind time, naming it. */
  OK(weft_executor_options_set_grad_req(opts, "zz", WEFT_REQ_WRITE));
  EXPECT_ERR(weft_executor_simple_bind_with_options(sym, WEFT_CPU, 0, 3, kArgs, kIndPtr, kDims, 0,
                                                    NULL, NULL, opts, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "weft_executor_simple_bind_with_options",
             "'zz', not an argument");
  assert_null(ex);

  stale = opts;
  OK(weft_executor_options_free(opts));
  EXPECT_ERR(weft_executor_options_set_match_range(stale, 1), WEFT_ERR_INVALID_HANDLE,
             "argument 'opts' is a freed or invalid WeftExecutorOptions handle");
  EXPECT_ERR(weft_executor_options_free(stale), WEFT_ERR_INVALID_HANDLE,
             "weft_executor_options_free: argument 'opts' is a freed or invalid "
             "WeftExecutorOptions handle");
  EXPECT_ERR(
      weft_executor_bind_with_options(sym, WEFT_CPU, 0, &arr, 1, NULL, NULL, NULL, 0, stale, &ex),
      WEFT_ERR_INVALID_HANDLE, "argument 'opts' is a freed or invalid WeftExecutorOptions handle");
  assert_null(ex);
  OK(weft_ndarray_free(arr));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_defaults), TEST(test_plan_options),      TEST(test_grad_req_and_optimize_inference),
      TEST(test_groups),   TEST(test_bind_with_options), TEST(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
