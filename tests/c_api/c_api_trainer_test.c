/*
 * C ABI tests of weft_trainer_* and weft_fit_session_*: an MLP trained on
 * Fashion-MNIST (Debian's dataset-fashion-mnist; skipped when absent) for
 * eight batches through a Module driven step by step, and the same steps
 * written imperatively with autograd + a Trainer from the same initial
 * parameters, end with the same parameters (within 1e-5); the fit session's
 * events, early stop and epoch figures; errors naming the argument. Each
 * test ends with no leaked handles or bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_util.h"

#define FM_DIR "/usr/share/datasets/fashion-mnist"
#define BATCH 64
#define STEPS 8
#define HIDDEN "32"
#define NPARAM 4

/* data -> FC(32) -> relu -> FC(10) -> SoftmaxOutput. */
static const char kMlpJson[] =
    "{\"nodes\": ["
    "{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc1_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc1_bias\", \"inputs\": []},"
    "{\"op\": \"FullyConnected\", \"name\": \"fc1\", \"attrs\": {\"num_hidden\": \"" HIDDEN
    "\"},"
    " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},"
    "{\"op\": \"Activation\", \"name\": \"relu1\", \"attrs\": {\"act_type\": \"relu\"}, "
    "\"inputs\": [[3, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"fc2_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc2_bias\", \"inputs\": []},"
    "{\"op\": \"FullyConnected\", \"name\": \"fc2\", \"attrs\": {\"num_hidden\": \"10\"},"
    " \"inputs\": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []},"
    "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", \"inputs\": [[7, 0, 0], [8, 0, 0]]}],"
    "\"arg_nodes\": [0, 1, 2, 5, 6, 8], \"heads\": [[9, 0, 0]]}";

static const char* const kParamNames[NPARAM] = {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"};
static const char* const kOptKeys[3] = {"learning_rate", "momentum", "wd"};
static const char* const kOptVals[3] = {"0.1", "0.9", "0.001"};

typedef struct {
  WeftNDArray* images; /* the first STEPS * BATCH test images and labels */
  WeftNDArray* labels;
  WeftSymbolHandle* sym;
  WeftDataIter* iter;
  WeftModule* mod;
  WeftInitializer* init;
  WeftOptimizer* opt;
  WeftMetric* acc;
} Fixture;

/* Returns 0 (and skips) when the dataset is not installed. */
static int fixture_make(Fixture* f) {
  WeftNDArray *all_x = NULL, *all_y = NULL;
  const char* data_name = "data";
  const char* label_name = "softmax_label";
  FILE* probe = fopen(FM_DIR "/t10k-labels-idx1-ubyte.gz", "rb");
  memset(f, 0, sizeof *f);
  if (!probe) return 0;
  fclose(probe);
  OK(weft_mnist_load(FM_DIR "/t10k-images-idx3-ubyte.gz", FM_DIR "/t10k-labels-idx1-ubyte.gz",
                     &all_x, &all_y));
  OK(weft_ndarray_slice(all_x, 0, STEPS * BATCH, &f->images));
  OK(weft_ndarray_slice(all_y, 0, STEPS * BATCH, &f->labels));
  OK(weft_ndarray_free(all_x));
  OK(weft_ndarray_free(all_y));
  OK(weft_symbol_from_json(kMlpJson, &f->sym));
  OK(weft_data_iter_create_ndarray(1, &data_name, &f->images, 1, &label_name, &f->labels, BATCH, 0,
                                   "pad", 0, &f->iter));
  OK(weft_module_create(f->sym, 1, &data_name, 1, &label_name, WEFT_CPU, 0, &f->mod));
  OK(weft_module_bind(f->mod, f->iter, 1));
  OK(weft_initializer_create("xavier", NULL, NULL, 0, 7, &f->init));
  OK(weft_module_init_params(f->mod, f->init, NULL, NULL, 1));
  OK(weft_optimizer_create("sgd", kOptKeys, kOptVals, 3, &f->opt));
  OK(weft_module_init_optimizer(f->mod, f->opt));
  OK(weft_metric_create("acc", NULL, NULL, 0, &f->acc));
  return 1;
}

static void fixture_free(Fixture* f) {
  OK(weft_metric_free(f->acc));
  OK(weft_optimizer_free(f->opt));
  OK(weft_initializer_free(f->init));
  OK(weft_module_free(f->mod));
  OK(weft_data_iter_free(f->iter));
  OK(weft_symbol_free(f->sym));
  OK(weft_ndarray_free(f->images));
  OK(weft_ndarray_free(f->labels));
}

/* A new array holding a copy of `a`. */
static WeftNDArray* copy_of(WeftNDArray* a) {
  WeftNDArray* out[1] = {NULL};
  size_t got = 0;
  OK(weft_op_invoke("_copy", &a, 1, NULL, NULL, 0, out, 1, &got));
  return out[0];
}

/* Copies of the module's parameters in kParamNames order. */
static void module_params(WeftModule* mod, WeftNDArray** out) {
  WeftNDArrayList* args = NULL;
  size_t i, n = 0, j;
  OK(weft_module_params(mod, &args, NULL));
  OK(weft_ndarray_list_size(args, &n, NULL));
  for (i = 0; i < NPARAM; ++i) {
    out[i] = NULL;
    for (j = 0; j < n; ++j) {
      const char* name = NULL;
      OK(weft_ndarray_list_name(args, j, &name));
      if (strcmp(name, kParamNames[i]) == 0) {
        WeftNDArray* a = NULL;
        OK(weft_ndarray_list_get(args, j, &a));
        out[i] = copy_of(a);
        OK(weft_ndarray_free(a));
      }
    }
    assert_non_null(out[i]);
  }
  OK(weft_ndarray_list_free(args));
}

/* The largest |a - b| over two float32 arrays of equal size. */
static double max_diff(const WeftNDArray* a, const WeftNDArray* b) {
  int64_t n = 0, i;
  float *va, *vb;
  double d = 0;
  OK(weft_ndarray_size(a, &n));
  va = malloc((size_t)n * sizeof(float));
  vb = malloc((size_t)n * sizeof(float));
  read_f32(a, va, (size_t)n);
  read_f32(b, vb, (size_t)n);
  for (i = 0; i < n; ++i) d = fmax(d, fabs((double)va[i] - (double)vb[i]));
  free(va);
  free(vb);
  return d;
}

static WeftNDArray* invoke(const char* op, WeftNDArray** in, size_t n, const char* key,
                           const char* val) {
  WeftNDArray* out[1] = {NULL};
  size_t got = 0;
  OK(weft_op_invoke(op, in, n, key ? &key : NULL, val ? &val : NULL, key ? 1 : 0, out, 1, &got));
  return out[0];
}

/* One recorded forward of the MLP on rows [b*BATCH, (b+1)*BATCH), then backward. */
static void autograd_batch(const Fixture* f, WeftNDArray** p, int b) {
  WeftNDArray *x = NULL, *y = NULL, *h, *r, *o, *loss;
  WeftNDArray* in[3];
  OK(weft_ndarray_slice(f->images, (int64_t)b * BATCH, (int64_t)(b + 1) * BATCH, &x));
  OK(weft_ndarray_slice(f->labels, (int64_t)b * BATCH, (int64_t)(b + 1) * BATCH, &y));
  OK(weft_autograd_set_is_recording(1, NULL));
  OK(weft_autograd_set_is_training(1, NULL));
  in[0] = x, in[1] = p[0], in[2] = p[1];
  h = invoke("FullyConnected", in, 3, "num_hidden", HIDDEN);
  r = invoke("Activation", &h, 1, "act_type", "relu");
  in[0] = r, in[1] = p[2], in[2] = p[3];
  o = invoke("FullyConnected", in, 3, "num_hidden", "10");
  in[0] = o, in[1] = y;
  loss = invoke("SoftmaxOutput", in, 2, NULL, NULL);
  OK(weft_autograd_set_is_recording(0, NULL));
  OK(weft_autograd_set_is_training(0, NULL));
  OK(weft_autograd_backward(&loss, 1, NULL, 0, 1));
  OK(weft_ndarray_free(loss));
  OK(weft_ndarray_free(o));
  OK(weft_ndarray_free(r));
  OK(weft_ndarray_free(h));
  OK(weft_ndarray_free(x));
  OK(weft_ndarray_free(y));
}

static void test_autograd_trainer_matches_module(void** state) {
  Fixture f;
  WeftNDArray *p[NPARAM], *grads[NPARAM], *trained[NPARAM], *init_copy[NPARAM];
  int reqs[NPARAM], event = -1, batches = 0, b, i;
  WeftOptimizer* opt = NULL;
  WeftTrainer* trainer = NULL;
  WeftFitSession* fs = NULL;
  (void)state;
  if (!fixture_make(&f)) skip();
  module_params(f.mod, p);
  module_params(f.mod, init_copy);

  /* The module: one epoch of STEPS batches, step by step. */
  OK(weft_fit_session_create(f.mod, f.iter, NULL, f.acc, 0, 1, WEFT_PROGRESS_SILENT, NULL, &fs));
  for (;;) {
    OK(weft_fit_session_next(fs, &event));
    if (event != WEFT_FIT_BATCH_END) break;
    ++batches;
  }
  assert_int_equal(batches, STEPS);
  assert_int_equal(event, WEFT_FIT_EPOCH_END);
  OK(weft_fit_session_next(fs, &event));
  assert_int_equal(event, WEFT_FIT_DONE);
  OK(weft_fit_session_free(fs));
  module_params(f.mod, trained);

  /* Autograd + Trainer from the same initial values, same optimizer settings. */
  for (i = 0; i < NPARAM; ++i) {
    int64_t shape[4];
    int ndim = 0;
    OK(weft_ndarray_ndim(p[i], &ndim));
    OK(weft_ndarray_shape(p[i], shape, (size_t)ndim));
    grads[i] = make_f32(shape, ndim, NULL);
    reqs[i] = WEFT_REQ_WRITE;
  }
  OK(weft_autograd_mark_variables(p, NPARAM, reqs, grads));
  OK(weft_optimizer_create("sgd", kOptKeys, kOptVals, 3, &opt));
  OK(weft_trainer_create(kParamNames, p, NPARAM, opt, &trainer));
  OK(weft_optimizer_free(opt)); /* the trainer keeps it */
  for (b = 0; b < STEPS; ++b) {
    autograd_batch(&f, p, b);
    OK(weft_trainer_step(trainer, BATCH));
  }
  for (i = 0; i < NPARAM; ++i) {
    const double moved = max_diff(trained[i], init_copy[i]);
    const double d = max_diff(trained[i], p[i]);
    if (moved < 1e-3) fail_msg("%s barely trained (moved %g)", kParamNames[i], moved);
    if (d > 1e-5) fail_msg("%s: autograd+Trainer differs from Module by %g", kParamNames[i], d);
  }
  OK(weft_trainer_free(trainer));
  for (i = 0; i < NPARAM; ++i) {
    OK(weft_ndarray_free(p[i]));
    OK(weft_ndarray_free(grads[i]));
    OK(weft_ndarray_free(trained[i]));
    OK(weft_ndarray_free(init_copy[i]));
  }
  fixture_free(&f);
  assert_no_leaks();
}

/* Events of a two-epoch fit stopped after batch 3 of the second epoch. */
static void test_fit_session_events_and_stop(void** state) {
  Fixture f;
  WeftFitSession* fs = NULL;
  WeftStringList* names = NULL;
  int event = -1, epoch = -1, stopped = -1, closed = 0;
  int64_t batch = 0, num_batches = 0, samples = 0, batches = 0;
  double seconds = -1, sps = -1, values[2];
  size_t num = 0;
  (void)state;
  if (!fixture_make(&f)) skip();
  OK(weft_fit_session_create(f.mod, f.iter, f.iter, f.acc, 0, 2, WEFT_PROGRESS_SILENT, NULL, &fs));
  EXPECT_ERR(weft_fit_session_batch(fs, &epoch, NULL, NULL, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "no batch");
  EXPECT_ERR(weft_fit_session_epoch(fs, &epoch, NULL, NULL, NULL, NULL, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "no epoch");
  for (;;) {
    OK(weft_fit_session_next(fs, &event));
    if (event == WEFT_FIT_EPOCH_END) {
      OK(weft_fit_session_epoch(fs, &epoch, &batches, &samples, &seconds, &sps, &stopped));
      assert_int_equal(epoch, closed);
      assert_int_equal(batches, STEPS);
      assert_int_equal(samples, STEPS * BATCH);
      assert_int_equal(stopped, 0);
      OK(weft_fit_session_epoch_metric(fs, 1, &names, values, 2, &num));
      assert_int_equal(num, 1);
      assert_true(values[0] > 0.3 && values[0] <= 1.0); /* validation accuracy after an epoch */
      OK(weft_string_list_free(names));
      ++closed;
      continue;
    }
    assert_int_equal(event, WEFT_FIT_BATCH_END);
    OK(weft_fit_session_batch(fs, &epoch, &batch, &num_batches, &samples, &seconds));
    assert_int_equal(epoch, closed);
    assert_int_equal(num_batches, STEPS);
    assert_int_equal(samples, batch * BATCH);
    assert_true(seconds >= 0);
    if (epoch == 1 && batch == 3) break;
  }
  OK(weft_fit_session_stop(fs));
  OK(weft_fit_session_stop(fs)); /* idempotent */
  OK(weft_fit_session_epoch(fs, &epoch, &batches, NULL, NULL, NULL, &stopped));
  assert_int_equal(epoch, 1);
  assert_int_equal(batches, 3);
  assert_int_equal(stopped, 1);
  OK(weft_fit_session_epoch_metric(fs, 1, &names, values, 2, &num));
  assert_int_equal(num, 0); /* a stopped epoch is not validated */
  OK(weft_string_list_free(names));
  OK(weft_fit_session_epoch_metric(fs, 0, &names, values, 2, &num));
  assert_int_equal(num, 1);
  OK(weft_string_list_free(names));
  OK(weft_fit_session_next(fs, &event));
  assert_int_equal(event, WEFT_FIT_DONE);
  OK(weft_fit_session_free(fs));
  fixture_free(&f);
  assert_no_leaks();
}

static void test_errors(void** state) {
  Fixture f;
  WeftFitSession* fs = NULL;
  WeftTrainer* trainer = NULL;
  WeftNDArray* p[2];
  WeftNDArray* g = NULL;
  const char* dup[2] = {"w", "w"};
  const int64_t shape[1] = {3};
  const int req = WEFT_REQ_WRITE;
  (void)state;
  if (!fixture_make(&f)) skip();
  EXPECT_ERR(
      weft_fit_session_create(f.mod, f.iter, NULL, f.acc, 2, 1, WEFT_PROGRESS_SILENT, NULL, &fs),
      WEFT_ERR_INVALID_ARGUMENT, "num_epoch (1)", "begin_epoch (2)");
  EXPECT_ERR(weft_fit_session_create(f.mod, f.iter, NULL, f.acc, 0, 1, 9, NULL, &fs),
             WEFT_ERR_INVALID_ARGUMENT, "progress");
  EXPECT_ERR(weft_fit_session_create(f.mod, NULL, NULL, f.acc, 0, 1, 0, NULL, &fs),
             WEFT_ERR_INVALID_ARGUMENT, "train");
  EXPECT_ERR(weft_fit_session_next(NULL, NULL), WEFT_ERR_INVALID_ARGUMENT, "'s'");

  p[0] = make_f32(shape, 1, NULL);
  p[1] = p[0];
  EXPECT_ERR(weft_trainer_create(dup, p, 1, f.opt, &trainer), WEFT_ERR_INVALID_ARGUMENT, "'w'",
             "gradient buffer");
  g = make_f32(shape, 1, NULL);
  OK(weft_autograd_mark_variables(p, 1, &req, &g));
  EXPECT_ERR(weft_trainer_create(dup, p, 2, f.opt, &trainer), WEFT_ERR_INVALID_ARGUMENT, "'w'",
             "twice");
  EXPECT_ERR(weft_trainer_create(dup, p, 1, NULL, &trainer), WEFT_ERR_INVALID_ARGUMENT, "opt");
  OK(weft_trainer_create(dup, p, 1, f.opt, &trainer));
  EXPECT_ERR(weft_trainer_step(trainer, 0), WEFT_ERR_INVALID_ARGUMENT, "batch_size");
  OK(weft_trainer_free(trainer));
  OK(weft_trainer_free(NULL));
  OK(weft_fit_session_free(NULL));
  OK(weft_ndarray_free(p[0]));
  OK(weft_ndarray_free(g));
  fixture_free(&f);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_autograd_trainer_matches_module),
      TEST(test_fit_session_events_and_stop),
      TEST(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
