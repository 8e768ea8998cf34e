/*
 * C ABI test (C99, CMocka, against libweft.so): bfloat16 arrays (WEFT_BFLOAT16 = 12, MXNet's
 * code) and the float32 conversions weft_ndarray_copy_from_float32 / copy_to_float32 for every
 * dtype, and weft_executor_float32_nodes for a graph bound on float16 arrays. Every test ends
 * with no leaked handle or byte (assert_no_leaks).
 */
#include "c_test_util.h"

/* Values that every dtype holds exactly, then ones that round. */
static void test_float32_conversions(void** state) {
  static const int kCodes[8] = {WEFT_FLOAT32, WEFT_FLOAT64, WEFT_FLOAT16, WEFT_UINT8,
                                WEFT_INT32,   WEFT_INT8,    WEFT_INT64,   WEFT_BFLOAT16};
  const int64_t shape[1] = {4};
  const float exact[4] = {0, 1, 2, 100};
  float back[4];
  uint16_t bits[4];
  WeftNDArray* a = NULL;
  int i, dtype = -1;
  (void)state;
  for (i = 0; i < 8; ++i) {
    OK(weft_ndarray_create(shape, 1, kCodes[i], WEFT_CPU, 0, &a));
    OK(weft_ndarray_dtype(a, &dtype));
    assert_int_equal(dtype, kCodes[i]);
    OK(weft_ndarray_copy_from_float32(a, exact, 4));
    memset(back, 0, sizeof back);
    OK(weft_ndarray_copy_to_float32(a, back, 4));
    assert_memory_equal(back, exact, sizeof exact);
    OK(weft_ndarray_free(a));
  }
  /* bfloat16 keeps 8 significant bits: 1 + 2^-8 is a tie and goes to the
   * even 1.0 (0x3f80); 3.14159 becomes 3.140625 (0x4049). */
  {
    const float in[4] = {1.00390625f, 3.14159f, -2.0f, 65536.0f};
    OK(weft_ndarray_create(shape, 1, WEFT_BFLOAT16, WEFT_CPU, 0, &a));
    OK(weft_ndarray_copy_from_float32(a, in, 4));
    OK(weft_ndarray_copy_to(a, bits, sizeof bits));
    assert_int_equal(bits[0], 0x3f80);
    assert_int_equal(bits[1], 0x4049);
    assert_int_equal(bits[2], 0xc000);
    assert_int_equal(bits[3], 0x4780);
    OK(weft_ndarray_copy_to_float32(a, back, 4));
    assert_true(back[1] == 3.140625f);
    EXPECT_ERR(weft_ndarray_copy_to_float32(a, back, 3), WEFT_ERR_INVALID_ARGUMENT,
               "weft_ndarray_copy_to_float32", "argument 'count' is 3, expected 4");
    EXPECT_ERR(weft_ndarray_copy_from_float32(a, NULL, 4), WEFT_ERR_INVALID_ARGUMENT,
               "argument 'data' is NULL");
    EXPECT_ERR(weft_ndarray_copy_from_float32(NULL, in, 4), WEFT_ERR_INVALID_ARGUMENT,
               "'arr' is NULL");
    OK(weft_ndarray_free(a));
  }
  EXPECT_ERR(weft_ndarray_create(shape, 1, 11, WEFT_CPU, 0, &a), WEFT_ERR_DTYPE,
             "argument 'dtype' is 11", "bfloat16");
  assert_no_leaks();
}

/* FullyConnected has no float16 kernel: bound on float16 arrays it computes
 * in float32 between Casts, and the executor names it. */
static void test_executor_float32_nodes(void** state) {
  const char* keys[1] = {"num_hidden"};
  const char* vals[1] = {"2"};
  const char* names[1] = {"data"};
  const size_t ind_ptr[2] = {0, 2};
  const int64_t dims[2] = {3, 4};
  const char* dtype_names[1] = {"data"};
  const int dtypes[1] = {WEFT_FLOAT16};
  WeftSymbolHandle *fc = NULL, *data = NULL;
  WeftExecutor* ex = NULL;
  WeftStringList* nodes = NULL;
  const char* name = NULL;
  size_t n = 0;
  (void)state;
  OK(weft_symbol_create_variable("data", &data));
  OK(weft_symbol_create_atomic("FullyConnected", keys, vals, 1, &fc));
  OK(weft_symbol_compose(fc, "fc", 1, NULL, &data));
  OK(weft_executor_simple_bind(fc, WEFT_CPU, 0, 1, names, ind_ptr, dims, 1, dtype_names, dtypes,
                               "null", &ex));
  OK(weft_executor_float32_nodes(ex, &nodes));
  OK(weft_string_list_size(nodes, &n));
  assert_int_equal(n, 1);
  OK(weft_string_list_get(nodes, 0, &name));
  assert_string_equal(name, "fc");
  OK(weft_string_list_free(nodes));
  EXPECT_ERR(weft_executor_float32_nodes(ex, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(fc));
  OK(weft_symbol_free(data));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_float32_conversions),
      TEST(test_executor_float32_nodes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
