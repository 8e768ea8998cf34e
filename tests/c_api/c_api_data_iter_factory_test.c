/*
 * C ABI: the iterator factory (weft_data_iter_create by MXNet's name and string parameters,
 * weft_data_iter_list/info/param): a CSVIter over a file written here gives its rows in
 * batches; a MNISTIter over Fashion-MNIST (when installed) gives flat or 4-D batches of one part;
 * unknown names and parameters fail naming them. Each test ends with no leaked handle or byte.
 */
#include <stdio.h>
#include <stdlib.h>

#include "c_test_util.h"

static void tmp_path(char* out, size_t n, const char* name) {
  const char* dir = getenv("TMPDIR");
  snprintf(out, n, "%s/weft_c_iter_%s", dir && *dir ? dir : "/tmp", name);
}

static void test_csv_iter(void** state) {
  char data[256], label[256];
  const char* keys[4] = {"data_csv", "data_shape", "label_csv", "batch_size"};
  const char* vals[4] = {data, "(3,)", label, "2"};
  float got[6], want0[6] = {1, 2, 3, 4, 5, 6}, lab[2];
  WeftDataIter* it = NULL;
  WeftNDArrayList* batch = NULL;
  WeftNDArray* a = NULL;
  int has_next = 0, batches = 0;
  FILE* f;
  (void)state;
  tmp_path(data, sizeof data, "data.csv");
  tmp_path(label, sizeof label, "label.csv");
  f = fopen(data, "w");
  assert_non_null(f);
  fputs("1,2,3\n4,5,6\n7,8,9\n10,11,12\n", f);
  fclose(f);
  f = fopen(label, "w");
  assert_non_null(f);
  fputs("0\n1\n2\n3\n", f);
  fclose(f);
  OK(weft_data_iter_create("CSVIter", keys, vals, 4, &it));
  for (;;) {
    OK(weft_data_iter_next(it, &has_next));
    if (!has_next) break;
    OK(weft_data_iter_data(it, &batch));
    OK(weft_ndarray_list_get(batch, 0, &a));
    OK(weft_ndarray_copy_to(a, got, sizeof got));
    if (batches == 0) assert_memory_equal(got, want0, sizeof want0);
    OK(weft_ndarray_free(a));
    OK(weft_ndarray_list_free(batch));
    OK(weft_data_iter_label(it, &batch));
    OK(weft_ndarray_list_get(batch, 0, &a));
    OK(weft_ndarray_copy_to(a, lab, sizeof lab));
    assert_true(lab[0] == 2 * batches && lab[1] == 2 * batches + 1);
    OK(weft_ndarray_free(a));
    OK(weft_ndarray_list_free(batch));
    ++batches;
  }
  assert_int_equal(batches, 2);
  OK(weft_data_iter_free(it));
  remove(data);
  remove(label);
  assert_no_leaks();
}

static void test_mnist_iter(void** state) {
  const char* keys[6] = {"image", "label", "batch_size", "flat", "num_parts", "part_index"};
  const char* vals[6] = {"/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz",
                         "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz",
                         "100",
                         "True",
                         "4",
                         "3"};
  int64_t shape[4];
  int has_next = 0, batches = 0, ndim = 0;
  WeftDataIter* it = NULL;
  WeftNDArrayList* batch = NULL;
  WeftNDArray* a = NULL;
  FILE* f = fopen(vals[0], "rb");
  (void)state;
  if (!f) skip();
  fclose(f);
  OK(weft_data_iter_create("MNISTIter", keys, vals, 6, &it));
  for (;;) {
    OK(weft_data_iter_next(it, &has_next));
    if (!has_next) break;
    ++batches;
  }
  assert_int_equal(batches, 25); /* part 3 of 4: 2500 images in batches of 100 */
  OK(weft_data_iter_reset(it));
  OK(weft_data_iter_next(it, &has_next));
  OK(weft_data_iter_data(it, &batch));
  OK(weft_ndarray_list_get(batch, 0, &a));
  OK(weft_ndarray_ndim(a, &ndim));
  OK(weft_ndarray_shape(a, shape, 4));
  assert_int_equal(ndim, 2);
  assert_int_equal(shape[0], 100);
  assert_int_equal(shape[1], 784);
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_list_free(batch));
  OK(weft_data_iter_free(it));
  vals[5] = "4";
  EXPECT_ERR(weft_data_iter_create("MNISTIter", keys, vals, 6, &it), WEFT_ERR_INVALID_ARGUMENT,
             "part_index 4");
  assert_no_leaks();
}

static void test_listing_and_errors(void** state) {
  const char* keys[1] = {"no_such_param"};
  const char* vals[1] = {"1"};
  WeftStringList* names = NULL;
  WeftDataIter* it = NULL;
  const char *name = NULL, *doc = NULL, *type = NULL, *def = NULL;
  size_t n = 0, np = 0, i;
  int found = 0;
  (void)state;
  OK(weft_data_iter_list(&names));
  OK(weft_string_list_size(names, &n));
  for (i = 0; i < n; ++i) {
    OK(weft_string_list_get(names, i, &name));
    found += !strcmp(name, "CSVIter") || !strcmp(name, "LibSVMIter") || !strcmp(name, "MNISTIter");
  }
  assert_int_equal(found, 3);
  OK(weft_string_list_free(names));
  OK(weft_data_iter_info("MNISTIter", &doc, &np));
  assert_non_null(strstr(doc, "MNIST"));
  assert_true(np >= 9);
  OK(weft_data_iter_param("MNISTIter", 2, &name, &type, &def, &doc));
  assert_string_equal(name, "batch_size");
  assert_string_equal(type, "int");
  assert_string_equal(def, "128");
  OK(weft_data_iter_param("CSVIter", 0, &name, NULL, &def, NULL));
  assert_string_equal(name, "data_csv");
  assert_null(def); /* required */
  EXPECT_ERR(weft_data_iter_param("CSVIter", 99, &name, NULL, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'index' is 99");
  EXPECT_ERR(weft_data_iter_info("ImageRecordIterX", &doc, &np), WEFT_ERR_NOT_FOUND,
             "ImageRecordIterX");
  EXPECT_ERR(weft_data_iter_create("NoIter", NULL, NULL, 0, &it), WEFT_ERR_NOT_FOUND, "NoIter",
             "CSVIter");
  EXPECT_ERR(weft_data_iter_create("MNISTIter", keys, vals, 1, &it), WEFT_ERR_INVALID_ARGUMENT,
             "no_such_param");
  EXPECT_ERR(weft_data_iter_create("CSVIter", NULL, NULL, 0, &it), WEFT_ERR_INVALID_ARGUMENT,
             "data_csv");
  assert_null(it);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_csv_iter),
      TEST(test_mnist_iter),
      TEST(test_listing_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
