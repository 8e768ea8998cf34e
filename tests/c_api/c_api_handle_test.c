/*
 * C ABI tests of the handle registry: for every handle kind that a test can
 * make directly, its free function accepts NULL, frees once, and then
 * rejects the stale handle, a live handle of another kind and an integer
 * that was never a handle, each with the one message naming the argument
 * and both kinds; the live-handle count returns to its baseline.
 */
#include "c_test_util.h"

enum {
  K_NDARRAY,
  K_LIST,
  K_BUFFER,
  K_SYMBOL,
  K_STRING_LIST,
  K_SHAPE_RESULT,
  K_TYPE_RESULT,
  K_ENGINE_VAR,
  K_EXECUTOR_OPTIONS,
  K_INITIALIZER,
  K_OPTIMIZER,
  K_METRIC,
  K_COUNT
};

static const char* const kNames[K_COUNT] = {
    "WeftNDArray",         "WeftNDArrayList", "WeftBuffer",     "WeftSymbolHandle",
    "WeftStringList",      "WeftShapeResult", "WeftTypeResult", "WeftEngineVar",
    "WeftExecutorOptions", "WeftInitializer", "WeftOptimizer",  "WeftMetric"};

/* A new handle of `kind`. */
static void* make(int kind) {
  static const int64_t shape[1] = {2};
  static const char* const names[1] = {"x"};
  static const size_t ind_ptr[2] = {0, 1};
  static const int dtypes[1] = {WEFT_FLOAT32};
  void* h = NULL;
  WeftSymbolHandle* x = NULL;
  switch (kind) {
    case K_NDARRAY:
      return make_f32(shape, 1, NULL);
    case K_LIST:
      OK(weft_ndarray_list_create(NULL, NULL, 0, (WeftNDArrayList**)&h));
      break;
    case K_BUFFER:
      OK(weft_ndarray_save_buffer(NULL, NULL, 0, (WeftBuffer**)&h));
      break;
    case K_SYMBOL:
      OK(weft_symbol_create_variable("x", (WeftSymbolHandle**)&h));
      break;
    case K_STRING_LIST:
    case K_SHAPE_RESULT:
    case K_TYPE_RESULT:
      OK(weft_symbol_create_variable("x", &x));
      if (kind == K_STRING_LIST) OK(weft_symbol_list_arguments(x, (WeftStringList**)&h));
      if (kind == K_SHAPE_RESULT)
        OK(weft_symbol_infer_shape(x, 1, names, ind_ptr, shape, (WeftShapeResult**)&h));
      if (kind == K_TYPE_RESULT)
        OK(weft_symbol_infer_type(x, 1, names, dtypes, (WeftTypeResult**)&h));
      OK(weft_symbol_free(x));
      break;
    case K_ENGINE_VAR:
      OK(weft_engine_var_create((WeftEngineVar**)&h));
      break;
    case K_EXECUTOR_OPTIONS:
      OK(weft_executor_options_create((WeftExecutorOptions**)&h));
      break;
    case K_INITIALIZER:
      OK(weft_initializer_create("zero", NULL, NULL, 0, 0, (WeftInitializer**)&h));
      break;
    case K_OPTIMIZER:
      OK(weft_optimizer_create("sgd", NULL, NULL, 0, (WeftOptimizer**)&h));
      break;
    case K_METRIC:
      OK(weft_metric_create("acc", NULL, NULL, 0, (WeftMetric**)&h));
      break;
    default:
      fail_msg("unknown kind %d", kind);
  }
  assert_non_null(h);
  return h;
}

/* The free function of `kind` on `h` (of any type). */
static WeftStatus free_as(int kind, void* h) {
  switch (kind) {
    case K_NDARRAY:
      return weft_ndarray_free((WeftNDArray*)h);
    case K_LIST:
      return weft_ndarray_list_free((WeftNDArrayList*)h);
    case K_BUFFER:
      return weft_buffer_free((WeftBuffer*)h);
    case K_SYMBOL:
      return weft_symbol_free((WeftSymbolHandle*)h);
    case K_STRING_LIST:
      return weft_string_list_free((WeftStringList*)h);
    case K_SHAPE_RESULT:
      return weft_shape_result_free((WeftShapeResult*)h);
    case K_TYPE_RESULT:
      return weft_type_result_free((WeftTypeResult*)h);
    case K_ENGINE_VAR:
      return weft_engine_var_free((WeftEngineVar*)h);
    case K_EXECUTOR_OPTIONS:
      return weft_executor_options_free((WeftExecutorOptions*)h);
    case K_INITIALIZER:
      return weft_initializer_free((WeftInitializer*)h);
    case K_OPTIMIZER:
      return weft_optimizer_free((WeftOptimizer*)h);
    case K_METRIC:
      return weft_metric_free((WeftMetric*)h);
  }
  fail_msg("unknown kind %d", kind);
  return WEFT_ERR_INTERNAL;
}

static void test_every_kind_rejects_stale_foreign_and_fake_handles(void** state) {
  char want[160];
  int kind;
  (void)state;
  for (kind = 0; kind < K_COUNT; ++kind) {
    const int other_kind = kind == K_NDARRAY ? K_LIST : K_NDARRAY;
    void* h = make(kind);
    void* other = make(other_kind);
    const size_t live = weft_live_handle_count();

    OK(free_as(kind, NULL));
    /* Another kind's live handle: named, and left alive. */
    snprintf(want, sizeof want, "is a %s handle, expected a %s handle", kNames[other_kind],
             kNames[kind]);
    EXPECT_ERR(free_as(kind, other), WEFT_ERR_INVALID_HANDLE, "argument '", want);
    assert_int_equal(weft_live_handle_count(), live);
    /* An integer that was never a handle. */
    snprintf(want, sizeof want, "is a freed or invalid %s handle", kNames[kind]);
    EXPECT_ERR(free_as(kind, (void*)(uintptr_t)0x1000), WEFT_ERR_INVALID_HANDLE, want);
    /* Freed once, then stale. */
    OK(free_as(kind, h));
    assert_int_equal(weft_live_handle_count(), live - 1);
    EXPECT_ERR(free_as(kind, h), WEFT_ERR_INVALID_HANDLE, want);
    assert_int_equal(weft_live_handle_count(), live - 1);
    OK(free_as(other_kind, other));
  }
  assert_no_leaks();
}

/* A stale handle never aliases the next object made in its slot. */
static void test_reused_slot_rejects_stale_handle(void** state) {
  WeftExecutorOptions *a = NULL, *b = NULL;
  (void)state;
  OK(weft_executor_options_create(&a));
  OK(weft_executor_options_free(a));
  OK(weft_executor_options_create(&b));
  assert_ptr_not_equal(a, b);
  EXPECT_ERR(weft_executor_options_set_num_groups(a, 2), WEFT_ERR_INVALID_HANDLE,
             "weft_executor_options_set_num_groups: argument 'opts' is a freed or invalid "
             "WeftExecutorOptions handle");
  OK(weft_executor_options_set_num_groups(b, 2));
  OK(weft_executor_options_free(b));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_every_kind_rejects_stale_foreign_and_fake_handles),
      TEST(test_reused_slot_rejects_stale_handle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
