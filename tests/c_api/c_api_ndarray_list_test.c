/*
 * C ABI tests of weft_ndarray_list_create: named and unnamed lists sharing
 * the arrays' storage, none entries, the empty list, agreement with the
 * .params bytes of the same arrays, and the error paths (NULL pointers and
 * names, repeated names, freed and foreign handles) leaving nothing behind.
 */
#include "c_test_util.h"

static const int64_t kShape[1] = {3};
static const float kX[3] = {1, 2, 3};
static const float kY[3] = {-4, 5, 0.5f};

static void expect_name(const WeftNDArrayList* l, size_t i, const char* want) {
  const char* got = NULL;
  OK(weft_ndarray_list_name(l, i, &got));
  assert_string_equal(got, want);
}

static void test_named_list_shares_storage(void** state) {
  WeftNDArray* arrays[2];
  const char* names[2] = {"arg:w", "aux:m"};
  WeftNDArrayList* l = NULL;
  WeftNDArray* got = NULL;
  size_t n = 0;
  int named = 0;
  float v[3];
  (void)state;
  arrays[0] = make_f32(kShape, 1, kX);
  arrays[1] = make_f32(kShape, 1, kY);
  OK(weft_ndarray_list_create(arrays, names, 2, &l));
  OK(weft_ndarray_list_size(l, &n, &named));
  assert_int_equal(n, 2);
  assert_int_equal(named, 1);
  expect_name(l, 0, "arg:w");
  expect_name(l, 1, "aux:m");
  OK(weft_ndarray_list_get(l, 1, &got));
  read_f32(got, v, 3);
  assert_floats(v, kY, 3);
  /* Shared, not copied: a write through the original is seen in the list. */
  OK(weft_ndarray_copy_from(arrays[1], kX, sizeof kX));
  read_f32(got, v, 3);
  assert_floats(v, kX, 3);
  /* The list keeps its arrays after their handles are freed. */
  OK(weft_ndarray_free(arrays[0]));
  OK(weft_ndarray_free(arrays[1]));
  OK(weft_ndarray_free(got));
  OK(weft_ndarray_list_get(l, 0, &got));
  read_f32(got, v, 3);
  assert_floats(v, kX, 3);
  OK(weft_ndarray_free(got));
  OK(weft_ndarray_list_free(l));
  assert_no_leaks();
}

static void test_unnamed_none_and_empty_lists(void** state) {
  WeftNDArray* arrays[2];
  WeftNDArrayList* l = NULL;
  WeftNDArray* got = NULL;
  const char* name = NULL;
  size_t n = 9;
  int named = 1;
  (void)state;
  arrays[0] = NULL; /* a none entry */
  arrays[1] = make_f32(kShape, 1, kX);
  OK(weft_ndarray_list_create(arrays, NULL, 2, &l));
  OK(weft_ndarray_list_size(l, &n, &named));
  assert_int_equal(n, 2);
  assert_int_equal(named, 0);
  OK(weft_ndarray_list_get(l, 0, &got));
  assert_null(got);
  EXPECT_ERR(weft_ndarray_list_name(l, 0, &name), WEFT_ERR_INVALID_ARGUMENT, "no names");
  OK(weft_ndarray_list_free(l));

  OK(weft_ndarray_list_create(NULL, NULL, 0, &l));
  OK(weft_ndarray_list_size(l, &n, &named));
  assert_int_equal(n, 0);
  OK(weft_ndarray_list_free(l));
  OK(weft_ndarray_free(arrays[1]));
  assert_no_leaks();
}

/* The list holds what the .params bytes of the same arrays load back as. */
static void test_agrees_with_params_bytes(void** state) {
  WeftNDArray* arrays[2];
  const char* names[2] = {"a", "b"};
  WeftNDArrayList *made = NULL, *loaded = NULL;
  WeftBuffer* buf = NULL;
  const void* data = NULL;
  size_t size = 0, i;
  float u[3], v[3];
  (void)state;
  arrays[0] = make_f32(kShape, 1, kX);
  arrays[1] = make_f32(kShape, 1, kY);
  OK(weft_ndarray_list_create(arrays, names, 2, &made));
  OK(weft_ndarray_save_buffer(arrays, names, 2, &buf));
  OK(weft_buffer_data(buf, &data, &size));
  OK(weft_ndarray_load_buffer(data, size, &loaded));
  for (i = 0; i < 2; ++i) {
    WeftNDArray *p = NULL, *q = NULL;
    const char *s = NULL, *t = NULL;
    OK(weft_ndarray_list_name(made, i, &s));
    OK(weft_ndarray_list_name(loaded, i, &t));
    assert_string_equal(s, t);
    OK(weft_ndarray_list_get(made, i, &p));
    OK(weft_ndarray_list_get(loaded, i, &q));
    read_f32(p, u, 3);
    read_f32(q, v, 3);
    assert_floats(u, v, 3);
    OK(weft_ndarray_free(p));
    OK(weft_ndarray_free(q));
  }
  OK(weft_buffer_free(buf));
  OK(weft_ndarray_list_free(made));
  OK(weft_ndarray_list_free(loaded));
  OK(weft_ndarray_free(arrays[0]));
  OK(weft_ndarray_free(arrays[1]));
  assert_no_leaks();
}

static void test_create_errors(void** state) {
  WeftNDArray* arrays[2];
  WeftNDArray* freed = make_f32(kShape, 1, kX);
  WeftNDArray* y = make_f32(kShape, 1, kY);
  WeftNDArrayList* l = NULL;
  WeftNDArrayList* sentinel = (WeftNDArrayList*)(uintptr_t)1;
  const char* names[2] = {"w", "w"};
  const char* null_name[2] = {"w", NULL};
  (void)state;
  arrays[0] = make_f32(kShape, 1, kX);
  arrays[1] = y;
  OK(weft_ndarray_free(freed));

  l = sentinel;
  EXPECT_ERR(weft_ndarray_list_create(NULL, NULL, 2, &l), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_list_create: argument 'arrays' is NULL but its count is 2");
  EXPECT_ERR(weft_ndarray_list_create(arrays, names, 2, &l), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'names[1]' is 'w', already given as names[0]");
  EXPECT_ERR(weft_ndarray_list_create(arrays, null_name, 2, &l), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'names[1]' is NULL");
  EXPECT_ERR(weft_ndarray_list_create(arrays, NULL, 2, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out' is NULL");
  arrays[1] = freed;
  EXPECT_ERR(weft_ndarray_list_create(arrays, NULL, 2, &l), WEFT_ERR_INVALID_HANDLE,
             "argument 'arrays[1]' is a freed or invalid WeftNDArray handle");
  /* Out-parameters are untouched on failure. */
  assert_ptr_equal(l, sentinel);
  /* A list where an array is expected, and an array where a list is. */
  OK(weft_ndarray_list_create(arrays, NULL, 1, &l));
  arrays[1] = (WeftNDArray*)l;
  EXPECT_ERR(weft_ndarray_list_create(arrays, NULL, 2, &l), WEFT_ERR_INVALID_HANDLE,
             "argument 'arrays[1]' is a WeftNDArrayList handle, expected a WeftNDArray handle");
  EXPECT_ERR(weft_ndarray_list_free((WeftNDArrayList*)arrays[0]), WEFT_ERR_INVALID_HANDLE,
             "argument 'list' is a WeftNDArray handle, expected a WeftNDArrayList handle");
  OK(weft_ndarray_list_free(l));
  OK(weft_ndarray_free(arrays[0]));
  OK(weft_ndarray_free(y));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_named_list_shares_storage),
      TEST(test_unnamed_none_and_empty_lists),
      TEST(test_agrees_with_params_bytes),
      TEST(test_create_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
