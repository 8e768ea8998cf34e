/*
 * weft_predictor_*: MTCNN's P-Net (deepinsight det1, a real MXNet model and
 * its real .params) from files and from memory, against the outputs PyTorch
 * computed (scripts/gen_det1_refs.py, stored under tests/data/det1/); a
 * second input size; threads predicting at once equal one thread, with and
 * without dynamic batching; errors; live handles back to their baseline.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_util.h"

#define MODEL_DIR WEFT_SHARED_TESTDATA "/mxnet-models/"
#define SYMBOL_FILE MODEL_DIR "deepinsight__det1-symbol.json"
#define PARAMS_FILE MODEL_DIR "deepinsight__det1-0001.params"
#define REF_DIR WEFT_TEST_DATA "/det1/"

static int have_model(void) {
  FILE* f = fopen(PARAMS_FILE, "rb");
  if (!f) return 0;
  fclose(f);
  return 1;
}

/* The whole file at `path` (malloc'd; *size receives its length). */
static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* data;
  long n;
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = malloc((size_t)n + 1);
  assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
  data[n] = 0;
  fclose(f);
  *size = (size_t)n;
  return data;
}

/* The float32 values of the .npy at `path` (malloc'd), with their count. */
static float* load_npy(const char* path, size_t* count) {
  WeftNDArray* a = NULL;
  int64_t n = 0;
  float* v;
  OK(weft_ndarray_load_npy(path, &a));
  OK(weft_ndarray_size(a, &n));
  v = malloc((size_t)n * sizeof(float));
  read_f32(a, v, (size_t)n);
  OK(weft_ndarray_free(a));
  *count = (size_t)n;
  return v;
}

static void assert_close(const float* got, const float* want, size_t n, float tol) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (fabsf(got[i] - want[i]) > tol)
      fail_msg("element %d: got %g, expected %g", (int)i, (double)got[i], (double)want[i]);
}

static const char* kInputs[] = {"data"};

static WeftPredictor* create_from_files(int64_t h, int64_t w, size_t num_outputs,
                                        const char* const* outputs, const char* max_executors) {
  const size_t ind_ptr[] = {0, 4};
  const int64_t dims[] = {1, 3, h, w};
  const char* keys[] = {"max_executors"};
  const char* vals[] = {max_executors};
  WeftPredictor* p = NULL;
  OK(weft_predictor_create_from_files(SYMBOL_FILE, PARAMS_FILE, 1, kInputs, ind_ptr, dims, WEFT_CPU,
                                      0, num_outputs, outputs, max_executors ? 1 : 0, keys, vals,
                                      &p));
  return p;
}

/* Runs `p` on the stored input of `tag` and checks both outputs. */
static void check_det1(WeftPredictor* p, const char* tag, int64_t h, int64_t w) {
  char path[512];
  size_t n_in, n_conv, n_prob, ndim = 0;
  float *in, *conv, *prob, *got_conv, *got_prob;
  const size_t ind_ptr[] = {0, 4};
  const int64_t dims[] = {1, 3, h, w};
  int64_t out_dims[8];
  const void* in_data[1];
  size_t in_bytes[1], out_bytes[2];
  void* out_data[2];
  snprintf(path, sizeof path, REF_DIR "input_%s.npy", tag);
  in = load_npy(path, &n_in);
  snprintf(path, sizeof path, REF_DIR "conv4_2_%s.npy", tag);
  conv = load_npy(path, &n_conv);
  snprintf(path, sizeof path, REF_DIR "prob1_%s.npy", tag);
  prob = load_npy(path, &n_prob);
  OK(weft_predictor_output_shape(p, 1, ind_ptr, dims, 1, out_dims, 8, &ndim));
  assert_int_equal(ndim, 4);
  assert_int_equal(out_dims[0] * out_dims[1] * out_dims[2] * out_dims[3], (int64_t)n_prob);
  got_conv = malloc(n_conv * sizeof(float));
  got_prob = malloc(n_prob * sizeof(float));
  in_data[0] = in;
  in_bytes[0] = n_in * sizeof(float);
  out_data[0] = got_conv;
  out_data[1] = got_prob;
  out_bytes[0] = n_conv * sizeof(float);
  out_bytes[1] = n_prob * sizeof(float);
  OK(weft_predictor_predict(p, 1, in_data, in_bytes, ind_ptr, dims, 2, out_data, out_bytes));
  assert_close(got_conv, conv, n_conv, 1e-4f);
  assert_close(got_prob, prob, n_prob, 1e-4f);
  free(in);
  free(conv);
  free(prob);
  free(got_conv);
  free(got_prob);
}

static void test_det1_files_and_memory(void** state) {
  WeftPredictor *files, *memory = NULL;
  WeftStringList* names = NULL;
  const char* name = NULL;
  size_t count = 0, json_size = 0, params_size = 0;
  char *json, *params;
  const size_t ind_ptr[] = {0, 4};
  const int64_t dims[] = {1, 3, 12, 12};
  WeftPredictorStats stats;
  (void)state;
  if (!have_model()) skip();
  files = create_from_files(12, 12, 0, NULL, NULL);
  OK(weft_predictor_list_inputs(files, &names));
  OK(weft_string_list_size(names, &count));
  assert_int_equal(count, 1);
  OK(weft_string_list_get(names, 0, &name));
  assert_string_equal(name, "data");
  OK(weft_string_list_free(names));
  OK(weft_predictor_list_outputs(files, &names));
  OK(weft_string_list_size(names, &count));
  assert_int_equal(count, 2);
  OK(weft_string_list_free(names));
  check_det1(files, "12x12", 12, 12);
  check_det1(files, "24x36", 24, 36); /* a new input size binds once */
  OK(weft_predictor_stats(files, &stats));
  assert_int_equal(stats.shape_sets, 2);
  assert_true(stats.weight_bytes > 0);

  json = read_file(SYMBOL_FILE, &json_size);
  params = read_file(PARAMS_FILE, &params_size);
  OK(weft_predictor_create(json, params, params_size, 1, kInputs, ind_ptr, dims, WEFT_CPU, 0, 0,
                           NULL, 0, NULL, NULL, &memory));
  free(json);
  free(params);
  check_det1(memory, "12x12", 12, 12);
  OK(weft_predictor_free(memory));
  OK(weft_predictor_free(files));
  assert_no_leaks();
}

struct Worker {
  WeftPredictor* p;
  const float* in;
  size_t n_in;
  const float* want;
  size_t n_out;
  int mismatches;
  int failures;
  float tol; /* 0: bitwise equal (batched rows may differ in the last bits) */
};

static void* run_worker(void* arg) {
  struct Worker* w = arg;
  const int64_t shape[] = {1, 3, 12, 12};
  float* out = malloc(w->n_out * sizeof(float));
  int r;
  for (r = 0; r < 30; ++r) {
    if (weft_predictor_predict_float(w->p, w->in, w->n_in, shape, 4, out, w->n_out) != WEFT_OK) {
      ++w->failures;
      continue;
    }
    if (w->tol == 0 ? memcmp(out, w->want, w->n_out * sizeof(float)) != 0
                    : fabsf(out[0] - w->want[0]) > w->tol || fabsf(out[1] - w->want[1]) > w->tol)
      ++w->mismatches;
  }
  free(out);
  return NULL;
}

static void test_threads_equal_one_thread(void** state) {
  const char* outputs[] = {"prob1"};
  WeftPredictor* p;
  size_t n_in, i;
  float *in, want[4];
  const int64_t shape[] = {1, 3, 12, 12};
  struct Worker workers[6];
  pthread_t threads[6];
  WeftPredictorStats stats;
  (void)state;
  if (!have_model()) skip();
  p = create_from_files(12, 12, 1, outputs, "3");
  in = load_npy(REF_DIR "input_12x12.npy", &n_in);
  OK(weft_predictor_predict_float(p, in, n_in, shape, 4, want, 2));
  for (i = 0; i < 6; ++i) {
    struct Worker w = {p, in, n_in, want, 2, 0, 0, 0.0f};
    workers[i] = w;
    assert_int_equal(pthread_create(&threads[i], NULL, run_worker, &workers[i]), 0);
  }
  for (i = 0; i < 6; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(workers[i].failures, 0);
    assert_int_equal(workers[i].mismatches, 0);
  }
  OK(weft_predictor_stats(p, &stats));
  assert_true(stats.executors >= 1 && stats.executors <= 3);
  assert_int_equal(stats.in_use, 0);
  free(in);
  OK(weft_predictor_free(p));
  assert_no_leaks();
}

/* Dynamic batching: six threads' single-sample calls gathered into batches
 * give the unbatched result; a call of two samples gets both rows. */
static void test_dynamic_batching(void** state) {
  const char* outputs[] = {"prob1"};
  const char* keys[] = {"max_batch", "batch_delay_us", "batch_queue"};
  const char* queues[] = {"mutex", "lockfree"};
  const char* bad_vals[] = {"4", "100", "ring"};
  const size_t ind_ptr[] = {0, 4};
  const int64_t dims[] = {1, 3, 12, 12};
  const int64_t shape[] = {1, 3, 12, 12}, shape2[] = {2, 3, 12, 12};
  WeftPredictor *plain, *p = NULL;
  size_t n_in, i, q;
  float *in, *in2, want[2], out2[4];
  struct Worker workers[6];
  pthread_t threads[6];
  (void)state;
  if (!have_model()) skip();
  plain = create_from_files(12, 12, 1, outputs, NULL);
  in = load_npy(REF_DIR "input_12x12.npy", &n_in);
  OK(weft_predictor_predict_float(plain, in, n_in, shape, 4, want, 2));
  OK(weft_predictor_free(plain));
  in2 = malloc(2 * n_in * sizeof(float));
  memcpy(in2, in, n_in * sizeof(float));
  memcpy(in2 + n_in, in, n_in * sizeof(float));
  for (q = 0; q < 2; ++q) {
    const char* vals[3];
    vals[0] = "4";
    vals[1] = "5000";
    vals[2] = queues[q];
    OK(weft_predictor_create_from_files(SYMBOL_FILE, PARAMS_FILE, 1, kInputs, ind_ptr, dims,
                                        WEFT_CPU, 0, 1, outputs, 3, keys, vals, &p));
    for (i = 0; i < 6; ++i) {
      struct Worker w = {p, in, n_in, want, 2, 0, 0, 1e-5f};
      workers[i] = w;
      assert_int_equal(pthread_create(&threads[i], NULL, run_worker, &workers[i]), 0);
    }
    for (i = 0; i < 6; ++i) {
      pthread_join(threads[i], NULL);
      assert_int_equal(workers[i].failures, 0);
      assert_int_equal(workers[i].mismatches, 0);
    }
    OK(weft_predictor_predict_float(p, in2, 2 * n_in, shape2, 4, out2, 4));
    assert_close(out2, want, 2, 1e-5f);
    assert_close(out2 + 2, want, 2, 1e-5f);
    OK(weft_predictor_free(p));
    p = NULL;
  }
  EXPECT_ERR(weft_predictor_create_from_files(SYMBOL_FILE, PARAMS_FILE, 1, kInputs, ind_ptr, dims,
                                              WEFT_CPU, 0, 1, outputs, 3, keys, bad_vals, &p),
             WEFT_ERR_INVALID_ARGUMENT, "batch_queue", "'ring'");
  assert_null(p);
  free(in);
  free(in2);
  assert_no_leaks();
}

static void test_errors(void** state) {
  const char* outputs[] = {"prob1"};
  const char* bad_keys[] = {"max_executors"};
  const char* bad_vals[] = {"-1"};
  const char* unknown_keys[] = {"threads"};
  const char* unknown_vals[] = {"2"};
  const char* wrong_input[] = {"image"};
  const size_t ind_ptr[] = {0, 4};
  const int64_t dims[] = {1, 3, 12, 12};
  const int64_t shape[] = {1, 3, 12, 12};
  float in[432] = {0}, out[4], small[3];
  WeftPredictor *p = NULL, *two = NULL;
  WeftNDArray* arr;
  WeftPredictorStats stats;
  (void)state;
  if (!have_model()) skip();
  EXPECT_ERR(weft_predictor_create_from_files(SYMBOL_FILE, PARAMS_FILE, 1, kInputs, ind_ptr, dims,
                                              WEFT_CPU, 0, 0, NULL, 1, bad_keys, bad_vals, &p),
             WEFT_ERR_INVALID_ARGUMENT, "max_executors", "-1");
  EXPECT_ERR(
      weft_predictor_create_from_files(SYMBOL_FILE, PARAMS_FILE, 1, kInputs, ind_ptr, dims,
                                       WEFT_CPU, 0, 0, NULL, 1, unknown_keys, unknown_vals, &p),
      WEFT_ERR_INVALID_ARGUMENT, "unknown option 'threads'");
  EXPECT_ERR(weft_predictor_create_from_files(SYMBOL_FILE, PARAMS_FILE, 1, wrong_input, ind_ptr,
                                              dims, WEFT_CPU, 0, 0, NULL, 0, NULL, NULL, &p),
             WEFT_ERR_INVALID_ARGUMENT, "input 'image'", "no argument");
  EXPECT_ERR(
      weft_predictor_create_from_files(SYMBOL_FILE, MODEL_DIR "missing.params", 1, kInputs, ind_ptr,
                                       dims, WEFT_CPU, 0, 0, NULL, 0, NULL, NULL, &p),
      WEFT_ERR_IO, "missing.params");
  EXPECT_ERR(weft_predictor_create("{", "", 0, 1, kInputs, ind_ptr, dims, WEFT_CPU, 0, 0, NULL, 0,
                                   NULL, NULL, &p),
             WEFT_ERR_INVALID_ARGUMENT, "JSON");
  assert_null(p);

  p = create_from_files(12, 12, 1, outputs, NULL);
  EXPECT_ERR(weft_predictor_predict_float(NULL, in, 432, shape, 4, out, 2),
             WEFT_ERR_INVALID_ARGUMENT, "'pred'");
  arr = make_f32(shape, 4, NULL);
  EXPECT_ERR(weft_predictor_predict_float((WeftPredictor*)arr, in, 432, shape, 4, out, 2),
             WEFT_ERR_INVALID_HANDLE, "WeftNDArray handle", "expected a WeftPredictor");
  OK(weft_ndarray_free(arr));
  EXPECT_ERR(weft_predictor_predict_float(p, in, 10, shape, 4, out, 2), WEFT_ERR_INVALID_ARGUMENT,
             "input 'data'", "1728 bytes, given 40");
  EXPECT_ERR(weft_predictor_predict_float(p, in, 432, shape, 4, small, 3),
             WEFT_ERR_INVALID_ARGUMENT, "output 'prob1_output'", "8 bytes, given 12");
  EXPECT_ERR(weft_predictor_predict_float(p, in, 432, shape, 3, out, 2), WEFT_ERR_SHAPE, "data");
  OK(weft_predictor_predict_float(p, in, 432, shape, 4, out, 2)); /* still usable */
  assert_true(fabsf(out[0] + out[1] - 1.0f) < 1e-5f);
  OK(weft_predictor_stats(p, &stats));
  assert_int_equal(stats.in_use, 0);

  two = create_from_files(12, 12, 0, NULL, NULL); /* two outputs */
  EXPECT_ERR(weft_predictor_predict_float(two, in, 432, shape, 4, out, 2),
             WEFT_ERR_INVALID_ARGUMENT, "2 output(s)", "needs one of each");
  OK(weft_predictor_free(two));
  OK(weft_predictor_free(p));
  EXPECT_ERR(weft_predictor_predict_float(p, in, 432, shape, 4, out, 2), WEFT_ERR_INVALID_HANDLE,
             "WeftPredictor");
  EXPECT_ERR(weft_predictor_free(p), WEFT_ERR_INVALID_HANDLE, "WeftPredictor");
  OK(weft_predictor_free(NULL));
  assert_no_leaks();
}

/* The caller's copies of weft_predictor_predict_float_with(): from `in` and
 * into `out`, counted; `fail` makes copy_in refuse. */
struct Copies {
  const float* in;
  float* out;
  size_t in_bytes, out_bytes;
  int copied_in, copied_out, fail;
  pthread_t caller; /* both copies run on the calling thread */
};

static int copy_in(void* user, void* dst, size_t bytes) {
  struct Copies* c = (struct Copies*)user;
  if (c->fail || bytes != c->in_bytes || !pthread_equal(pthread_self(), c->caller)) return 1;
  memcpy(dst, c->in, bytes);
  ++c->copied_in;
  return 0;
}

static int copy_out(void* user, const void* src, size_t bytes) {
  struct Copies* c = (struct Copies*)user;
  if (bytes != c->out_bytes || !pthread_equal(pthread_self(), c->caller)) return 1;
  memcpy(c->out, src, bytes);
  ++c->copied_out;
  return 0;
}

/* The caller-copy path gives predict_float's numbers with one copy each
 * way, with and without batching; a refusing copy fails the call by name
 * and leaves the predictor usable. */
static void test_caller_copies(void** state) {
  const char* outputs[] = {"prob1"};
  WeftPredictor* p;
  size_t n_in;
  float *in, want[2], got[2];
  const int64_t shape[] = {1, 3, 12, 12};
  const char* keys[] = {"max_batch"};
  const char* vals[] = {"4"};
  const size_t ind_ptr[] = {0, 4};
  const int64_t dims[] = {1, 3, 12, 12};
  struct Copies c;
  int batched;
  (void)state;
  if (!have_model()) skip();
  in = load_npy(REF_DIR "input_12x12.npy", &n_in);
  for (batched = 0; batched < 2; ++batched) {
    if (batched) {
      OK(weft_predictor_create_from_files(SYMBOL_FILE, PARAMS_FILE, 1, kInputs, ind_ptr, dims,
                                          WEFT_CPU, 0, 1, outputs, 1, keys, vals, &p));
    } else {
      p = create_from_files(12, 12, 1, outputs, NULL);
    }
    OK(weft_predictor_predict_float(p, in, n_in, shape, 4, want, 2));
    memset(&c, 0, sizeof c);
    c.in = in;
    c.out = got;
    c.in_bytes = n_in * sizeof(float);
    c.out_bytes = sizeof got;
    c.caller = pthread_self();
    OK(weft_predictor_predict_float_with(p, copy_in, copy_out, &c, n_in, shape, 4, 2));
    assert_int_equal(c.copied_in, 1);
    assert_int_equal(c.copied_out, 1);
    assert_close(got, want, 2, 1e-6f);
    c.fail = 1;
    EXPECT_ERR(weft_predictor_predict_float_with(p, copy_in, copy_out, &c, n_in, shape, 4, 2),
               WEFT_ERR_INVALID_ARGUMENT, "copy_in failed");
    EXPECT_ERR(weft_predictor_predict_float_with(p, copy_in, NULL, &c, n_in, shape, 4, 2),
               WEFT_ERR_INVALID_ARGUMENT, "'copy_out' is null");
    c.fail = 0;
    EXPECT_ERR(weft_predictor_predict_float_with(p, copy_in, copy_out, &c, n_in, shape, 4, 3),
               WEFT_ERR_INVALID_ARGUMENT, "output 'prob1_output'", "8 bytes, given 12");
    memset(got, 0, sizeof got);
    OK(weft_predictor_predict_float_with(p, copy_in, copy_out, &c, n_in, shape, 4, 2));
    assert_close(got, want, 2, 1e-6f); /* still usable */
    OK(weft_predictor_free(p));
  }
  free(in);
  assert_no_leaks();
}

/* weft_predictor_predict_packed(): both outputs of det1 in one buffer equal
 * the reference (output 1 starts right after output 0's bytes); errors name
 * the packed arguments, and the predictor stays usable. */
static void test_packed(void** state) {
  size_t n_in, n_conv, n_prob;
  float *in, *conv, *prob, *out;
  const size_t ind_ptr[] = {0, 4};
  const int64_t dims[] = {1, 3, 12, 12};
  size_t in_bytes[1], out_bytes[2], huge[2];
  WeftPredictor* p;
  WeftNDArray* arr;
  (void)state;
  if (!have_model()) skip();
  in = load_npy(REF_DIR "input_12x12.npy", &n_in);
  conv = load_npy(REF_DIR "conv4_2_12x12.npy", &n_conv);
  prob = load_npy(REF_DIR "prob1_12x12.npy", &n_prob);
  out = malloc((n_conv + n_prob) * sizeof(float));
  in_bytes[0] = n_in * sizeof(float);
  out_bytes[0] = n_conv * sizeof(float);
  out_bytes[1] = n_prob * sizeof(float);
  p = create_from_files(12, 12, 0, NULL, NULL); /* outputs conv4_2, prob1 */
  OK(weft_predictor_predict_packed(p, 1, in, in_bytes, ind_ptr, dims, 2, out, out_bytes));
  assert_close(out, conv, n_conv, 1e-4f);
  assert_close(out + n_conv, prob, n_prob, 1e-4f);

  EXPECT_ERR(weft_predictor_predict_packed(NULL, 1, in, in_bytes, ind_ptr, dims, 2, out, out_bytes),
             WEFT_ERR_INVALID_ARGUMENT, "'pred'");
  arr = make_f32(dims, 4, NULL);
  EXPECT_ERR(weft_predictor_predict_packed((WeftPredictor*)arr, 1, in, in_bytes, ind_ptr, dims, 2,
                                           out, out_bytes),
             WEFT_ERR_INVALID_HANDLE, "WeftNDArray handle", "expected a WeftPredictor");
  OK(weft_ndarray_free(arr));
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, NULL, in_bytes, ind_ptr, dims, 2, out, out_bytes),
             WEFT_ERR_INVALID_ARGUMENT, "'input_data' is NULL");
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, in, NULL, ind_ptr, dims, 2, out, out_bytes),
             WEFT_ERR_INVALID_ARGUMENT, "'input_bytes' is NULL");
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, in, in_bytes, ind_ptr, dims, 2, NULL, out_bytes),
             WEFT_ERR_INVALID_ARGUMENT, "'output_data' is NULL");
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, in, in_bytes, ind_ptr, dims, 2, out, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "'output_bytes' is NULL");
  huge[0] = SIZE_MAX;
  huge[1] = 8;
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, in, in_bytes, ind_ptr, dims, 2, out, huge),
             WEFT_ERR_INVALID_ARGUMENT, "'output_bytes' sums past SIZE_MAX", "element 1");
  in_bytes[0] = 40;
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, in, in_bytes, ind_ptr, dims, 2, out, out_bytes),
             WEFT_ERR_INVALID_ARGUMENT, "input 'data'", "1728 bytes, given 40");
  in_bytes[0] = 0;
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, NULL, in_bytes, ind_ptr, dims, 2, out, out_bytes),
             WEFT_ERR_INVALID_ARGUMENT, "input 'data'",
             "given 0"); /* NULL with 0 bytes reaches the size check */
  in_bytes[0] = n_in * sizeof(float);
  memset(out, 0, (n_conv + n_prob) * sizeof(float));
  OK(weft_predictor_predict_packed(p, 1, in, in_bytes, ind_ptr, dims, 2, out, out_bytes));
  assert_close(out + n_conv, prob, n_prob, 1e-4f); /* still usable */
  OK(weft_predictor_free(p));
  EXPECT_ERR(weft_predictor_predict_packed(p, 1, in, in_bytes, ind_ptr, dims, 2, out, out_bytes),
             WEFT_ERR_INVALID_HANDLE, "WeftPredictor");
  free(in);
  free(conv);
  free(prob);
  free(out);
  assert_no_leaks();
}

/* Monitor calls on the predicting thread: how many, and whether prob1's
 * output (the model's last node) was among them. */
struct MonitorSeen {
  int calls, prob1;
  pthread_t thread;
  int other_thread;
};

static const char* count_monitored(const char* name, WeftNDArray* array, void* user) {
  struct MonitorSeen* s = (struct MonitorSeen*)user;
  double stat = -1;
  s->calls++;
  s->prob1 += strcmp(name, "prob1_output") == 0;
  s->other_thread += !pthread_equal(s->thread, pthread_self());
  assert_int_equal(weft_ndarray_monitor_stat(array, &stat), WEFT_OK);
  assert_true(stat >= 0);
  return NULL;
}

static void test_monitor(void** state) {
  WeftPredictor* p = NULL;
  struct MonitorSeen seen = {0, 0, pthread_self(), 0};
  (void)state;
  if (!have_model()) skip();
  p = create_from_files(12, 12, 0, NULL, NULL);
  OK(weft_predictor_set_monitor_callback(p, count_monitored, &seen, 0));
  check_det1(p, "12x12", 12, 12); /* values unchanged under the monitor */
  assert_true(seen.calls >= 5);
  assert_int_equal(seen.prob1, 1);
  assert_int_equal(seen.other_thread, 0);
  OK(weft_predictor_set_monitor_callback(p, NULL, NULL, 0));
  seen.calls = 0;
  check_det1(p, "12x12", 12, 12);
  assert_int_equal(seen.calls, 0);
  EXPECT_ERR(weft_predictor_set_monitor_callback(NULL, count_monitored, NULL, 0),
             WEFT_ERR_INVALID_ARGUMENT, "pred");
  OK(weft_predictor_free(p));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_det1_files_and_memory),
      TEST(test_threads_equal_one_thread),
      TEST(test_dynamic_batching),
      TEST(test_errors),
      TEST(test_caller_copies),
      TEST(test_packed),
      TEST(test_monitor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
