/*
 * C ABI test (C99, CMocka, against libweft.so): autograd: the thread's flags, marking variables,
 * recording weft_op_invoke and weft_op_invoke_into, backward into the buffers (write and add),
 * grad as new arrays, detach, the recorded graph as a symbol, and errors naming the argument.
 * Every test ends with no leaked handle or byte (assert_no_leaks).
 */
#include "c_test_util.h"

static WeftNDArray* invoke1(const char* op, WeftNDArray** in, size_t n) {
  WeftNDArray* out[1] = {NULL};
  size_t got = 0;
  OK(weft_op_invoke(op, in, n, NULL, NULL, 0, out, 1, &got));
  assert_int_equal(got, 1);
  return out[0];
}

static WeftNDArray* zeros3(void) {
  const int64_t shape[1] = {3};
  const float z[3] = {0, 0, 0};
  return make_f32(shape, 1, z);
}

static void test_autograd_backward_write_add(void** state) {
  const int64_t shape[1] = {3};
  const float xv[3] = {1, 2, 3};
  const float twice[3] = {2, 4, 6}, four[3] = {4, 8, 12};
  float got[3];
  int prev = -1, on = -1;
  WeftNDArray* x = make_f32(shape, 1, xv);
  WeftNDArray* gx = zeros3();
  WeftNDArray* y = NULL;
  WeftNDArray* g = NULL;
  const int add = WEFT_REQ_ADD;
  int round;
  WeftNDArray* xx[2];
  (void)state;
  OK(weft_autograd_mark_variables(&x, 1, &add, &gx));
  for (round = 0; round < 2; ++round) {
    OK(weft_autograd_set_is_recording(1, &prev));
    assert_int_equal(prev, 0);
    OK(weft_autograd_is_recording(&on));
    assert_int_equal(on, 1);
    xx[0] = x;
    xx[1] = x;
    y = invoke1("elemwise_mul", xx, 2); /* x^2 */
    OK(weft_autograd_set_is_recording(0, &prev));
    assert_int_equal(prev, 1);
    OK(weft_autograd_backward(&y, 1, NULL, 0, 1));
    OK(weft_ndarray_free(y));
  }
  read_f32(gx, got, 3);
  assert_floats(got, four, 3); /* added twice */
  OK(weft_ndarray_get_grad(x, &g));
  assert_non_null(g);
  read_f32(g, got, 3);
  assert_floats(got, four, 3);
  OK(weft_ndarray_free(g));
  OK(weft_ndarray_get_grad(gx, &g)); /* not marked */
  assert_null(g);

  /* Training flag and grad: new arrays, the buffer untouched. */
  OK(weft_autograd_set_is_training(1, &prev));
  OK(weft_autograd_is_training(&on));
  assert_int_equal(on, 1);
  OK(weft_autograd_set_is_training(0, NULL));
  OK(weft_autograd_set_is_recording(1, NULL));
  xx[0] = x;
  xx[1] = x;
  y = invoke1("elemwise_mul", xx, 2);
  OK(weft_autograd_set_is_recording(0, NULL));
  {
    WeftNDArray* grads[1] = {NULL};
    WeftNDArray* none[1] = {NULL};
    OK(weft_autograd_grad(&y, 1, none, &x, 1, 0, 1, grads));
    read_f32(grads[0], got, 3);
    assert_floats(got, twice, 3);
    OK(weft_ndarray_free(grads[0]));
  }
  read_f32(gx, got, 3);
  assert_floats(got, four, 3);
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(gx));
  OK(weft_ndarray_free(x));
  assert_no_leaks();
}

/* weft_op_invoke_into records into the caller's output handle; detach stops the gradient; the
 * recorded graph as a symbol lists the variable. */
static void test_autograd_into_detach_symbol(void** state) {
  const int64_t shape[1] = {3};
  const float xv[3] = {1, 2, 3};
  const float want[3] = {1, 4, 9}; /* d(detach(x*x) * x)/dx = x*x */
  const int write = WEFT_REQ_WRITE;
  float got[3];
  WeftNDArray* x = make_f32(shape, 1, xv);
  WeftNDArray* gx = zeros3();
  WeftNDArray* sq = zeros3();
  WeftNDArray* d = NULL;
  WeftNDArray* z = NULL;
  WeftNDArray* in[2];
  WeftSymbolHandle* sym = NULL;
  WeftStringList* args = NULL;
  size_t n = 0;
  (void)state;
  OK(weft_autograd_mark_variables(&x, 1, &write, &gx));
  OK(weft_autograd_set_is_recording(1, NULL));
  in[0] = x;
  in[1] = x;
  OK(weft_op_invoke_into("elemwise_mul", in, 2, NULL, NULL, 0, &sq, 1, NULL));
  OK(weft_ndarray_detach(sq, &d));
  in[0] = d;
  in[1] = x;
  z = invoke1("elemwise_mul", in, 2);
  OK(weft_autograd_set_is_recording(0, NULL));
  OK(weft_autograd_get_symbol(sq, &sym));
  OK(weft_symbol_list_arguments(sym, &args));
  OK(weft_string_list_size(args, &n));
  assert_int_equal(n, 1); /* x, the one variable */
  OK(weft_string_list_free(args));
  OK(weft_symbol_free(sym));
  OK(weft_autograd_backward(&z, 1, NULL, 0, 1));
  read_f32(gx, got, 3);
  assert_floats(got, want, 3);
  EXPECT_ERR(weft_autograd_backward(&d, 1, NULL, 0, 1), WEFT_ERR_INVALID_ARGUMENT,
             "head 0 was not recorded");
  OK(weft_ndarray_free(z));
  OK(weft_ndarray_free(d));
  OK(weft_ndarray_free(sq));
  OK(weft_ndarray_free(gx));
  OK(weft_ndarray_free(x));
  assert_no_leaks();
}

static void test_autograd_errors(void** state) {
  const int64_t shape[1] = {3}, two[1] = {2};
  const float xv[3] = {1, 2, 3}, zv[2] = {0, 0};
  const int write = WEFT_REQ_WRITE, bad = 2;
  WeftNDArray* x = make_f32(shape, 1, xv);
  WeftNDArray* small = make_f32(two, 1, zv);
  WeftNDArray* gx = zeros3();
  WeftNDArray* y = NULL;
  WeftNDArray* null_array = NULL;
  WeftNDArray* in[2];
  WeftSymbolHandle* sym = NULL;
  (void)state;
  EXPECT_ERR(weft_autograd_mark_variables(NULL, 1, &write, &gx), WEFT_ERR_INVALID_ARGUMENT,
             "'vars'");
  EXPECT_ERR(weft_autograd_mark_variables(&x, 1, &bad, &gx), WEFT_ERR_INVALID_ARGUMENT, "reqs[0]",
             "2");
  EXPECT_ERR(weft_autograd_mark_variables(&x, 1, &write, &small), WEFT_ERR_SHAPE,
             "gradient buffer of variable 0", "(2,)");
  EXPECT_ERR(weft_autograd_mark_variables(&x, 1, &write, &null_array), WEFT_ERR_SHAPE,
             "gradient buffer of variable 0", "empty");
  EXPECT_ERR(weft_autograd_is_recording(NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_autograd_backward(NULL, 1, NULL, 0, 1), WEFT_ERR_INVALID_ARGUMENT, "'heads'");
  EXPECT_ERR(weft_autograd_get_symbol(x, &sym), WEFT_ERR_INVALID_ARGUMENT, "not recorded");
  OK(weft_autograd_mark_variables(&x, 1, &write, &gx));
  OK(weft_autograd_set_is_recording(1, NULL));
  in[0] = x;
  in[1] = x;
  y = invoke1("elemwise_add", in, 2);
  OK(weft_autograd_set_is_recording(0, NULL));
  EXPECT_ERR(weft_autograd_backward(&y, 1, &small, 0, 1), WEFT_ERR_SHAPE, "head gradient 0");
  OK(weft_autograd_backward(&y, 1, NULL, 0, 1));
  EXPECT_ERR(weft_autograd_backward(&y, 1, NULL, 0, 1), WEFT_ERR_INVALID_ARGUMENT, "retain_graph");
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(gx));
  OK(weft_ndarray_free(small));
  OK(weft_ndarray_free(x));
  assert_no_leaks();
}

/* y = FullyConnected(x, fc_weight, fc_bias, num_hidden=2) as MXNet JSON. */
static const char* kFcJson =
    "{\"nodes\":[{\"op\":\"null\",\"name\":\"x\",\"inputs\":[]},"
    "{\"op\":\"null\",\"name\":\"fc_weight\",\"inputs\":[]},"
    "{\"op\":\"null\",\"name\":\"fc_bias\",\"inputs\":[]},"
    "{\"op\":\"FullyConnected\",\"name\":\"fc\",\"attrs\":{\"num_hidden\":\"2\"},"
    "\"inputs\":[[0,0,0],[1,0,0],[2,0,0]]}],"
    "\"arg_nodes\":[0,1,2],\"heads\":[[3,0,0]],\"attrs\":{\"mxnet_version\":[\"int\",10901]}}";

/* A cached op: forward values by hand, static_alloc outputs, recorded gradients into the
 * weight's buffer, errors. */

/* A monitor callback keeping a copy of the first array it is given. */
static const char* keep_first(const char* name, WeftNDArray* array, void* user) {
  WeftNDArray** kept = (WeftNDArray**)user;
  size_t n = 0;
  (void)name;
  if (!*kept)
    assert_int_equal(weft_op_invoke("identity", &array, 1, NULL, NULL, 0, kept, 1, &n), WEFT_OK);
  return NULL;
}

static void test_cached_op(void** state) {
  const int64_t xs[2] = {1, 3}, ws[2] = {2, 3}, bs[1] = {2};
  const float xv[3] = {1, 2, 3}, wv[6] = {1, 0, 0, 0, 1, 1}, bv[2] = {10, 20};
  const float want[2] = {11, 25};              /* W x + b */
  const float want_gw[6] = {1, 2, 3, 1, 2, 3}; /* d sum(y) / dW = x per row */
  const char* keys[] = {"static_alloc"};
  const char* vals[] = {"true"};
  const char* bad_keys[] = {"static_aloc"};
  const int write = WEFT_REQ_WRITE;
  float got[6];
  size_t n = 0;
  WeftSymbolHandle* sym = NULL;
  WeftCachedOp* op = NULL;
  WeftCachedOp* bad = NULL;
  WeftStringList* names = NULL;
  WeftNDArray* in[3];
  WeftNDArray* out[1] = {NULL};
  WeftNDArray* gw = NULL;
  WeftNDArray* monitored = NULL;
  (void)state;
  in[0] = make_f32(xs, 2, xv);
  in[1] = make_f32(ws, 2, wv);
  in[2] = make_f32(bs, 1, bv);
  OK(weft_symbol_from_json(kFcJson, &sym));
  EXPECT_ERR(weft_cached_op_create(sym, 1, bad_keys, vals, &bad), WEFT_ERR_INVALID_ARGUMENT,
             "static_aloc");
  OK(weft_cached_op_create(sym, 1, keys, vals, &op));
  OK(weft_cached_op_list_inputs(op, &names));
  OK(weft_string_list_size(names, &n));
  assert_int_equal(n, 3);
  OK(weft_string_list_free(names));
  OK(weft_cached_op_invoke(op, in, 3, out, 1, &n));
  assert_int_equal(n, 1);
  read_f32(out[0], got, 2);
  assert_floats(got, want, 2);
  OK(weft_ndarray_free(out[0]));
  EXPECT_ERR(weft_cached_op_invoke(op, in, 2, out, 1, &n), WEFT_ERR_INVALID_ARGUMENT,
             "expected 3 input(s)");
  /* A monitor sees the node's output, equal to the result. */
  OK(weft_cached_op_set_monitor_callback(op, keep_first, &monitored, 0));
  OK(weft_cached_op_invoke(op, in, 3, out, 1, &n));
  assert_non_null(monitored);
  read_f32(monitored, got, 2);
  assert_floats(got, want, 2);
  OK(weft_ndarray_free(monitored));
  OK(weft_ndarray_free(out[0]));
  OK(weft_cached_op_set_monitor_callback(op, NULL, NULL, 0));
  EXPECT_ERR(weft_cached_op_set_monitor_callback(NULL, keep_first, NULL, 0),
             WEFT_ERR_INVALID_ARGUMENT, "op");

  /* Recorded: backward reaches the weight's buffer. */
  gw = make_f32(ws, 2, wv);
  OK(weft_autograd_mark_variables(&in[1], 1, &write, &gw));
  OK(weft_autograd_set_is_recording(1, NULL));
  OK(weft_cached_op_invoke(op, in, 3, out, 1, &n));
  OK(weft_autograd_set_is_recording(0, NULL));
  OK(weft_autograd_backward(out, 1, NULL, 0, 1));
  read_f32(gw, got, 6);
  assert_floats(got, want_gw, 6);
  OK(weft_ndarray_free(out[0]));
  OK(weft_ndarray_free(gw));
  OK(weft_cached_op_free(op));
  EXPECT_ERR(weft_cached_op_free(op), WEFT_ERR_INVALID_HANDLE, "op");
  OK(weft_symbol_free(sym));
  OK(weft_ndarray_free(in[0]));
  OK(weft_ndarray_free(in[1]));
  OK(weft_ndarray_free(in[2]));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_autograd_backward_write_add),
      TEST(test_autograd_into_detach_symbol),
      TEST(test_autograd_errors),
      TEST(test_cached_op),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
