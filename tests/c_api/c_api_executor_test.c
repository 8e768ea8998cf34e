/*
 * C ABI tests of weft_executor_*: simple_bind / bind, forward and backward
 * values against closed forms, array lists, reshape, memory figures and
 * print. Error paths are in c_api_executor_errors_test.c. Each test ends
 * with no leaked handles or bytes.
 */
#include <math.h>

#include "c_api_executor_util.h"

/* Forward: y = a*b + b*c; backward with head g: da = g*b, db = g*(a+c), dc = g*b. */
static void test_simple_bind_elemwise(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutor* ex = bind_abc(sym, k23, "write");
  WeftNDArray* g = make_f32(k23, 2, kG);
  WeftNDArrayList* l = NULL;
  const char* arg_names[3] = {"a", "b", "c"};
  const char* out_names[1] = {"sum_output"};
  float y[6], want[6], got[6];
  size_t i, n = 9;
  (void)state;

  OK(weft_executor_arg_arrays(ex, &l));
  expect_list_names(l, arg_names, 3);
  OK(weft_ndarray_list_free(l));
  OK(weft_executor_outputs(ex, &l));
  expect_list_names(l, out_names, 1);
  OK(weft_ndarray_list_free(l));
  OK(weft_executor_aux_arrays(ex, &l));
  OK(weft_ndarray_list_size(l, &n, NULL));
  assert_int_equal(n, 0);
  OK(weft_ndarray_list_free(l));

  set_abc(ex);
  OK(weft_executor_forward(ex, 1));
  read_result(ex, 0, 0, y, 6);
  for (i = 0; i < 6; ++i) want[i] = kA[i] * kB[i] + kB[i] * kC[i];
  assert_floats(y, want, 6);

  OK(weft_executor_backward(ex, &g, 1));
  read_result(ex, 1, 0, got, 6);
  for (i = 0; i < 6; ++i) want[i] = kG[i] * kB[i];
  assert_floats(got, want, 6);
  read_result(ex, 1, 1, got, 6);
  for (i = 0; i < 6; ++i) want[i] = kG[i] * (kA[i] + kC[i]);
  assert_floats(got, want, 6);
  read_result(ex, 1, 2, got, 6);
  for (i = 0; i < 6; ++i) want[i] = kG[i] * kB[i];
  assert_floats(got, want, 6);

  /* Arguments are shared: a new value of a is seen by the next forward. */
  set_arg(ex, 0, kC, 6);
  OK(weft_executor_forward(ex, 0));
  read_result(ex, 0, 0, y, 6);
  for (i = 0; i < 6; ++i) want[i] = kC[i] * kB[i] + kB[i] * kC[i];
  assert_floats(y, want, 6);

  OK(weft_ndarray_free(g));
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* FullyConnected(num_hidden=2) + SoftmaxOutput: p = softmax(x W^T + b);
 * implicit head gradient: dW = (P - Y)^T X, db = sum_rows (P - Y). */
static void test_simple_bind_fc_softmax(void** state) {
  const char* keys[1] = {"num_hidden"};
  const char* vals[1] = {"2"};
  WeftSymbolHandle* data = var("data");
  WeftSymbolHandle *fc = NULL, *sm = NULL;
  WeftExecutor* ex = NULL;
  WeftNDArrayList* l = NULL;
  WeftNDArray* none;
  WeftExecutorMemory mem;
  WeftStringList* text = NULL;
  const char* s = NULL;
  const char* names[2] = {"data", "softmax_label"};
  const size_t ind_ptr[3] = {0, 2, 3};
  const int64_t dims[3] = {2, 3, 2};
  const char* arg_names[4] = {"data", "fc1_weight", "fc1_bias", "softmax_label"};
  const float x[6] = {1, 0, -1, 0.5f, 2, 1};
  const float w[6] = {0.1f, 0.2f, -0.3f, -0.5f, 0.4f, 0.25f};
  const float b[2] = {0.05f, -0.1f};
  const float y[2] = {1, 0};
  float p[4], want_p[4], dw[6], want_dw[6], db[2], want_db[2];
  int i, j, k;
  (void)state;

  OK(weft_symbol_create_atomic("FullyConnected", keys, vals, 1, &fc));
  OK(weft_symbol_compose(fc, "fc1", 1, NULL, &data));
  OK(weft_symbol_create_atomic("SoftmaxOutput", NULL, NULL, 0, &sm));
  OK(weft_symbol_compose(sm, "softmax", 1, NULL, &fc));
  OK(weft_executor_simple_bind(sm, WEFT_CPU, 0, 2, names, ind_ptr, dims, 0, NULL, NULL, "write",
                               &ex));

  OK(weft_executor_arg_arrays(ex, &l));
  expect_list_names(l, arg_names, 4);
  OK(weft_ndarray_list_free(l));
  set_arg(ex, 0, x, 6);
  set_arg(ex, 1, w, 6);
  set_arg(ex, 2, b, 2);
  set_arg(ex, 3, y, 2);
  OK(weft_executor_forward(ex, 1));
  OK(weft_executor_backward(ex, NULL, 0));

  for (i = 0; i < 2; ++i) {
    double z[2], m, sum = 0;
    for (j = 0; j < 2; ++j) {
      z[j] = b[j];
      for (k = 0; k < 3; ++k) z[j] += (double)x[i * 3 + k] * w[j * 3 + k];
    }
    m = z[0] > z[1] ? z[0] : z[1];
    for (j = 0; j < 2; ++j) sum += exp(z[j] - m);
    for (j = 0; j < 2; ++j) want_p[i * 2 + j] = (float)(exp(z[j] - m) / sum);
  }
  read_result(ex, 0, 0, p, 4);
  assert_floats(p, want_p, 4);

  for (j = 0; j < 2; ++j) {
    want_db[j] = 0;
    for (k = 0; k < 3; ++k) want_dw[j * 3 + k] = 0;
    for (i = 0; i < 2; ++i) {
      const float d = want_p[i * 2 + j] - ((int)y[i] == j ? 1.0f : 0.0f);
      want_db[j] += d;
      for (k = 0; k < 3; ++k) want_dw[j * 3 + k] += d * x[i * 3 + k];
    }
  }
  read_result(ex, 1, 1, dw, 6);
  assert_floats(dw, want_dw, 6);
  read_result(ex, 1, 2, db, 2);
  assert_floats(db, want_db, 2);
  /* data and label get no gradient (names end in data / label). */
  OK(weft_executor_grad_arrays(ex, &l));
  expect_list_names(l, arg_names, 4);
  none = list_get(l, 0);
  assert_null(none);
  none = list_get(l, 3);
  assert_null(none);
  OK(weft_ndarray_list_free(l));

  OK(weft_executor_memory(ex, &mem));
  assert_true(mem.planned_bytes > 0);
  assert_true(mem.naive_bytes > 0);
  assert_true(mem.planned_bytes <= mem.naive_bytes);
  assert_true(mem.num_storage > 0);
  printf("fc+softmax memory: naive %zu planned %zu storage %zu inplace %zu reused %zu\n",
         mem.naive_bytes, mem.planned_bytes, mem.num_storage, mem.num_inplace, mem.num_reused);

  OK(weft_executor_print(ex, &text));
  OK(weft_string_list_get(text, 0, &s));
  assert_non_null(strstr(s, "Name=fc1"));
  assert_non_null(strstr(s, "Name=softmax"));
  assert_non_null(strstr(s, "Op:FullyConnected"));
  assert_non_null(strstr(s, "Memory: planned"));
  OK(weft_string_list_free(text));

  OK(weft_executor_free(ex));
  OK(weft_symbol_free(sm));
  OK(weft_symbol_free(fc));
  OK(weft_symbol_free(data));
  assert_no_leaks();
}

/* bind to caller arrays: shared arrays, a NULL gradient entry, grad_req add. */
static void test_bind_add(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftNDArray* args[3];
  WeftNDArray* grads[3];
  WeftNDArray* g = make_f32(k23, 2, kG);
  const int reqs[3] = {WEFT_REQ_ADD, WEFT_REQ_NULL, WEFT_REQ_WRITE};
  const float zeros[6] = {0, 0, 0, 0, 0, 0};
  WeftExecutor* ex = NULL;
  WeftNDArrayList* l = NULL;
  float got[6], want[6];
  size_t i;
  (void)state;

  args[0] = make_f32(k23, 2, kA);
  args[1] = make_f32(k23, 2, kB);
  args[2] = make_f32(k23, 2, kC);
  grads[0] = make_f32(k23, 2, zeros);
  grads[1] = NULL;
  grads[2] = make_f32(k23, 2, zeros);
  OK(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, grads, reqs, NULL, 0, &ex));
  for (i = 0; i < 2; ++i) {
    OK(weft_executor_forward(ex, 1));
    OK(weft_executor_backward(ex, &g, 1));
  }
  /* da accumulated twice into the caller's array; dc written. */
  read_f32(grads[0], got, 6);
  for (i = 0; i < 6; ++i) want[i] = 2 * kG[i] * kB[i];
  assert_floats(got, want, 6);
  read_f32(grads[2], got, 6);
  for (i = 0; i < 6; ++i) want[i] = kG[i] * kB[i];
  assert_floats(got, want, 6);
  OK(weft_executor_grad_arrays(ex, &l));
  assert_null(list_get(l, 1));
  OK(weft_ndarray_list_free(l));

  /* No gradients at all: bind without arg_grads; backward is refused. */
  OK(weft_executor_free(ex));
  ex = NULL;
  OK(weft_executor_bind(sym, WEFT_CPU, 0, args, 3, NULL, NULL, NULL, 0, &ex));
  OK(weft_executor_forward(ex, 0));
  read_result(ex, 0, 0, got, 6);
  for (i = 0; i < 6; ++i) want[i] = kA[i] * kB[i] + kB[i] * kC[i];
  assert_floats(got, want, 6);
  EXPECT_ERR(weft_executor_backward(ex, &g, 1), WEFT_ERR_INVALID_ARGUMENT, "weft_executor_backward",
             "no gradients");

  OK(weft_executor_free(ex));
  for (i = 0; i < 3; ++i) {
    OK(weft_ndarray_free(args[i]));
    OK(weft_ndarray_free(grads[i]));
  }
  OK(weft_ndarray_free(g));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

static void test_reshape(void** state) {
  WeftSymbolHandle* sym = make_abc();
  WeftExecutor* ex = bind_abc(sym, k23, "write");
  WeftExecutor *small = NULL, *big = NULL;
  const char* names[3] = {"a", "b", "c"};
  const size_t ind_ptr[4] = {0, 2, 4, 6};
  const int64_t dims_small[6] = {1, 3, 1, 3, 1, 3};
  const int64_t dims_big[6] = {4, 3, 4, 3, 4, 3};
  WeftNDArrayList* l = NULL;
  WeftNDArray* out;
  int64_t shape[2];
  float y[3], want[3];
  size_t i;
  (void)state;

  set_abc(ex);
  OK(weft_executor_reshape(ex, 3, names, ind_ptr, dims_small, 0, 0, &small));
  /* The smaller arrays view the old memory: the first row of a, b, c. */
  OK(weft_executor_forward(small, 0));
  OK(weft_executor_outputs(small, &l));
  out = list_get(l, 0);
  OK(weft_ndarray_shape(out, shape, 2));
  assert_int_equal(shape[0], 1);
  assert_int_equal(shape[1], 3);
  read_f32(out, y, 3);
  for (i = 0; i < 3; ++i) want[i] = kA[i] * kB[i] + kB[i] * kC[i];
  assert_floats(y, want, 3);
  OK(weft_ndarray_free(out));
  OK(weft_ndarray_list_free(l));

  EXPECT_ERR(weft_executor_reshape(ex, 3, names, ind_ptr, dims_big, 0, 0, &big), WEFT_ERR_SHAPE,
             "weft_executor_reshape", "grows");
  assert_null(big);
  OK(weft_executor_reshape(ex, 3, names, ind_ptr, dims_big, 0, 1, &big));
  OK(weft_executor_outputs(big, &l));
  out = list_get(l, 0);
  OK(weft_ndarray_shape(out, shape, 2));
  assert_int_equal(shape[0], 4);
  OK(weft_ndarray_free(out));
  OK(weft_ndarray_list_free(l));
  /* Errors: unknown/zero extent, NULL names. */
  {
    const int64_t bad[6] = {1, 0, 1, 3, 1, 3};
    EXPECT_ERR(weft_executor_reshape(ex, 3, names, ind_ptr, bad, 0, 0, &big), WEFT_ERR_SHAPE,
               "input 'a'", "extent 1 is 0");
    EXPECT_ERR(weft_executor_reshape(ex, 3, NULL, ind_ptr, dims_small, 0, 0, &big),
               WEFT_ERR_INVALID_ARGUMENT, "shape_names");
    EXPECT_ERR(weft_executor_reshape(ex, 3, names, ind_ptr, dims_small, 0, 0, NULL),
               WEFT_ERR_INVALID_ARGUMENT, "'out' is NULL");
  }

  OK(weft_executor_free(big));
  OK(weft_executor_free(small));
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

/* Auxiliary states are listed by name and shared: BatchNorm's moving
 * statistics change after a training forward and not after inference. */
static void test_aux_arrays(void** state) {
  WeftSymbolHandle* data = var("data");
  WeftSymbolHandle* bn = NULL;
  WeftExecutor* ex = NULL;
  WeftNDArrayList* l = NULL;
  WeftNDArray* mean;
  const char* names[1] = {"data"};
  const size_t ind_ptr[2] = {0, 2};
  const char* aux_names[2] = {"bn_moving_mean", "bn_moving_var"};
  const float x[6] = {1, 2, 3, 5, 6, 7};
  float m[3], zeros[3] = {0, 0, 0};
  (void)state;

  OK(weft_symbol_create_atomic("BatchNorm", NULL, NULL, 0, &bn));
  OK(weft_symbol_compose(bn, "bn", 1, NULL, &data));
  OK(weft_executor_simple_bind(bn, WEFT_CPU, 0, 1, names, ind_ptr, k23, 0, NULL, NULL, "null",
                               &ex));
  set_arg(ex, 0, x, 6);
  OK(weft_executor_aux_arrays(ex, &l));
  expect_list_names(l, aux_names, 2);
  mean = list_get(l, 0);
  OK(weft_ndarray_list_free(l));
  read_f32(mean, m, 3);
  assert_floats(m, zeros, 3);
  OK(weft_executor_forward(ex, 0));
  read_f32(mean, m, 3);
  assert_floats(m, zeros, 3);
  OK(weft_executor_forward(ex, 1));
  read_f32(mean, m, 3);
  /* Batch means 3, 4, 5; default momentum 0.9: 0.9 * 0 + 0.1 * mean. */
  {
    const float want[3] = {0.3f, 0.4f, 0.5f};
    assert_floats(m, want, 3);
  }

  OK(weft_ndarray_free(mean));
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(bn));
  OK(weft_symbol_free(data));
  assert_no_leaks();
}

/* What the monitor callback saw: names in order and the sum's statistic. */
struct Seen {
  char names[16][64];
  int count;
  double sum_stat;
};

static const char* record(const char* name, WeftNDArray* array, void* user) {
  struct Seen* s = (struct Seen*)user;
  if (s->count < 16) snprintf(s->names[s->count++], 64, "%s", name);
  if (strcmp(name, "sum_output") == 0) weft_ndarray_monitor_stat(array, &s->sum_stat);
  return NULL;
}

static const char* refuse(const char* name, WeftNDArray* array, void* user) {
  (void)name;
  (void)array;
  (void)user;
  return "refused";
}

/* The monitor sees each node's output once per forward (inputs too with
 * monitor_all), on the calling thread, with the statistic norm/sqrt(size). */
static void test_monitor_callback(void** state) {
  WeftSymbolHandle* sym = make_abc();
  /* With gradients: no inference pass fuses the nodes (an optimised
   * executor reports the nodes it runs). */
  WeftExecutor* ex = bind_abc(sym, k23, "write");
  struct Seen seen;
  double want = 0;
  int i;
  (void)state;
  memset(&seen, 0, sizeof seen);
  set_abc(ex);
  OK(weft_executor_set_monitor_callback(ex, record, &seen, 0));
  OK(weft_executor_forward(ex, 0));
  OK(weft_wait_all());
  assert_int_equal(seen.count, 3);
  assert_string_equal(seen.names[2], "sum_output");
  for (i = 0; i < 6; ++i) {
    const double y = (double)kA[i] * kB[i] + (double)kB[i] * kC[i];
    want += y * y;
  }
  assert_true(fabs(seen.sum_stat - sqrt(want / 6)) < 1e-4 * (1 + sqrt(want / 6)));
  memset(&seen, 0, sizeof seen);
  OK(weft_executor_set_monitor_callback(ex, record, &seen, 1));
  OK(weft_executor_forward(ex, 0));
  OK(weft_wait_all());
  assert_int_equal(seen.count, 9); /* 3 nodes: 2 inputs and 1 output each */
  /* A callback's error fails the forward, naming the entry; the executor stays usable. */
  OK(weft_executor_set_monitor_callback(ex, refuse, NULL, 0));
  EXPECT_ERR(weft_executor_forward(ex, 0), WEFT_ERR_INVALID_ARGUMENT,
             "monitor callback for 'ab_output' returned an error: refused");
  OK(weft_wait_all());
  memset(&seen, 0, sizeof seen);
  OK(weft_executor_set_monitor_callback(ex, NULL, NULL, 0));
  OK(weft_executor_forward(ex, 0));
  OK(weft_wait_all());
  assert_int_equal(seen.count, 0);
  EXPECT_ERR(weft_executor_set_monitor_callback(NULL, record, NULL, 0), WEFT_ERR_INVALID_ARGUMENT,
             "exec");
  EXPECT_ERR(weft_ndarray_monitor_stat(NULL, &want), WEFT_ERR_INVALID_ARGUMENT, "array");
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_simple_bind_elemwise),
      TEST(test_simple_bind_fc_softmax),
      TEST(test_bind_add),
      TEST(test_reshape),
      TEST(test_aux_arrays),
      TEST(test_monitor_callback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
