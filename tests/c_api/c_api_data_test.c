/*
 * C ABI: training data, metrics and checkpoints — IDX/MNIST files, the
 * NDArray iterator, metrics and MXNet checkpoints; happy paths and error
 * paths (NULL, freed, double-freed and wrong-type handles, a bad last_batch,
 * missing files); each test ends with no leaked handle or byte.
 */
#include <stdio.h>
#include <stdlib.h>

#include "c_test_util.h"

static char g_tmp[256];

static const char* tmp_path(const char* name) {
  const char* dir = getenv("TMPDIR");
  snprintf(g_tmp, sizeof(g_tmp), "%s/weft_c_data_%s", dir && *dir ? dir : "/tmp", name);
  return g_tmp;
}

static void write_file(const char* path, const unsigned char* bytes, size_t n) {
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

static int file_exists(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f) fclose(f);
  return f != NULL;
}

static void test_idx_and_mnist(void** state) {
  /* uint8 images (2, 2, 2) and labels (2). */
  const unsigned char images[] = {0, 0, 8, 3, 0, 0,  0,   2,   0, 0, 0, 2,
                                  0, 0, 0, 2, 0, 51, 102, 255, 1, 2, 3, 4};
  const unsigned char labels[] = {0, 0, 8, 1, 0, 0, 0, 2, 9, 4};
  const unsigned char labels3[] = {0, 0, 8, 1, 0, 0, 0, 3, 9, 4, 1};
  const unsigned char bad_magic[] = {1, 0, 8, 1, 0, 0, 0, 1, 7};
  char img_path[256], lbl_path[256], lbl3_path[256], bad_path[256];
  WeftNDArray *a = NULL, *img = NULL, *lbl = NULL;
  int64_t shape[4];
  int dtype = -1;
  float px[8], lb[2];
  unsigned char raw[8];
  const float want_px[] = {0,          51 / 255.0f, 102 / 255.0f, 1,
                           1 / 255.0f, 2 / 255.0f,  3 / 255.0f,   4 / 255.0f};
  const float want_lb[] = {9, 4};
  (void)state;
  snprintf(img_path, sizeof(img_path), "%s", tmp_path("images"));
  snprintf(lbl_path, sizeof(lbl_path), "%s", tmp_path("labels"));
  snprintf(lbl3_path, sizeof(lbl3_path), "%s", tmp_path("labels3"));
  snprintf(bad_path, sizeof(bad_path), "%s", tmp_path("bad"));
  write_file(img_path, images, sizeof(images));
  write_file(lbl_path, labels, sizeof(labels));
  write_file(lbl3_path, labels3, sizeof(labels3));
  write_file(bad_path, bad_magic, sizeof(bad_magic));

  OK(weft_idx_load(img_path, &a));
  OK(weft_ndarray_dtype(a, &dtype));
  assert_int_equal(dtype, WEFT_UINT8);
  OK(weft_ndarray_shape(a, shape, 4));
  assert_int_equal(shape[0], 2);
  assert_int_equal(shape[2], 2);
  OK(weft_ndarray_copy_to(a, raw, 8));
  assert_int_equal(raw[3], 255);
  OK(weft_ndarray_free(a));

  OK(weft_mnist_load(img_path, lbl_path, &img, &lbl));
  OK(weft_ndarray_shape(img, shape, 4));
  assert_int_equal(shape[0], 2);
  assert_int_equal(shape[1], 1);
  assert_int_equal(shape[3], 2);
  read_f32(img, px, 8);
  assert_floats(px, want_px, 8);
  read_f32(lbl, lb, 2);
  assert_floats(lb, want_lb, 2);
  OK(weft_ndarray_free(img));
  OK(weft_ndarray_free(lbl));

  EXPECT_ERR(weft_idx_load("/nonexistent/weft.idx", &a), WEFT_ERR_IO, "weft_idx_load",
             "/nonexistent/weft.idx");
  EXPECT_ERR(weft_idx_load(bad_path, &a), WEFT_ERR_INVALID_ARGUMENT, bad_path, "bad magic");
  EXPECT_ERR(weft_idx_load(NULL, &a), WEFT_ERR_INVALID_ARGUMENT, "'path' is NULL");
  EXPECT_ERR(weft_idx_load(img_path, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  EXPECT_ERR(weft_mnist_load(img_path, lbl3_path, &img, &lbl), WEFT_ERR_INVALID_ARGUMENT,
             "has 2 images but", "3 labels");
  EXPECT_ERR(weft_mnist_load(img_path, lbl_path, &img, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'labels_out' is NULL");
  assert_no_leaks();
}

static void test_fashion_mnist(void** state) {
  const char* images = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  const char* labels = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
  WeftNDArray *img = NULL, *lbl = NULL;
  int64_t shape[4];
  (void)state;
  if (!file_exists(images) || !file_exists(labels)) skip();
  OK(weft_mnist_load(images, labels, &img, &lbl));
  OK(weft_ndarray_shape(img, shape, 4));
  assert_int_equal(shape[0], 10000);
  assert_int_equal(shape[1], 1);
  assert_int_equal(shape[2], 28);
  assert_int_equal(shape[3], 28);
  OK(weft_ndarray_free(img));
  OK(weft_ndarray_free(lbl));
  assert_no_leaks();
}

/* A data iterator over data (5, 2) with row i = [i, 10 + i] and labels i. */
static WeftDataIter* make_iter(WeftNDArray** d, WeftNDArray** l, int batch, int shuffle,
                               const char* last, uint64_t seed) {
  const int64_t ds[] = {5, 2}, ls[] = {5};
  const float dv[] = {0, 10, 1, 11, 2, 12, 3, 13, 4, 14}, lv[] = {0, 1, 2, 3, 4};
  const char* dn[] = {"data"};
  const char* ln[] = {"softmax_label"};
  WeftDataIter* it = NULL;
  *d = make_f32(ds, 2, dv);
  *l = make_f32(ls, 1, lv);
  OK(weft_data_iter_create_ndarray(1, dn, d, 1, ln, l, batch, shuffle, last, seed, &it));
  return it;
}

static void test_data_iter(void** state) {
  WeftNDArray *d = NULL, *l = NULL, *got = NULL;
  WeftDataIter* it;
  WeftNDArrayList* list = NULL;
  const char* name = NULL;
  int has = -1, pad = -1, bs = 0, epoch;
  int64_t index[2];
  size_t n = 0;
  float v[4];
  (void)state;
  it = make_iter(&d, &l, 2, 0, NULL, 0);
  OK(weft_data_iter_batch_size(it, &bs));
  assert_int_equal(bs, 2);
  for (epoch = 0; epoch < 2; ++epoch) {
    OK(weft_data_iter_next(it, &has));
    assert_int_equal(has, 1);
    OK(weft_data_iter_next(it, &has));
    OK(weft_data_iter_next(it, &has));
    assert_int_equal(has, 1);
    /* Third batch: sample 4, then sample 0 as padding. */
    OK(weft_data_iter_pad(it, &pad));
    assert_int_equal(pad, 1);
    OK(weft_data_iter_index(it, index, 2, &n));
    assert_int_equal(n, 2);
    assert_int_equal(index[0], 4);
    assert_int_equal(index[1], 0);
    OK(weft_data_iter_data(it, &list));
    OK(weft_ndarray_list_name(list, 0, &name));
    assert_string_equal(name, "data");
    OK(weft_ndarray_list_get(list, 0, &got));
    read_f32(got, v, 4);
    assert_true(v[0] == 4 && v[1] == 14 && v[2] == 0 && v[3] == 10);
    OK(weft_ndarray_free(got));
    OK(weft_ndarray_list_free(list));
    OK(weft_data_iter_label(it, &list));
    OK(weft_ndarray_list_name(list, 0, &name));
    assert_string_equal(name, "softmax_label");
    OK(weft_ndarray_list_get(list, 0, &got));
    read_f32(got, v, 2);
    assert_true(v[0] == 4 && v[1] == 0);
    OK(weft_ndarray_free(got));
    OK(weft_ndarray_list_free(list));
    OK(weft_data_iter_next(it, &has));
    assert_int_equal(has, 0);
    OK(weft_data_iter_reset(it));
  }
  OK(weft_data_iter_free(it));
  OK(weft_ndarray_free(d));
  OK(weft_ndarray_free(l));
  assert_no_leaks();
}

static void test_data_iter_shuffle_roll_over(void** state) {
  WeftNDArray *d1, *l1, *d2, *l2;
  WeftDataIter *a, *b;
  int has_a, has_b, rounds = 0, pad = -1;
  int64_t ia[2], ib[2];
  size_t n;
  (void)state;
  a = make_iter(&d1, &l1, 2, 1, "roll_over", 99);
  b = make_iter(&d2, &l2, 2, 1, "roll_over", 99);
  /* Same seed, same batches; two batches per epoch, one sample rolls over. */
  for (;;) {
    OK(weft_data_iter_next(a, &has_a));
    OK(weft_data_iter_next(b, &has_b));
    assert_int_equal(has_a, has_b);
    if (!has_a) {
      if (++rounds == 3) break;
      OK(weft_data_iter_reset(a));
      OK(weft_data_iter_reset(b));
      continue;
    }
    OK(weft_data_iter_index(a, ia, 2, &n));
    OK(weft_data_iter_index(b, ib, 2, &n));
    assert_int_equal(ia[0], ib[0]);
    assert_int_equal(ia[1], ib[1]);
  }
  /* Epochs of 5, 1 + 5 and 5 samples gave 2, 3 and 2 batches; the fourth
   * starts with the one sample left over, reported as pad as MXNet does. */
  OK(weft_data_iter_reset(a));
  OK(weft_data_iter_next(a, &has_a));
  assert_int_equal(has_a, 1);
  OK(weft_data_iter_pad(a, &pad));
  assert_int_equal(pad, 1);
  OK(weft_data_iter_free(a));
  OK(weft_data_iter_free(b));
  OK(weft_ndarray_free(d1));
  OK(weft_ndarray_free(l1));
  OK(weft_ndarray_free(d2));
  OK(weft_ndarray_free(l2));
  assert_no_leaks();
}

static void test_data_iter_errors(void** state) {
  const int64_t s4[] = {4, 2}, s3[] = {3};
  WeftNDArray* d = make_f32(s4, 2, NULL);
  WeftNDArray* l = make_f32(s3, 1, NULL);
  WeftNDArray* arrs[] = {d};
  const char* names[] = {"data"};
  const char* null_names[] = {NULL};
  WeftDataIter* it = NULL;
  WeftNDArrayList* list = NULL;
  WeftMetric* m = NULL;
  int has = 0, pad = 0;
  int64_t index[1];
  size_t n = 0;
  (void)state;
  EXPECT_ERR(weft_data_iter_create_ndarray(1, names, arrs, 1, names, &l, 2, 0, "pad", 0, &it),
             WEFT_ERR_INVALID_ARGUMENT, "'data' is given twice");
  {
    const char* ln[] = {"label"};
    EXPECT_ERR(weft_data_iter_create_ndarray(1, names, arrs, 1, ln, &l, 2, 0, "pad", 0, &it),
               WEFT_ERR_INVALID_ARGUMENT, "first dimensions differ", "'data' has 4",
               "'label' has 3");
  }
  EXPECT_ERR(weft_data_iter_create_ndarray(1, names, arrs, 0, NULL, NULL, 2, 0, "rollover", 0, &it),
             WEFT_ERR_INVALID_ARGUMENT, "weft_data_iter_create_ndarray", "'rollover'",
             "pad, discard or roll_over");
  EXPECT_ERR(weft_data_iter_create_ndarray(1, names, arrs, 0, NULL, NULL, 0, 0, NULL, 0, &it),
             WEFT_ERR_INVALID_ARGUMENT, "batch_size must be positive, given 0");
  EXPECT_ERR(weft_data_iter_create_ndarray(0, NULL, NULL, 0, NULL, NULL, 2, 0, NULL, 0, &it),
             WEFT_ERR_INVALID_ARGUMENT, "no data arrays");
  EXPECT_ERR(weft_data_iter_create_ndarray(1, null_names, arrs, 0, NULL, NULL, 2, 0, NULL, 0, &it),
             WEFT_ERR_INVALID_ARGUMENT, "'data_names[0]' is NULL");
  EXPECT_ERR(weft_data_iter_create_ndarray(1, names, NULL, 0, NULL, NULL, 2, 0, NULL, 0, &it),
             WEFT_ERR_INVALID_ARGUMENT, "'data' is NULL");
  EXPECT_ERR(weft_data_iter_create_ndarray(1, names, arrs, 0, NULL, NULL, 2, 0, NULL, 0, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");

  OK(weft_data_iter_create_ndarray(1, names, arrs, 0, NULL, NULL, 3, 0, "discard", 0, &it));
  EXPECT_ERR(weft_data_iter_data(it, &list), WEFT_ERR_INVALID_ARGUMENT, "no current batch");
  EXPECT_ERR(weft_data_iter_pad(it, &pad), WEFT_ERR_INVALID_ARGUMENT, "no current batch");
  OK(weft_data_iter_next(it, &has));
  assert_int_equal(has, 1);
  EXPECT_ERR(weft_data_iter_index(it, index, 1, &n), WEFT_ERR_INVALID_ARGUMENT, "'capacity' is 1",
             "3 rows");
  OK(weft_data_iter_label(it, &list));
  OK(weft_ndarray_list_size(list, &n, NULL));
  assert_int_equal(n, 0);
  OK(weft_ndarray_list_free(list));
  OK(weft_data_iter_next(it, &has));
  assert_int_equal(has, 0); /* the short tail is discarded */
  EXPECT_ERR(weft_data_iter_next(it, NULL), WEFT_ERR_INVALID_ARGUMENT, "'has_next' is NULL");
  EXPECT_ERR(weft_data_iter_next(NULL, &has), WEFT_ERR_INVALID_ARGUMENT, "'it' is NULL");
  /* A metric handle is not an iterator. */
  OK(weft_metric_create("acc", NULL, NULL, 0, &m));
  EXPECT_ERR(weft_data_iter_reset((WeftDataIter*)m), WEFT_ERR_INVALID_HANDLE,
             "expected a WeftDataIter");
  EXPECT_ERR(weft_data_iter_free((WeftDataIter*)m), WEFT_ERR_INVALID_HANDLE, "WeftDataIter");
  OK(weft_metric_free(m));
  OK(weft_data_iter_free(it));
  EXPECT_ERR(weft_data_iter_next(it, &has), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftDataIter");
  EXPECT_ERR(weft_data_iter_free(it), WEFT_ERR_INVALID_HANDLE, "freed or invalid WeftDataIter");
  OK(weft_data_iter_free(NULL));
  OK(weft_ndarray_free(d));
  EXPECT_ERR(weft_data_iter_create_ndarray(1, names, arrs, 0, NULL, NULL, 2, 0, NULL, 0, &it),
             WEFT_ERR_INVALID_HANDLE, "'data[0]'");
  OK(weft_ndarray_free(l));
  assert_no_leaks();
}

static void test_metric(void** state) {
  const int64_t ps[] = {3, 2}, ls[] = {3}, l2s[] = {2};
  const float pv[] = {0.3f, 0.7f, 0.6f, 0.4f, 0.2f, 0.8f}, lv[] = {1, 1, 0};
  WeftNDArray* pred = make_f32(ps, 2, pv);
  WeftNDArray* label = make_f32(ls, 1, lv);
  WeftNDArray* label2 = make_f32(l2s, 1, lv);
  WeftMetric *m = NULL, *comp = NULL;
  WeftStringList* names = NULL;
  const char* s = NULL;
  const char* keys[] = {"top_k"};
  const char* vals[] = {"2"};
  const char* bad_vals[] = {"two"};
  double values[3];
  size_t n = 0;
  (void)state;
  OK(weft_metric_create("acc", NULL, NULL, 0, &m));
  OK(weft_metric_update(m, 1, &label, 1, &pred));
  OK(weft_metric_get(m, &names, values, 3, &n));
  assert_int_equal(n, 1);
  OK(weft_string_list_get(names, 0, &s));
  assert_string_equal(s, "accuracy");
  assert_true(fabs(values[0] - 1.0 / 3.0) < 1e-12); /* argmax 1, 0, 1 vs 1, 1, 0 */
  OK(weft_string_list_free(names));
  OK(weft_metric_update(m, 1, &label, 1, &pred));
  OK(weft_metric_get(m, &names, values, 1, &n));
  assert_true(fabs(values[0] - 1.0 / 3.0) < 1e-12);
  OK(weft_string_list_free(names));
  OK(weft_metric_reset(m));
  OK(weft_metric_get(m, &names, values, 1, &n));
  assert_true(isnan(values[0]));
  OK(weft_string_list_free(names));
  EXPECT_ERR(weft_metric_update(m, 1, &label2, 1, &pred), WEFT_ERR_SHAPE, "weft_metric_update",
             "(2,)", "(3,2)");
  EXPECT_ERR(weft_metric_update(m, 1, &label, 0, NULL), WEFT_ERR_SHAPE,
             "1 labels but 0 predictions");
  EXPECT_ERR(weft_metric_composite_add(m, "mse", NULL, NULL, 0), WEFT_ERR_INVALID_ARGUMENT,
             "expected a composite metric");

  OK(weft_metric_create("composite", NULL, NULL, 0, &comp));
  OK(weft_metric_composite_add(comp, "acc", NULL, NULL, 0));
  OK(weft_metric_composite_add(comp, "top_k_accuracy", keys, vals, 1));
  OK(weft_metric_num_values(comp, &n));
  assert_int_equal(n, 2);
  OK(weft_metric_update(comp, 1, &label, 1, &pred));
  EXPECT_ERR(weft_metric_get(comp, &names, values, 1, &n), WEFT_ERR_INVALID_ARGUMENT,
             "'capacity' is 1", "2 values");
  OK(weft_metric_get(comp, &names, values, 3, &n));
  assert_int_equal(n, 2);
  OK(weft_string_list_get(names, 1, &s));
  assert_string_equal(s, "top_k_accuracy_2");
  assert_true(fabs(values[1] - 1.0) < 1e-12); /* two classes: top 2 always hits */
  OK(weft_string_list_free(names));

  EXPECT_ERR(weft_metric_create("auc", NULL, NULL, 0, &m), WEFT_ERR_INVALID_ARGUMENT,
             "unknown name 'auc'");
  EXPECT_ERR(weft_metric_create("top_k_accuracy", keys, bad_vals, 1, &m), WEFT_ERR_INVALID_ARGUMENT,
             "top_k: expected a number, given 'two'");
  EXPECT_ERR(weft_metric_create("acc", keys, NULL, 1, &m), WEFT_ERR_INVALID_ARGUMENT,
             "'vals' is NULL");
  EXPECT_ERR(weft_metric_create(NULL, NULL, NULL, 0, &m), WEFT_ERR_INVALID_ARGUMENT,
             "'name' is NULL");
  OK(weft_metric_free(m));
  OK(weft_metric_free(comp));
  EXPECT_ERR(weft_metric_reset(m), WEFT_ERR_INVALID_HANDLE, "freed or invalid WeftMetric");
  EXPECT_ERR(weft_metric_free(comp), WEFT_ERR_INVALID_HANDLE, "freed or invalid WeftMetric");
  OK(weft_metric_free(NULL));
  OK(weft_ndarray_free(pred));
  OK(weft_metric_create("acc", NULL, NULL, 0, &m));
  EXPECT_ERR(weft_metric_update(m, 1, &label, 1, &pred), WEFT_ERR_INVALID_HANDLE, "'preds[0]'");
  OK(weft_metric_free(m));
  OK(weft_ndarray_free(label));
  OK(weft_ndarray_free(label2));
  assert_no_leaks();
}

static WeftSymbolHandle* make_fc(void) {
  const char* keys[] = {"num_hidden"};
  const char* vals[] = {"2"};
  WeftSymbolHandle *data = NULL, *fc = NULL;
  OK(weft_symbol_create_variable("data", &data));
  OK(weft_symbol_create_atomic("FullyConnected", keys, vals, 1, &fc));
  OK(weft_symbol_compose(fc, "fc", 1, NULL, &data));
  OK(weft_symbol_free(data));
  return fc;
}

static void test_checkpoint(void** state) {
  const int64_t ws[] = {2, 3}, bs[] = {2};
  const float wv[] = {1, 2, 3, 4, 5, 6}, bv[] = {-1, 1};
  WeftNDArray* arrs[2];
  const char* names[] = {"fc_weight", "fc_bias"};
  const char* dup[] = {"fc_weight", "fc_weight"};
  WeftSymbolHandle *sym = make_fc(), *loaded = NULL;
  WeftNDArrayList *args = NULL, *aux = NULL;
  WeftStringList* list = NULL;
  WeftNDArray* got = NULL;
  const char* s = NULL;
  char prefix[256], shared[512];
  size_t n = 0;
  float w[6];
  (void)state;
  arrs[0] = make_f32(ws, 2, wv);
  arrs[1] = make_f32(bs, 1, bv);
  snprintf(prefix, sizeof(prefix), "%s", tmp_path("ckpt"));
  OK(weft_checkpoint_save(prefix, 5, sym, 2, names, arrs, 0, NULL, NULL));
  OK(weft_checkpoint_load(prefix, 5, &loaded, &args, &aux));
  OK(weft_symbol_list_arguments(loaded, &list));
  OK(weft_string_list_size(list, &n));
  assert_int_equal(n, 3);
  OK(weft_string_list_get(list, 1, &s));
  assert_string_equal(s, "fc_weight");
  OK(weft_string_list_free(list));
  OK(weft_ndarray_list_size(args, &n, NULL));
  assert_int_equal(n, 2);
  OK(weft_ndarray_list_name(args, 1, &s)); /* sorted by name */
  assert_string_equal(s, "fc_weight");
  OK(weft_ndarray_list_get(args, 1, &got));
  read_f32(got, w, 6);
  assert_floats(w, wv, 6);
  OK(weft_ndarray_free(got));
  OK(weft_ndarray_list_size(aux, &n, NULL));
  assert_int_equal(n, 0);
  OK(weft_ndarray_list_free(args));
  OK(weft_ndarray_list_free(aux));
  OK(weft_symbol_free(loaded));

  /* The real MXNet checkpoint det1 (prefix + epoch 1). */
  snprintf(shared, sizeof(shared), "%s/mxnet-models/deepinsight__det1", WEFT_SHARED_TESTDATA);
  if (file_exists(WEFT_SHARED_TESTDATA "/mxnet-models/deepinsight__det1-0001.params")) {
    OK(weft_checkpoint_load(shared, 1, &loaded, &args, &aux));
    OK(weft_ndarray_list_size(args, &n, NULL));
    assert_true(n > 0);
    OK(weft_ndarray_list_free(args));
    OK(weft_ndarray_list_free(aux));
    OK(weft_symbol_free(loaded));
  }

  EXPECT_ERR(weft_checkpoint_load(prefix, 6, &loaded, &args, &aux), WEFT_ERR_IO,
             "weft_checkpoint_load", "ckpt-0006.params");
  EXPECT_ERR(weft_checkpoint_load("/nonexistent/p", 0, &loaded, &args, &aux), WEFT_ERR_IO,
             "/nonexistent/p-symbol.json");
  EXPECT_ERR(weft_checkpoint_load(prefix, 5, &loaded, NULL, &aux), WEFT_ERR_INVALID_ARGUMENT,
             "'args' is NULL");
  EXPECT_ERR(weft_checkpoint_save(prefix, -2, sym, 2, names, arrs, 0, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "epoch must be >= 0");
  EXPECT_ERR(weft_checkpoint_save(prefix, 5, sym, 2, dup, arrs, 0, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'fc_weight' is given twice");
  EXPECT_ERR(weft_checkpoint_save(prefix, 5, NULL, 0, NULL, NULL, 0, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'sym' is NULL");
  OK(weft_symbol_free(sym));
  EXPECT_ERR(weft_checkpoint_save(prefix, 5, sym, 0, NULL, NULL, 0, NULL, NULL),
             WEFT_ERR_INVALID_HANDLE, "'sym'");
  OK(weft_ndarray_free(arrs[0]));
  OK(weft_ndarray_free(arrs[1]));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_idx_and_mnist),    TEST(test_fashion_mnist),
      TEST(test_data_iter),        TEST(test_data_iter_shuffle_roll_over),
      TEST(test_data_iter_errors), TEST(test_metric),
      TEST(test_checkpoint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
