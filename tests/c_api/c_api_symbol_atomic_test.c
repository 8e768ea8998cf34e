/*
 * An operator symbol from weft_symbol_create_atomic that was never composed
 * has no inputs: shape inference, composition into another symbol and bind
 * (with gradients) must refuse it with a clear error, never crash.
 * Pure C99 against libweft.so (CMocka).
 */
#include "c_api_symbol_util.h"

static WeftSymbolHandle* uncomposed_fc(void) {
  const char* keys[] = {"num_hidden"};
  const char* vals[] = {"2"};
  WeftSymbolHandle* fc = NULL;
  OK(weft_symbol_create_atomic("FullyConnected", keys, vals, 1, &fc));
  return fc;
}

static void test_infer_shape_of_uncomposed(void** state) {
  WeftSymbolHandle* fc = uncomposed_fc();
  WeftShapeResult* r = NULL;
  const char* names[] = {"unused"};
  size_t ind_ptr[] = {0};
  int64_t dims[] = {0};
  (void)state;
  EXPECT_ERR(weft_symbol_infer_shape(fc, 0, names, ind_ptr, dims, &r), WEFT_ERR_INVALID_ARGUMENT,
             "FullyConnected", "has 0 inputs", "takes 3 (data, weight, bias)", "must be composed");
  assert_null(r);
  OK(weft_symbol_free(fc));
  assert_no_leaks();
}

static void test_compose_with_uncomposed_argument(void** state) {
  WeftSymbolHandle* fc = uncomposed_fc();
  WeftSymbolHandle* x = var("x");
  WeftSymbolHandle* relu = apply("relu", "r", &x, 1);
  WeftSymbolHandle* act = NULL;
  const char* keys[] = {"act_type"};
  const char* vals[] = {"relu"};
  (void)state;
  /* Into an atomic symbol. */
  OK(weft_symbol_create_atomic("Activation", keys, vals, 1, &act));
  EXPECT_ERR(weft_symbol_compose(act, "a", 1, NULL, &fc), WEFT_ERR_INVALID_ARGUMENT,
             "argument 0 ('data')", "uncomposed FullyConnected", "compose it");
  /* Into a composed graph, replacing its variable x. */
  EXPECT_ERR(weft_symbol_compose(relu, NULL, 1, NULL, &fc), WEFT_ERR_INVALID_ARGUMENT,
             "uncomposed FullyConnected");
  expect_arguments(relu, "x");
  OK(weft_symbol_free(act));
  OK(weft_symbol_free(relu));
  OK(weft_symbol_free(x));
  OK(weft_symbol_free(fc));
  assert_no_leaks();
}

static void test_bind_uncomposed(void** state) {
  WeftSymbolHandle* fc = uncomposed_fc();
  WeftExecutor* ex = NULL;
  const char* names[] = {"unused"};
  size_t ind_ptr[] = {0};
  int64_t dims[] = {0};
  const int dtypes[] = {0};
  WeftNDArray* none[] = {NULL};
  (void)state;
  EXPECT_ERR(weft_executor_simple_bind(fc, WEFT_CPU, 0, 0, names, ind_ptr, dims, 0, names, dtypes,
                                       "write", &ex),
             WEFT_ERR_INVALID_ARGUMENT, "FullyConnected", "has 0 inputs", "must be composed");
  EXPECT_ERR(weft_executor_bind(fc, WEFT_CPU, 0, none, 0, none, NULL, none, 0, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "FullyConnected", "has 0 inputs");
  assert_null(ex);
  OK(weft_symbol_free(fc));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_infer_shape_of_uncomposed),
      TEST(test_compose_with_uncomposed_argument),
      TEST(test_bind_uncomposed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
