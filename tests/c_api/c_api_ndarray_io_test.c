/*
 * C ABI: NDArray files (MXNet lists, .npy) and buffers — happy paths and
 * every error path (NULL pointers, missing files, malformed bytes, freed
 * handles); each test ends with no leaked handle or byte.
 */
#include <stdlib.h>

#include "c_test_util.h"

static char g_tmp[256];

static const char* tmp_path(const char* name) {
  const char* dir = getenv("TMPDIR");
  snprintf(g_tmp, sizeof(g_tmp), "%s/weft_c_io_%s", dir && *dir ? dir : "/tmp", name);
  return g_tmp;
}

static void test_buffer_round_trip(void** state) {
  const int64_t s1[] = {2, 2}, s2[] = {3};
  const float v1[] = {1, 2, 3, 4}, v2[] = {-1, 0.5f, 9};
  WeftNDArray* in[3];
  const char* names[] = {"arg:w", "aux:m", "arg:none"};
  WeftBuffer* buf = NULL;
  WeftNDArrayList* list = NULL;
  const void* data = NULL;
  size_t size = 0, n = 0;
  int named = -1;
  const char* name = NULL;
  WeftNDArray* got = NULL;
  float back[4];
  int64_t shape[4];
  (void)state;
  in[0] = make_f32(s1, 2, v1);
  in[1] = make_f32(s2, 1, v2);
  in[2] = NULL; /* written as an empty (none) array */
  OK(weft_ndarray_save_buffer(in, names, 3, &buf));
  OK(weft_buffer_data(buf, &data, &size));
  assert_true(size > 24);
  assert_int_equal(((const unsigned char*)data)[0], 0x12);
  OK(weft_ndarray_load_buffer(data, size, &list));
  OK(weft_ndarray_list_size(list, &n, &named));
  assert_int_equal(n, 3);
  assert_int_equal(named, 1);
  OK(weft_ndarray_list_size(list, &n, NULL));
  OK(weft_ndarray_list_name(list, 1, &name));
  assert_string_equal(name, "aux:m");
  OK(weft_ndarray_list_get(list, 0, &got));
  OK(weft_ndarray_shape(got, shape, 4));
  assert_int_equal(shape[0], 2);
  read_f32(got, back, 4);
  assert_floats(back, v1, 4);
  OK(weft_ndarray_free(got));
  OK(weft_ndarray_list_get(list, 2, &got));
  assert_null(got);
  /* A handle taken from the list outlives it. */
  OK(weft_ndarray_list_get(list, 1, &got));
  OK(weft_ndarray_list_free(list));
  read_f32(got, back, 3);
  assert_floats(back, v2, 3);
  OK(weft_ndarray_free(got));
  OK(weft_buffer_free(buf));
  OK(weft_ndarray_free(in[0]));
  OK(weft_ndarray_free(in[1]));
  OK(weft_buffer_free(NULL));
  OK(weft_ndarray_list_free(NULL));
  assert_no_leaks();
}

static void test_file_round_trip_unnamed(void** state) {
  const int64_t s[] = {3};
  const float v[] = {4, 5, 6};
  WeftNDArray* a;
  WeftNDArrayList* list = NULL;
  size_t n = 0;
  int named = -1;
  const char* name = NULL;
  (void)state;
  a = make_f32(s, 1, v);
  OK(weft_ndarray_save_file(tmp_path("unnamed.params"), &a, NULL, 1));
  OK(weft_ndarray_load_file(g_tmp, &list));
  OK(weft_ndarray_list_size(list, &n, &named));
  assert_int_equal(n, 1);
  assert_int_equal(named, 0);
  EXPECT_ERR(weft_ndarray_list_name(list, 0, &name), WEFT_ERR_INVALID_ARGUMENT, "has no names");
  EXPECT_ERR(weft_ndarray_list_name(list, 5, &name), WEFT_ERR_INVALID_ARGUMENT, "index 5",
             "1 arrays");
  OK(weft_ndarray_list_free(list));
  remove(g_tmp);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

static void test_shared_mxnet_files(void** state) {
  char path[512];
  WeftNDArrayList* list = NULL;
  WeftNDArray* a = NULL;
  size_t n = 0;
  int named = -1;
  float v[128], want[128];
  int i;
  FILE* f;
  (void)state;
  snprintf(path, sizeof(path), "%s/mxnet-models/apache__legacy_ndarray.v0", WEFT_SHARED_TESTDATA);
  f = fopen(path, "rb");
  if (f == NULL) skip();
  fclose(f);
  OK(weft_ndarray_load_file(path, &list));
  OK(weft_ndarray_list_size(list, &n, &named));
  assert_int_equal(n, 6);
  assert_int_equal(named, 0);
  for (i = 0; i < 128; ++i) want[i] = (float)i;
  OK(weft_ndarray_list_get(list, 5, &a));
  read_f32(a, v, 128);
  assert_floats(v, want, 128);
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_list_free(list));
  assert_no_leaks();
}

static void test_npy(void** state) {
  WeftNDArray* a = NULL;
  WeftNDArray* b = NULL;
  int64_t shape[2];
  int ndim = 0, dtype = -1;
  float v[6];
  const float want[] = {-3, -2.5f, -2, -1.5f, -1, -0.5f};
  (void)state;
  OK(weft_ndarray_load_npy(WEFT_TEST_DATA "/npy/f32_2x3.npy", &a));
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 2);
  OK(weft_ndarray_shape(a, shape, 2));
  assert_int_equal(shape[1], 3);
  read_f32(a, v, 6);
  assert_floats(v, want, 6);
  OK(weft_ndarray_save_npy(a, tmp_path("a.npy")));
  OK(weft_ndarray_load_npy(g_tmp, &b));
  OK(weft_ndarray_dtype(b, &dtype));
  assert_int_equal(dtype, WEFT_FLOAT32);
  read_f32(b, v, 6);
  assert_floats(v, want, 6);
  remove(g_tmp);
  EXPECT_ERR(weft_ndarray_load_npy(WEFT_TEST_DATA "/npy/fortran.npy", &b),
             WEFT_ERR_INVALID_ARGUMENT, "weft_ndarray_load_npy", "fortran_order True");
  EXPECT_ERR(weft_ndarray_load_npy(WEFT_TEST_DATA "/npy/big_endian.npy", &b), WEFT_ERR_DTYPE,
             "big-endian");
  EXPECT_ERR(weft_ndarray_load_npy("/nonexistent/x.npy", &b), WEFT_ERR_IO, "/nonexistent/x.npy");
  EXPECT_ERR(weft_ndarray_load_npy(NULL, &b), WEFT_ERR_INVALID_ARGUMENT, "'path' is NULL");
  EXPECT_ERR(weft_ndarray_load_npy(g_tmp, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERR(weft_ndarray_save_npy(a, NULL), WEFT_ERR_INVALID_ARGUMENT, "'path' is NULL");
  EXPECT_ERR(weft_ndarray_save_npy(NULL, g_tmp), WEFT_ERR_INVALID_ARGUMENT, "'arr' is NULL");
  EXPECT_ERR(weft_ndarray_save_npy(a, "/nonexistent/dir/x.npy"), WEFT_ERR_IO, "cannot open");
  OK(weft_ndarray_free(b));
  EXPECT_ERR(weft_ndarray_save_npy(b, g_tmp), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftNDArray");
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

/* The bytes of @p path (malloc'd; *size set), or NULL. */
static unsigned char* read_bytes(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* b;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = (unsigned char*)malloc((size_t)n);
  *size = fread(b, 1, (size_t)n, f);
  fclose(f);
  return b;
}

static void test_npy_buffer(void** state) {
  const int64_t s8[] = {2};
  WeftNDArray* a = NULL;
  WeftNDArray* b = NULL;
  WeftNDArray* i8 = NULL;
  WeftBuffer* buf = NULL;
  const void* data = NULL;
  size_t size = 0, file_size = 0;
  int64_t shape[2];
  int ndim = 0;
  float v[6];
  const float want[] = {-3, -2.5f, -2, -1.5f, -1, -0.5f};
  unsigned char* file = read_bytes(WEFT_TEST_DATA "/npy/f32_2x3.npy", &file_size);
  (void)state;
  assert_non_null(file);
  OK(weft_ndarray_load_npy_buffer(file, file_size, &a));
  memset(file, 0, file_size); /* the array holds its own copy */
  OK(weft_ndarray_ndim(a, &ndim));
  assert_int_equal(ndim, 2);
  OK(weft_ndarray_shape(a, shape, 2));
  assert_int_equal(shape[0], 2);
  assert_int_equal(shape[1], 3);
  read_f32(a, v, 6);
  assert_floats(v, want, 6);
  /* Saved to memory: the same bytes as the file, which loads back. */
  OK(weft_ndarray_save_npy_buffer(a, &buf));
  OK(weft_buffer_data(buf, &data, &size));
  free(file);
  file = read_bytes(WEFT_TEST_DATA "/npy/f32_2x3.npy", &file_size);
  assert_int_equal(size, file_size);
  assert_memory_equal(data, file, size);
  OK(weft_ndarray_load_npy_buffer(data, size, &b));
  read_f32(b, v, 6);
  assert_floats(v, want, 6);
  OK(weft_ndarray_free(b));
  /* Errors: NULL pointers, truncated and malformed bytes, freed handle. */
  EXPECT_ERR(weft_ndarray_load_npy_buffer(NULL, 8, &b), WEFT_ERR_INVALID_ARGUMENT,
             "'data' is NULL");
  EXPECT_ERR(weft_ndarray_load_npy_buffer(data, size, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out' is NULL");
  EXPECT_ERR(weft_ndarray_load_npy_buffer(data, 5, &b), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_load_npy_buffer");
  EXPECT_ERR(weft_ndarray_load_npy_buffer(data, size - 4, &b), WEFT_ERR_INVALID_ARGUMENT,
             "truncated");
  file[0] = 'X';
  EXPECT_ERR(weft_ndarray_load_npy_buffer(file, file_size, &b), WEFT_ERR_INVALID_ARGUMENT, "magic");
  OK(weft_buffer_free(buf));
  EXPECT_ERR(weft_ndarray_save_npy_buffer(NULL, &buf), WEFT_ERR_INVALID_ARGUMENT, "'arr' is NULL");
  EXPECT_ERR(weft_ndarray_save_npy_buffer(a, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  OK(weft_ndarray_create(s8, 1, WEFT_INT8, WEFT_CPU, 0, &i8));
  OK(weft_ndarray_save_npy_buffer(i8, &buf)); /* int8 is NumPy's '|i1' */
  OK(weft_buffer_data(buf, &data, &size));
  {
    size_t k, found = 0;
    for (k = 0; k + 5 <= size; ++k) found |= memcmp((const char*)data + k, "'|i1'", 5) == 0;
    assert_true(found);
  }
  OK(weft_buffer_free(buf));
  OK(weft_ndarray_free(i8));
  OK(weft_ndarray_free(a));
  EXPECT_ERR(weft_ndarray_save_npy_buffer(a, &buf), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftNDArray");
  free(file);
  assert_no_leaks();
}

static void test_errors(void** state) {
  const int64_t s[] = {2};
  const float v[] = {1, 2};
  WeftNDArray* a;
  WeftNDArray* arrs[2];
  const char* bad_names[] = {"arg:x", NULL};
  WeftBuffer* buf = NULL;
  WeftBuffer* freed = NULL;
  WeftNDArrayList* list = NULL;
  WeftNDArrayList* freed_list = NULL;
  WeftNDArray* got = NULL;
  const void* data = NULL;
  size_t size = 0, n = 0;
  const char* name = NULL;
  unsigned char bytes[64];
  (void)state;
  a = make_f32(s, 1, v);
  arrs[0] = a;
  arrs[1] = a;
  /* NULL pointers. */
  EXPECT_ERR(weft_ndarray_save_buffer(NULL, NULL, 1, &buf), WEFT_ERR_INVALID_ARGUMENT,
             "'arrays' is NULL");
  EXPECT_ERR(weft_ndarray_save_buffer(arrs, NULL, 1, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out' is NULL");
  EXPECT_ERR(weft_ndarray_save_buffer(arrs, bad_names, 2, &buf), WEFT_ERR_INVALID_ARGUMENT,
             "'names[1]' is NULL");
  EXPECT_ERR(weft_ndarray_save_file(NULL, arrs, NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "'path' is NULL");
  EXPECT_ERR(weft_ndarray_save_file("/nonexistent/dir/x.params", arrs, NULL, 1), WEFT_ERR_IO,
             "cannot open");
  EXPECT_ERR(weft_ndarray_load_file(NULL, &list), WEFT_ERR_INVALID_ARGUMENT, "'path' is NULL");
  EXPECT_ERR(weft_ndarray_load_file("/nonexistent/x.params", NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out' is NULL");
  EXPECT_ERR(weft_ndarray_load_file("/nonexistent/x.params", &list), WEFT_ERR_IO,
             "/nonexistent/x.params");
  EXPECT_ERR(weft_ndarray_load_buffer(NULL, 8, &list), WEFT_ERR_INVALID_ARGUMENT, "'data' is NULL");
  EXPECT_ERR(weft_ndarray_load_buffer(bytes, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  /* Malformed bytes. */
  memset(bytes, 0, sizeof(bytes));
  EXPECT_ERR(weft_ndarray_load_buffer(bytes, sizeof(bytes), &list), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_load_buffer", "list magic 0x112, found 0x0", "byte offset 0");
  EXPECT_ERR(weft_ndarray_load_buffer(bytes, 3, &list), WEFT_ERR_INVALID_ARGUMENT, "truncated");
  bytes[0] = 0x12;
  bytes[1] = 0x01;
  bytes[16] = 1; /* one array, then a record with magic 0 = legacy ndim 0 (none) */
  OK(weft_ndarray_load_buffer(bytes, 36, &list));
  OK(weft_ndarray_list_size(list, &n, NULL));
  assert_int_equal(n, 1);
  OK(weft_ndarray_list_free(list));
  bytes[24] = 0xFF; /* no magic, ndim 255 */
  EXPECT_ERR(weft_ndarray_load_buffer(bytes, 36, &list), WEFT_ERR_INVALID_ARGUMENT, "array 0 of 1",
             "expected a record magic", "found 0xFF", "byte offset 24");
  /* Out-parameter NULLs on valid handles. */
  OK(weft_ndarray_save_buffer(arrs, NULL, 2, &buf));
  EXPECT_ERR(weft_buffer_data(buf, NULL, &size), WEFT_ERR_INVALID_ARGUMENT, "'out_data' is NULL");
  EXPECT_ERR(weft_buffer_data(buf, &data, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out_size' is NULL");
  EXPECT_ERR(weft_buffer_data(NULL, &data, &size), WEFT_ERR_INVALID_ARGUMENT, "'buf' is NULL");
  OK(weft_buffer_data(buf, &data, &size));
  OK(weft_ndarray_load_buffer(data, size, &list));
  EXPECT_ERR(weft_ndarray_list_size(NULL, &n, NULL), WEFT_ERR_INVALID_ARGUMENT, "'list' is NULL");
  EXPECT_ERR(weft_ndarray_list_size(list, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out_size' is NULL");
  EXPECT_ERR(weft_ndarray_list_name(list, 0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out_name' is NULL");
  EXPECT_ERR(weft_ndarray_list_name(NULL, 0, &name), WEFT_ERR_INVALID_ARGUMENT, "'list' is NULL");
  EXPECT_ERR(weft_ndarray_list_get(list, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERR(weft_ndarray_list_get(list, 2, &got), WEFT_ERR_INVALID_ARGUMENT,
             "index 2 is out of range");
  /* Freed and wrong-type handles. */
  freed = buf;
  freed_list = list;
  OK(weft_buffer_free(buf));
  OK(weft_ndarray_list_free(list));
  EXPECT_ERR(weft_buffer_data(freed, &data, &size), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftBuffer");
  EXPECT_ERR(weft_buffer_free(freed), WEFT_ERR_INVALID_HANDLE, "WeftBuffer");
  EXPECT_ERR(weft_ndarray_list_get(freed_list, 0, &got), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftNDArrayList");
  EXPECT_ERR(weft_ndarray_list_free(freed_list), WEFT_ERR_INVALID_HANDLE, "WeftNDArrayList");
  EXPECT_ERR(weft_ndarray_list_size((WeftNDArrayList*)a, &n, NULL), WEFT_ERR_INVALID_HANDLE,
             "is a WeftNDArray handle, expected a WeftNDArrayList handle");
  OK(weft_ndarray_free(a));
  EXPECT_ERR(weft_ndarray_save_buffer(arrs, NULL, 1, &buf), WEFT_ERR_INVALID_HANDLE,
             "'arrays[0]' is a freed or invalid WeftNDArray");
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_buffer_round_trip),  TEST(test_file_round_trip_unnamed),
      TEST(test_shared_mxnet_files), TEST(test_npy),
      TEST(test_npy_buffer),         TEST(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
