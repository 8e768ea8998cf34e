/*
 * C ABI tests of weft_module_*: an MLP trained through the C ABI on a fixed
 * synthetic task (four separable clusters) reaches a fixed accuracy, both
 * with weft_module_fit and with a hand-written loop; a checkpoint written by
 * the module and read back gives identical outputs; the batch-end callback
 * of weft_module_fit_with_callback (once per batch; non-zero stops training
 * after that batch, WEFT_OK); every error path. Each test ends with no
 * leaked handles or bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_util.h"

/* data -> FC(16) -> relu -> FC(4) -> SoftmaxOutput, as MXNet 1.x writes it. */
static const char kMlpJson[] =
    "{\"nodes\": ["
    "{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc1_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc1_bias\", \"inputs\": []},"
    "{\"op\": \"FullyConnected\", \"name\": \"fc1\", \"attrs\": {\"num_hidden\": \"16\"},"
    " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},"
    "{\"op\": \"Activation\", \"name\": \"relu1\", \"attrs\": {\"act_type\": \"relu\"}, "
    "\"inputs\": [[3, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"fc2_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc2_bias\", \"inputs\": []},"
    "{\"op\": \"FullyConnected\", \"name\": \"fc2\", \"attrs\": {\"num_hidden\": \"4\"},"
    " \"inputs\": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []},"
    "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", \"inputs\": [[7, 0, 0], [8, 0, 0]]}],"
    "\"arg_nodes\": [0, 1, 2, 5, 6, 8], \"heads\": [[9, 0, 0]],"
    "\"attrs\": {\"mxnet_version\": [\"int\", 10600]}}";

#define N 200

/* Cluster i%4 centred at (+-2, +-2) with a deterministic jitter in [-0.5, 0.5). */
static void make_blobs(float* x, float* y, int n, unsigned seed) {
  int i;
  for (i = 0; i < n; ++i) {
    int c = i % 4;
    seed = seed * 1103515245u + 12345u;
    x[2 * i] = (c & 1 ? 2.f : -2.f) + (float)((seed >> 16) % 1000) / 1000.f - 0.5f;
    seed = seed * 1103515245u + 12345u;
    x[2 * i + 1] = (c & 2 ? 2.f : -2.f) + (float)((seed >> 16) % 1000) / 1000.f - 0.5f;
    y[i] = (float)c;
  }
}

typedef struct {
  WeftSymbolHandle* sym;
  WeftNDArray* x;
  WeftNDArray* y;
  WeftDataIter* iter;
  WeftModule* mod;
  WeftInitializer* init;
  WeftOptimizer* opt;
  WeftMetric* acc;
} Fixture;

static void fixture_make(Fixture* f, int batch, int shuffle) {
  static float x[2 * N], y[N];
  const int64_t xs[2] = {N, 2}, ys[1] = {N};
  const char* data_name = "data";
  const char* label_name = "softmax_label";
  const char* keys[2] = {"learning_rate", "momentum"};
  const char* vals[2] = {"0.1", "0.9"};
  make_blobs(x, y, N, 7);
  OK(weft_symbol_from_json(kMlpJson, &f->sym));
  f->x = make_f32(xs, 2, x);
  f->y = make_f32(ys, 1, y);
  OK(weft_data_iter_create_ndarray(1, &data_name, &f->x, 1, &label_name, &f->y, batch, shuffle,
                                   "pad", 5, &f->iter));
  OK(weft_module_create(f->sym, 1, &data_name, 1, &label_name, WEFT_CPU, 0, &f->mod));
  OK(weft_module_bind(f->mod, f->iter, 1));
  OK(weft_initializer_create("xavier", NULL, NULL, 0, 3, &f->init));
  OK(weft_module_init_params(f->mod, f->init, NULL, NULL, 1));
  OK(weft_optimizer_create("sgd", keys, vals, 2, &f->opt));
  OK(weft_module_init_optimizer(f->mod, f->opt));
  OK(weft_metric_create("acc", NULL, NULL, 0, &f->acc));
}

static void fixture_free(Fixture* f) {
  OK(weft_metric_free(f->acc));
  OK(weft_optimizer_free(f->opt));
  OK(weft_initializer_free(f->init));
  OK(weft_module_free(f->mod));
  OK(weft_data_iter_free(f->iter));
  OK(weft_ndarray_free(f->x));
  OK(weft_ndarray_free(f->y));
  OK(weft_symbol_free(f->sym));
}

static double metric_value(const WeftMetric* m) {
  WeftStringList* names = NULL;
  double v = -1;
  size_t n = 0;
  OK(weft_metric_get(m, &names, &v, 1, &n));
  assert_int_equal(n, 1);
  OK(weft_string_list_free(names));
  return v;
}

static void test_fit_reaches_fixed_accuracy(void** state) {
  Fixture f;
  double ips = -1;
  (void)state;
  fixture_make(&f, 16, 1);
  OK(weft_module_fit(f.mod, f.iter, NULL, f.acc, 0, 5, WEFT_PROGRESS_SILENT, NULL, &ips));
  assert_true(ips > 0);
  OK(weft_module_score(f.mod, f.iter, f.acc));
  assert_true(metric_value(f.acc) >= 0.98); /* the clusters are separated by 3 jitter widths */
  fixture_free(&f);
  assert_no_leaks();
}

/* The same steps by hand: next, forward, backward, update, update_metric. */
static void test_manual_loop_and_outputs(void** state) {
  Fixture f;
  int has_next = 0, epoch;
  WeftNDArrayList* outs = NULL;
  WeftNDArray* out = NULL;
  const char* name = NULL;
  int64_t shape[2];
  size_t n = 0;
  (void)state;
  fixture_make(&f, 20, 0);
  for (epoch = 0; epoch < 5; ++epoch) {
    OK(weft_data_iter_reset(f.iter));
    OK(weft_metric_reset(f.acc));
    for (;;) {
      OK(weft_data_iter_next(f.iter, &has_next));
      if (!has_next) break;
      OK(weft_module_forward(f.mod, f.iter, 1));
      OK(weft_module_backward(f.mod));
      OK(weft_module_update(f.mod));
      OK(weft_module_update_metric(f.mod, f.acc, f.iter));
    }
  }
  assert_true(metric_value(f.acc) >= 0.98);
  OK(weft_module_outputs(f.mod, &outs));
  OK(weft_ndarray_list_size(outs, &n, NULL));
  assert_int_equal(n, 1);
  OK(weft_ndarray_list_name(outs, 0, &name));
  assert_string_equal(name, "softmax_output");
  OK(weft_ndarray_list_get(outs, 0, &out));
  OK(weft_ndarray_shape(out, shape, 2));
  assert_int_equal(shape[0], 20);
  assert_int_equal(shape[1], 4);
  OK(weft_ndarray_free(out));
  OK(weft_ndarray_list_free(outs));
  fixture_free(&f);
  assert_no_leaks();
}

/* Forward of the first batch in inference mode; returns its 40 probabilities. */
static void first_batch_outputs(WeftModule* mod, WeftDataIter* iter, float* probs) {
  int has_next = 0;
  WeftNDArrayList* outs = NULL;
  WeftNDArray* out = NULL;
  OK(weft_data_iter_reset(iter));
  OK(weft_data_iter_next(iter, &has_next));
  assert_int_equal(has_next, 1);
  OK(weft_module_forward(mod, iter, 0));
  OK(weft_module_outputs(mod, &outs));
  OK(weft_ndarray_list_get(outs, 0, &out));
  read_f32(out, probs, 40);
  OK(weft_ndarray_free(out));
  OK(weft_ndarray_list_free(outs));
}

static void test_checkpoint_round_trip(void** state) {
  Fixture f;
  char prefix[256], path[300];
  float before[40], after[40];
  WeftSymbolHandle* sym = NULL;
  WeftNDArrayList* args = NULL;
  WeftNDArrayList* aux = NULL;
  WeftModule* loaded = NULL;
  const char* data_name = "data";
  const char* label_name = "softmax_label";
  const char* tmp = getenv("TMPDIR");
  (void)state;
  fixture_make(&f, 10, 0);
  OK(weft_module_fit(f.mod, f.iter, NULL, f.acc, 0, 1, WEFT_PROGRESS_SILENT, NULL, NULL));
  snprintf(prefix, sizeof prefix, "%s/weft_c_module_ckpt", tmp ? tmp : "/tmp");
  OK(weft_module_save_checkpoint(f.mod, prefix, 2));
  first_batch_outputs(f.mod, f.iter, before);

  OK(weft_checkpoint_load(prefix, 2, &sym, &args, &aux));
  OK(weft_module_create(sym, 1, &data_name, 1, &label_name, WEFT_CPU, 0, &loaded));
  OK(weft_module_bind(loaded, f.iter, 0));
  /* Every parameter comes from the lists: no initializer, allow_missing 0. */
  OK(weft_module_init_params(loaded, NULL, args, aux, 0));
  first_batch_outputs(loaded, f.iter, after);
  assert_memory_equal(before, after, sizeof before);

  OK(weft_module_free(loaded));
  OK(weft_ndarray_list_free(args));
  OK(weft_ndarray_list_free(aux));
  OK(weft_symbol_free(sym));
  snprintf(path, sizeof path, "%s-symbol.json", prefix);
  remove(path);
  snprintf(path, sizeof path, "%s-0002.params", prefix);
  remove(path);
  fixture_free(&f);
  assert_no_leaks();
}

/* What the batch-end callback saw; stop_at: (epoch, batch) to return 1 at. */
typedef struct {
  int calls;
  int epochs[32];
  int64_t batches[32], num_batches[32], samples[32];
  double acc[32];
  int stop_epoch;
  int64_t stop_batch;
  int bad_metric;
} Seen;

static int record_batch(const WeftBatchEnd* info, void* user_data) {
  Seen* s = (Seen*)user_data;
  int i = s->calls++;
  if (i >= 32) return 1;
  s->epochs[i] = info->epoch;
  s->batches[i] = info->batch;
  s->num_batches[i] = info->num_batches;
  s->samples[i] = info->samples;
  if (info->num_metrics != 1 || strcmp(info->metric_names[0], "accuracy") != 0) s->bad_metric = 1;
  s->acc[i] = info->num_metrics ? info->metric_values[0] : -1;
  return info->epoch == s->stop_epoch && info->batch == s->stop_batch;
}

static void test_fit_callback_once_per_batch(void** state) {
  Fixture f;
  Seen seen;
  double ips = -1;
  int i;
  (void)state;
  memset(&seen, 0, sizeof seen);
  seen.stop_epoch = -1;
  fixture_make(&f, 64, 0); /* 200 samples: 4 batches, the last padded by 56 */
  OK(weft_module_fit_with_callback(f.mod, f.iter, NULL, f.acc, 1, 3, WEFT_PROGRESS_SILENT, NULL,
                                   record_batch, &seen, &ips));
  assert_int_equal(seen.calls, 8);
  assert_int_equal(seen.bad_metric, 0);
  for (i = 0; i < 8; ++i) {
    const int64_t samples[4] = {64, 128, 192, 200};
    assert_int_equal(seen.epochs[i], 1 + i / 4);
    assert_int_equal(seen.batches[i], i % 4 + 1);
    assert_int_equal(seen.num_batches[i], 4);
    assert_int_equal(seen.samples[i], samples[i % 4]);
    assert_true(seen.acc[i] >= 0 && seen.acc[i] <= 1);
  }
  /* The last call's metric is the metric after the fit (the last epoch's). */
  assert_true(seen.acc[7] == metric_value(f.acc));
  assert_true(ips > 0);
  /* A NULL callback is weft_module_fit. */
  OK(weft_module_fit_with_callback(f.mod, f.iter, NULL, f.acc, 0, 1, WEFT_PROGRESS_SILENT, NULL,
                                   NULL, NULL, NULL));
  fixture_free(&f);
  assert_no_leaks();
}

static void test_fit_callback_stops_training(void** state) {
  Fixture f;
  Seen seen;
  char prefix[256], path[300];
  const char* tmp = getenv("TMPDIR");
  FILE* fp = NULL;
  (void)state;
  memset(&seen, 0, sizeof seen);
  seen.stop_epoch = 1;
  seen.stop_batch = 2;
  fixture_make(&f, 64, 0);
  snprintf(prefix, sizeof prefix, "%s/weft_c_module_stop", tmp ? tmp : "/tmp");
  /* Stops in epoch 1 after batch 2: WEFT_OK, 6 calls, epochs 2.. never run,
   * a checkpoint for epoch 0 (as 1) only. */
  OK(weft_module_fit_with_callback(f.mod, f.iter, f.iter, f.acc, 0, 4, WEFT_PROGRESS_SILENT, prefix,
                                   record_batch, &seen, NULL));
  assert_int_equal(seen.calls, 6);
  assert_int_equal(seen.epochs[5], 1);
  assert_int_equal(seen.batches[5], 2);
  /* metric holds the stopped epoch's training value (no evaluation ran). */
  assert_true(metric_value(f.acc) == seen.acc[5]);
  snprintf(path, sizeof path, "%s-0001.params", prefix);
  fp = fopen(path, "rb");
  assert_non_null(fp);
  fclose(fp);
  remove(path);
  snprintf(path, sizeof path, "%s-0002.params", prefix);
  assert_null(fopen(path, "rb"));
  snprintf(path, sizeof path, "%s-symbol.json", prefix);
  remove(path);
  /* The module is usable afterwards: training goes on and converges. */
  OK(weft_module_fit(f.mod, f.iter, NULL, f.acc, 1, 6, WEFT_PROGRESS_SILENT, NULL, NULL));
  OK(weft_module_score(f.mod, f.iter, f.acc));
  assert_true(metric_value(f.acc) >= 0.98);
  /* The callback variant checks its arguments like weft_module_fit. */
  EXPECT_ERR(weft_module_fit_with_callback(f.mod, f.iter, NULL, f.acc, 0, 1, 9, NULL, record_batch,
                                           &seen, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "weft_module_fit_with_callback", "'progress' is 9");
  EXPECT_ERR(weft_module_fit_with_callback(f.mod, NULL, NULL, f.acc, 0, 1, WEFT_PROGRESS_SILENT,
                                           NULL, record_batch, &seen, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'train' is NULL");
  assert_int_equal(seen.calls, 6);
  fixture_free(&f);
  assert_no_leaks();
}

/* Training through a local kvstore (the optimizer runs in the store) gives
 * the parameters of training without one; a part of the iterator holds
 * its share of the samples. */
static void test_kvstore_training_matches_and_parts(void** state) {
  Fixture plain, viakv;
  WeftKVStore* kv = NULL;
  WeftNDArrayList *pa = NULL, *pk = NULL;
  WeftNDArray *x = NULL, *y = NULL;
  size_t n = 0, i;
  int has_next = 0, batches = 0;
  (void)state;
  fixture_make(&plain, 20, 0);
  fixture_make(&viakv, 20, 0);
  OK(weft_kvstore_create("local", &kv));
  OK(weft_module_init_optimizer_kvstore(viakv.mod, viakv.opt, kv));
  OK(weft_kvstore_free(kv)); /* shared by the module */
  OK(weft_module_fit(plain.mod, plain.iter, NULL, plain.acc, 0, 2, WEFT_PROGRESS_SILENT, NULL,
                     NULL));
  OK(weft_module_fit(viakv.mod, viakv.iter, NULL, viakv.acc, 0, 2, WEFT_PROGRESS_SILENT, NULL,
                     NULL));
  OK(weft_module_params(plain.mod, &pa, NULL));
  OK(weft_module_params(viakv.mod, &pk, NULL));
  OK(weft_ndarray_list_size(pa, &n, NULL));
  assert_int_equal(n, 4);
  for (i = 0; i < n; ++i) {
    float a[64], k[64];
    int64_t size = 0;
    OK(weft_ndarray_list_get(pa, i, &x));
    OK(weft_ndarray_list_get(pk, i, &y));
    OK(weft_ndarray_size(x, &size));
    assert_true(size <= 64);
    read_f32(x, a, (size_t)size);
    read_f32(y, k, (size_t)size);
    assert_floats(k, a, (size_t)size);
    OK(weft_ndarray_free(x));
    OK(weft_ndarray_free(y));
  }
  OK(weft_ndarray_list_free(pa));
  OK(weft_ndarray_list_free(pk));
  /* Part 1 of 3 of 200 samples: 66 samples, 4 batches of 20 (padded). */
  OK(weft_data_iter_select_part(plain.iter, 3, 1));
  for (;;) {
    OK(weft_data_iter_next(plain.iter, &has_next));
    if (!has_next) break;
    ++batches;
  }
  assert_int_equal(batches, 4);
  EXPECT_ERR(weft_data_iter_select_part(plain.iter, 3, 3), WEFT_ERR_INVALID_ARGUMENT,
             "part_index 3");
  EXPECT_ERR(weft_data_iter_select_part(plain.iter, 0, 0), WEFT_ERR_INVALID_ARGUMENT,
             "num_parts 0");
  fixture_free(&plain);
  fixture_free(&viakv);
  assert_no_leaks();
}

static void test_errors(void** state) {
  Fixture f;
  WeftModule* m = NULL;
  WeftModule* freed = NULL;
  const char* data_name = "data";
  const char* bad_name = "image";
  const char* label_name = "softmax_label";
  (void)state;
  fixture_make(&f, 16, 0);

  EXPECT_ERR(weft_module_create(NULL, 1, &data_name, 0, NULL, WEFT_CPU, 0, &m),
             WEFT_ERR_INVALID_ARGUMENT, "'sym' is NULL");
  EXPECT_ERR(weft_module_create(f.sym, 1, &bad_name, 1, &label_name, WEFT_CPU, 0, &m),
             WEFT_ERR_INVALID_ARGUMENT, "data name 'image' is not an argument");
  {
    const char* twice[2] = {"data", "data"};
    EXPECT_ERR(weft_module_create(f.sym, 2, twice, 0, NULL, WEFT_CPU, 0, &m),
               WEFT_ERR_INVALID_ARGUMENT,
               "input 'data' is given twice (data_names[0] and data_names[1])");
  }
  EXPECT_ERR(weft_module_create(f.sym, 0, NULL, 0, NULL, WEFT_CPU, 0, &m),
             WEFT_ERR_INVALID_ARGUMENT, "needs a data input");
  EXPECT_ERR(weft_module_create(f.sym, 1, &data_name, 1, &label_name, 7, 0, &m), WEFT_ERR_DEVICE,
             "dev_type");
  assert_null(m);

  OK(weft_module_create(f.sym, 1, &data_name, 1, &label_name, WEFT_CPU, 0, &m));
  EXPECT_ERR(weft_module_backward(m), WEFT_ERR_INVALID_ARGUMENT, "call Bind first");
  OK(weft_module_bind(m, f.iter, 1));
  EXPECT_ERR(weft_module_init_params(m, NULL, NULL, NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "no value for argument 'fc1_weight'");
  EXPECT_ERR(weft_module_update(m), WEFT_ERR_INVALID_ARGUMENT, "call InitOptimizer first");
  EXPECT_ERR(weft_module_fit(m, f.iter, NULL, f.acc, 0, 1, WEFT_PROGRESS_SILENT, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "call InitOptimizer first");
  OK(weft_module_init_optimizer(m, f.opt));
  EXPECT_ERR(weft_module_fit(m, f.iter, NULL, f.acc, 0, 1, 9, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'progress' is 9");
  EXPECT_ERR(weft_module_fit(m, f.iter, NULL, f.acc, 2, 1, WEFT_PROGRESS_SILENT, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "must exceed begin_epoch");
  OK(weft_data_iter_reset(f.iter));
  EXPECT_ERR(weft_module_forward(m, f.iter, 1), WEFT_ERR_INVALID_ARGUMENT, "no current batch");
  EXPECT_ERR(weft_module_save_checkpoint(m, NULL, 1), WEFT_ERR_INVALID_ARGUMENT,
             "'prefix' is NULL");
  EXPECT_ERR(weft_module_save_checkpoint(m, "/nonexistent-dir/x", 1), WEFT_ERR_IO,
             "/nonexistent-dir/x");

  /* Handles of the wrong type, freed and double-freed handles. */
  EXPECT_ERR(weft_module_bind((WeftModule*)f.iter, f.iter, 1), WEFT_ERR_INVALID_HANDLE,
             "is a WeftDataIter handle, expected a WeftModule handle");
  EXPECT_ERR(weft_module_init_optimizer(m, (WeftOptimizer*)f.acc), WEFT_ERR_INVALID_HANDLE,
             "is a WeftMetric handle, expected a WeftOptimizer handle");
  EXPECT_ERR(weft_module_score(m, f.iter, NULL), WEFT_ERR_INVALID_ARGUMENT, "'metric' is NULL");
  freed = m;
  OK(weft_module_free(m));
  EXPECT_ERR(weft_module_update(freed), WEFT_ERR_INVALID_HANDLE, "freed or invalid WeftModule");
  EXPECT_ERR(weft_module_free(freed), WEFT_ERR_INVALID_HANDLE, "WeftModule");
  OK(weft_module_free(NULL));
  fixture_free(&f);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_fit_reaches_fixed_accuracy, setup),
      cmocka_unit_test_setup(test_manual_loop_and_outputs, setup),
      cmocka_unit_test_setup(test_checkpoint_round_trip, setup),
      cmocka_unit_test_setup(test_fit_callback_once_per_batch, setup),
      cmocka_unit_test_setup(test_fit_callback_stops_training, setup),
      cmocka_unit_test_setup(test_kvstore_training_matches_and_parts, setup),
      cmocka_unit_test_setup(test_errors, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
