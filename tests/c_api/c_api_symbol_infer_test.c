/*
 * The symbol C ABI: shape and type inference (full and partial),
 * result handles and their errors (conflicts, bad inputs, out-of-range
 * queries).
 * Pure C99 against libweft.so (CMocka). Each test ends by asserting that
 * the number of live handles is back to its value at the start.
 */
#include "c_api_symbol_util.h"

static void test_infer_shape_mutual(void** state) {
  const char* names[] = {"a", "c"};
  size_t ind_ptr[] = {0, 2, 4};
  int64_t dims[] = {2, 0, 0, 3};
  WeftSymbolHandle* s = make_abc();
  WeftShapeResult* r = NULL;
  int complete = -1;
  size_t n = 99;
  int64_t buf[4];
  const char* name = NULL;
  (void)state;
  OK(weft_symbol_infer_shape(s, 2, names, ind_ptr, dims, &r));
  OK(weft_shape_result_complete(r, &complete));
  assert_int_equal(complete, 1);
  OK(weft_shape_result_count(r, WEFT_GROUP_ARGUMENTS, &n));
  assert_int_equal(n, 3);
  expect_shape(r, WEFT_GROUP_ARGUMENTS, 0, "a", 2, 2, 3);
  expect_shape(r, WEFT_GROUP_ARGUMENTS, 1, "b", 2, 2, 3);
  expect_shape(r, WEFT_GROUP_ARGUMENTS, 2, "c", 2, 2, 3);
  OK(weft_shape_result_count(r, WEFT_GROUP_OUTPUTS, &n));
  assert_int_equal(n, 1);
  expect_shape(r, WEFT_GROUP_OUTPUTS, 0, "sum_output", 2, 2, 3);
  OK(weft_shape_result_count(r, WEFT_GROUP_AUX_STATES, &n));
  assert_int_equal(n, 0);
  OK(weft_shape_result_num_unknown(r, &n));
  assert_int_equal(n, 0);

  /* Query errors. */
  EXPECT_ERR(weft_shape_result_count(r, 3, &n), WEFT_ERR_INVALID_ARGUMENT, "'group' is 3");
  EXPECT_ERR(weft_shape_result_count(r, -1, &n), WEFT_ERR_INVALID_ARGUMENT, "'group' is -1");
  EXPECT_ERR(weft_shape_result_count(r, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_shape_result_name(r, WEFT_GROUP_ARGUMENTS, 3, &name), WEFT_ERR_INVALID_ARGUMENT,
             "'index' is 3", "arguments group has 3");
  EXPECT_ERR(weft_shape_result_name(r, WEFT_GROUP_OUTPUTS, 0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out_name'");
  EXPECT_ERR(weft_shape_result_ndim(r, WEFT_GROUP_AUX_STATES, 0, &complete),
             WEFT_ERR_INVALID_ARGUMENT, "'index' is 0", "auxiliary states group has 0");
  EXPECT_ERR(weft_shape_result_ndim(r, 0, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_shape_result_dims(r, 0, 0, buf, 1), WEFT_ERR_INVALID_ARGUMENT, "'capacity' is 1",
             "(2,3)", "'a'", "rank 2");
  EXPECT_ERR(weft_shape_result_dims(r, 0, 0, NULL, 4), WEFT_ERR_INVALID_ARGUMENT, "'out_dims'");
  EXPECT_ERR(weft_shape_result_complete(r, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_shape_result_num_unknown(r, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_shape_result_unknown_name(r, 0, &name), WEFT_ERR_INVALID_ARGUMENT, "'index' is 0",
             "unknown entries has 0");
  OK(weft_shape_result_free(r));
  EXPECT_ERR(weft_shape_result_complete(r, &complete), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftShapeResult");
  EXPECT_ERR(weft_shape_result_free(r), WEFT_ERR_INVALID_HANDLE, "freed or invalid");
  OK(weft_shape_result_free(NULL));
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static void test_infer_shape_partial(void** state) {
  const char* names[] = {"a"};
  size_t ind_ptr[] = {0, 2};
  int64_t dims[] = {2, 0};
  WeftSymbolHandle* s = make_abc();
  WeftShapeResult* r = NULL;
  int complete = -1;
  size_t n = 0, i;
  int found_c = 0;
  int64_t buf[4];
  (void)state;
  EXPECT_ERR(weft_symbol_infer_shape(s, 1, names, ind_ptr, dims, &r), WEFT_ERR_SHAPE, "incomplete",
             "a (2,0)", "weft_symbol_infer_shape_partial");
  assert_null(r);
  OK(weft_symbol_infer_shape_partial(s, 1, names, ind_ptr, dims, &r));
  OK(weft_shape_result_complete(r, &complete));
  assert_int_equal(complete, 0);
  expect_shape(r, WEFT_GROUP_ARGUMENTS, 0, "a", 2, 2, 0);
  expect_shape(r, WEFT_GROUP_OUTPUTS, 0, "sum_output", 2, 2, 0);
  /* c is only known to have rank 2 (from the elementwise ops)... or nothing. */
  assert_true(shape_of(r, WEFT_GROUP_ARGUMENTS, 2, buf) == 2 ||
              shape_of(r, WEFT_GROUP_ARGUMENTS, 2, buf) == -1);
  OK(weft_shape_result_num_unknown(r, &n));
  assert_true(n >= 4);
  for (i = 0; i < n; ++i) {
    const char* name = NULL;
    OK(weft_shape_result_unknown_name(r, i, &name));
    if (strcmp(name, "c") == 0) found_c = 1;
  }
  assert_true(found_c);
  OK(weft_shape_result_free(r));
  /* No inputs at all: everything unknown, no error. */
  OK(weft_symbol_infer_shape_partial(s, 0, NULL, NULL, NULL, &r));
  OK(weft_shape_result_complete(r, &complete));
  assert_int_equal(complete, 0);
  assert_int_equal(shape_of(r, WEFT_GROUP_ARGUMENTS, 1, buf), -1);
  OK(weft_shape_result_dims(r, WEFT_GROUP_ARGUMENTS, 1, NULL, 0)); /* unknown rank: 0 dims */
  OK(weft_shape_result_free(r));
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static void test_infer_shape_hints(void** state) {
  WeftSymbolHandle *x, *y;
  WeftShapeResult* r = NULL;
  WeftTypeResult* t = NULL;
  int dtype = -2;
  (void)state;
  x = var("x");
  OK(weft_symbol_set_attr(x, "__shape__", "(4,5)"));
  OK(weft_symbol_set_attr(x, "__dtype__", "float64"));
  y = apply("tanh", "y", &x, 1);
  OK(weft_symbol_infer_shape(y, 0, NULL, NULL, NULL, &r));
  expect_shape(r, WEFT_GROUP_OUTPUTS, 0, "y_output", 2, 4, 5);
  OK(weft_shape_result_free(r));
  OK(weft_symbol_infer_type(y, 0, NULL, NULL, &t));
  OK(weft_type_result_dtype(t, WEFT_GROUP_OUTPUTS, 0, &dtype));
  assert_int_equal(dtype, WEFT_FLOAT64);
  OK(weft_type_result_free(t));
  OK(weft_symbol_free(y));
  OK(weft_symbol_free(x));
  assert_no_leaks();
}

static void test_infer_shape_errors(void** state) {
  const char* ab[] = {"a", "b"};
  const char* aa[] = {"a", "a"};
  const char* zz[] = {"zz"};
  const char* null_name[] = {NULL};
  size_t ind_ptr[] = {0, 2, 4};
  size_t bad_start[] = {1, 2};
  size_t decreasing[] = {0, 2, 1};
  int64_t conflict[] = {2, 3, 3, 2};
  int64_t negative[] = {2, -3};
  WeftSymbolHandle* s = make_abc();
  WeftShapeResult* r = NULL;
  (void)state;
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 2, ab, ind_ptr, conflict, &r), WEFT_ERR_SHAPE,
             "(2,3)", "(3,2)", "ab");
  EXPECT_ERR(weft_symbol_infer_shape(s, 2, ab, ind_ptr, conflict, &r), WEFT_ERR_SHAPE, "(2,3)",
             "(3,2)");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 1, zz, ind_ptr, conflict, &r),
             WEFT_ERR_INVALID_ARGUMENT, "zz", "a", "b", "c");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 2, aa, ind_ptr, conflict, &r),
             WEFT_ERR_INVALID_ARGUMENT, "'a' is given twice");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 1, null_name, ind_ptr, conflict, &r),
             WEFT_ERR_INVALID_ARGUMENT, "names[0]");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 1, ab, ind_ptr, negative, &r), WEFT_ERR_SHAPE,
             "input 'a'", "-3", ">= 0");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 1, ab, bad_start, conflict, &r),
             WEFT_ERR_INVALID_ARGUMENT, "ind_ptr[0] is 1");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 2, ab, decreasing, conflict, &r),
             WEFT_ERR_INVALID_ARGUMENT, "ind_ptr[2] is 1");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 2, NULL, ind_ptr, conflict, &r),
             WEFT_ERR_INVALID_ARGUMENT, "'names'");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 2, ab, NULL, conflict, &r),
             WEFT_ERR_INVALID_ARGUMENT, "'ind_ptr'");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 2, ab, ind_ptr, NULL, &r),
             WEFT_ERR_INVALID_ARGUMENT, "'dims'");
  EXPECT_ERR(weft_symbol_infer_shape_partial(s, 0, NULL, NULL, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_symbol_infer_shape(NULL, 0, NULL, NULL, NULL, &r), WEFT_ERR_INVALID_ARGUMENT,
             "'sym'");
  assert_null(r);
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static void test_infer_type(void** state) {
  const char* a[] = {"a"};
  const char* ab[] = {"a", "b"};
  const char* zz[] = {"zz"};
  int f64[] = {WEFT_FLOAT64};
  int mixed[] = {WEFT_FLOAT32, WEFT_FLOAT64};
  int bad[] = {42};
  WeftSymbolHandle* s = make_abc();
  WeftTypeResult* t = NULL;
  int complete = -1, dtype = -2;
  size_t n = 0, i;
  const char* name = NULL;
  (void)state;
  OK(weft_symbol_infer_type(s, 1, a, f64, &t));
  OK(weft_type_result_complete(t, &complete));
  assert_int_equal(complete, 1);
  for (i = 0; i < 3; ++i) {
    OK(weft_type_result_dtype(t, WEFT_GROUP_ARGUMENTS, i, &dtype));
    assert_int_equal(dtype, WEFT_FLOAT64);
  }
  OK(weft_type_result_name(t, WEFT_GROUP_ARGUMENTS, 2, &name));
  assert_string_equal(name, "c");
  OK(weft_type_result_count(t, WEFT_GROUP_OUTPUTS, &n));
  assert_int_equal(n, 1);
  OK(weft_type_result_name(t, WEFT_GROUP_OUTPUTS, 0, &name));
  assert_string_equal(name, "sum_output");
  OK(weft_type_result_num_unknown(t, &n));
  assert_int_equal(n, 0);
  EXPECT_ERR(weft_type_result_dtype(t, WEFT_GROUP_OUTPUTS, 1, &dtype), WEFT_ERR_INVALID_ARGUMENT,
             "'index' is 1", "outputs group has 1");
  EXPECT_ERR(weft_type_result_dtype(t, 7, 0, &dtype), WEFT_ERR_INVALID_ARGUMENT, "'group' is 7");
  EXPECT_ERR(weft_type_result_dtype(t, 0, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_type_result_name(t, 0, 5, &name), WEFT_ERR_INVALID_ARGUMENT, "'index' is 5");
  EXPECT_ERR(weft_type_result_count(t, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_type_result_unknown_name(t, 0, &name), WEFT_ERR_INVALID_ARGUMENT, "'index' is 0");
  EXPECT_ERR(weft_type_result_complete(t, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_type_result_num_unknown(t, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  OK(weft_type_result_free(t));
  EXPECT_ERR(weft_type_result_free(t), WEFT_ERR_INVALID_HANDLE, "freed or invalid WeftTypeResult");
  OK(weft_type_result_free(NULL));

  /* Partial: nothing given. */
  EXPECT_ERR(weft_symbol_infer_type(s, 0, NULL, NULL, &t), WEFT_ERR_DTYPE, "incomplete", "a",
             "weft_symbol_infer_type_partial");
  OK(weft_symbol_infer_type_partial(s, 0, NULL, NULL, &t));
  OK(weft_type_result_complete(t, &complete));
  assert_int_equal(complete, 0);
  OK(weft_type_result_dtype(t, WEFT_GROUP_ARGUMENTS, 0, &dtype));
  assert_int_equal(dtype, -1);
  OK(weft_type_result_num_unknown(t, &n));
  assert_true(n >= 4);
  OK(weft_type_result_unknown_name(t, 0, &name));
  assert_true(strlen(name) > 0);
  OK(weft_type_result_free(t));
  t = NULL;

  /* Errors. */
  EXPECT_ERR(weft_symbol_infer_type_partial(s, 2, ab, mixed, &t), WEFT_ERR_DTYPE, "float32",
             "float64");
  EXPECT_ERR(weft_symbol_infer_type_partial(s, 1, a, bad, &t), WEFT_ERR_DTYPE, "dtypes[0]", "42",
             "'a'");
  EXPECT_ERR(weft_symbol_infer_type_partial(s, 1, zz, f64, &t), WEFT_ERR_INVALID_ARGUMENT, "zz");
  EXPECT_ERR(weft_symbol_infer_type_partial(s, 1, a, NULL, &t), WEFT_ERR_INVALID_ARGUMENT,
             "'dtypes'");
  EXPECT_ERR(weft_symbol_infer_type_partial(s, 0, NULL, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out'");
  assert_null(t);
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

/* BatchNorm mutates its moving mean and variance: they are auxiliary states. */
static void test_aux_states(void** state) {
  WeftSymbolHandle *x, *bn;
  WeftStringList* l = NULL;
  WeftShapeResult* r = NULL;
  const char* names[] = {"data"};
  size_t ind_ptr[] = {0, 2};
  int64_t dims[] = {4, 3};
  size_t n = 0;
  (void)state;
  x = var("data");
  bn = apply("BatchNorm", "bn1", &x, 1);
  OK(weft_symbol_list_auxiliary_states(bn, &l));
  expect_list(l, "bn1_moving_mean,bn1_moving_var");
  expect_arguments(bn, "data,bn1_gamma,bn1_beta");
  OK(weft_symbol_infer_shape(bn, 1, names, ind_ptr, dims, &r));
  OK(weft_shape_result_count(r, WEFT_GROUP_AUX_STATES, &n));
  assert_int_equal(n, 2);
  expect_shape(r, WEFT_GROUP_AUX_STATES, 0, "bn1_moving_mean", 1, 3, 0);
  OK(weft_shape_result_free(r));
  OK(weft_symbol_free(bn));
  OK(weft_symbol_free(x));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_infer_shape_mutual), TEST(test_infer_shape_partial), TEST(test_infer_shape_hints),
      TEST(test_infer_shape_errors), TEST(test_infer_type),          TEST(test_aux_states),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
