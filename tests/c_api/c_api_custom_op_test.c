/*
 * C ABI tests of weft_custom_op_*: a softplus with a beta parameter written
 * as C callbacks (forward and backward against the closed form and against
 * numeric gradients, through an executor and through autograd), trained
 * inside an MLP with a module; a zoo-style symbol file whose loss is a
 * Custom node (as MXNet writes it) trained with the type registered and
 * refused naming the type when it is not; four executor threads at once; a
 * callback that fails; unregistering refused while a symbol uses the type.
 */
#include <pthread.h>
#include <stdlib.h>

#include "c_test_util.h"

/* ------------------------------------------------------ softplus(beta) */

static int g_deleted_types; /* user data released by the library */
static int g_live_props;    /* props created and not yet deleted */
static int g_live_ops;      /* operators created and not yet deleted */
static int g_forward_calls, g_backward_calls;

typedef struct {
  float beta;
  int fail_forward;
} SpState;

static const char* const kSpArgs[] = {"data", NULL};
static const char* const kSpOuts[] = {"output", NULL};

static const char* sp_list_args(void* s, const char* const** out) {
  (void)s;
  *out = kSpArgs;
  return NULL;
}

static const char* sp_list_outs(void* s, const char* const** out) {
  (void)s;
  *out = kSpOuts;
  return NULL;
}

/* Entries: data, output. */
static const char* sp_infer_shape(void* s, int num, int* ndims, int64_t* const* shapes,
                                  int max_ndim) {
  int d;
  (void)s;
  (void)max_ndim;
  if (num != 2) return "softplus: expected 2 shape entries";
  ndims[1] = ndims[0];
  for (d = 0; d < ndims[0]; ++d) shapes[1][d] = shapes[0][d];
  return NULL;
}

/* Backward reads out_grad and in_data only. */
static const char* sp_deps(void* s, const int* og, const int* id, const int* od, int* deps,
                           int* n) {
  (void)s;
  (void)od;
  deps[0] = og[0];
  deps[1] = id[0];
  *n = 2;
  return NULL;
}

static float* data_of(WeftNDArray* a, int64_t* n) {
  void* p = NULL;
  if (weft_ndarray_size(a, n) != WEFT_OK || weft_ndarray_get_data(a, &p) != WEFT_OK) return NULL;
  return (float*)p;
}

static void store(int req, float* dst, float v) {
  if (req == WEFT_REQ_ADD)
    *dst += v;
  else if (req != WEFT_REQ_NULL)
    *dst = v;
}

static float softplus(float beta, float x) {
  float z = beta * x;
  return (z > 0 ? z + log1pf(expf(-z)) : log1pf(expf(z))) / beta;
}

static float sigmoid(float z) { return 1.f / (1.f + expf(-z)); }

static const char* sp_forward(void* s, int is_train, const int* req, WeftNDArray* const* in,
                              int num_in, WeftNDArray* const* out, int num_out,
                              WeftNDArray* const* aux, int num_aux) {
  const SpState* st = (const SpState*)s;
  int64_t n = 0, m = 0, i;
  float *x, *y;
  (void)is_train;
  (void)aux;
  __atomic_fetch_add(&g_forward_calls, 1, __ATOMIC_RELAXED);
  if (st->fail_forward) return "boom: this forward always fails";
  if (num_in != 1 || num_out != 1 || num_aux != 0) return "softplus: wrong array counts";
  x = data_of(in[0], &n);
  y = data_of(out[0], &m);
  if (!x || !y || n != m) return "softplus: cannot read the arrays";
  for (i = 0; i < n; ++i) store(req[0], &y[i], softplus(st->beta, x[i]));
  return NULL;
}

static const char* sp_backward(void* s, const int* req, WeftNDArray* const* out_grad,
                               WeftNDArray* const* in_data, WeftNDArray* const* out_data,
                               WeftNDArray* const* in_grad, WeftNDArray* const* aux, int num_in,
                               int num_out, int num_aux) {
  const SpState* st = (const SpState*)s;
  int64_t n = 0, m = 0, k = 0, i;
  float *dy, *x, *dx;
  (void)aux;
  __atomic_fetch_add(&g_backward_calls, 1, __ATOMIC_RELAXED);
  if (num_in != 1 || num_out != 1 || num_aux != 0) return "softplus: wrong array counts";
  if (out_data[0] != NULL) return "softplus: out_data was not declared, expected NULL";
  dy = data_of(out_grad[0], &n);
  x = data_of(in_data[0], &m);
  dx = data_of(in_grad[0], &k);
  if (!dy || !x || !dx || n != m || n != k) return "softplus: cannot read the arrays";
  for (i = 0; i < n; ++i) store(req[0], &dx[i], dy[i] * sigmoid(st->beta * x[i]));
  return NULL;
}

static void sp_op_del(void* s) {
  free(s);
  __atomic_fetch_sub(&g_live_ops, 1, __ATOMIC_RELAXED);
}

static const char* sp_create_operator(void* s, const char* ctx, int num, const int* ndims,
                                      const int64_t* const* shapes, const int* dtypes,
                                      WeftCustomOp* out) {
  SpState* op = (SpState*)malloc(sizeof(SpState));
  (void)ndims;
  (void)shapes;
  if (strcmp(ctx, "cpu(0)") != 0 || num != 1 || dtypes[0] != WEFT_FLOAT32) {
    free(op);
    return "softplus: expected one float32 input on cpu(0)";
  }
  *op = *(const SpState*)s;
  __atomic_fetch_add(&g_live_ops, 1, __ATOMIC_RELAXED);
  out->state = op;
  out->del = sp_op_del;
  out->forward = sp_forward;
  out->backward = sp_backward;
  return NULL;
}

static void sp_prop_del(void* s) {
  free(s);
  __atomic_fetch_sub(&g_live_props, 1, __ATOMIC_RELAXED);
}

/* user_data: non-NULL makes forward fail. */
static const char* sp_creator(void* user_data, const char* op_type, const char* const* keys,
                              const char* const* values, int num_attrs, WeftCustomOpProp* out) {
  SpState st;
  SpState* p;
  int i;
  (void)op_type;
  st.beta = 1.f;
  st.fail_forward = user_data != NULL;
  for (i = 0; i < num_attrs; ++i) {
    if (strcmp(keys[i], "beta") == 0)
      st.beta = strtof(values[i], NULL);
    else
      return "softplus: unknown attribute (only beta is known)";
  }
  if (!(st.beta > 0)) return "softplus: beta must be positive";
  p = (SpState*)malloc(sizeof(SpState));
  *p = st;
  __atomic_fetch_add(&g_live_props, 1, __ATOMIC_RELAXED);
  out->state = p;
  out->del = sp_prop_del;
  out->list_arguments = sp_list_args;
  out->list_outputs = sp_list_outs;
  out->infer_shape = sp_infer_shape;
  out->declare_backward_dependency = sp_deps;
  out->create_operator = sp_create_operator;
  return NULL;
}

static void count_deleted(void* user_data) {
  (void)user_data;
  ++g_deleted_types;
}

static const char kSpJson[] =
    "{\"nodes\": ["
    "{\"op\": \"null\", \"name\": \"x\", \"inputs\": []},"
    "{\"op\": \"Custom\", \"name\": \"sp\", \"attrs\": {\"beta\": \"2.0\", \"op_type\": "
    "\"softplus_beta\"}, \"inputs\": [[0, 0, 0]]}],"
    "\"arg_nodes\": [0], \"node_row_ptr\": [0, 1, 2], \"heads\": [[1, 0, 0]],"
    "\"attrs\": {\"mxnet_version\": [\"int\", 10901]}}";

#define NX 6
static const float kX[NX] = {-3.f, -1.f, -0.25f, 0.f, 0.5f, 2.f};

typedef struct {
  WeftSymbolHandle* sym;
  WeftExecutor* exec;
  WeftNDArray* x;
  WeftNDArray* out;
  WeftNDArray* grad;
} SpExec;

static WeftNDArray* list_item(WeftNDArrayList* list, size_t i) {
  WeftNDArray* a = NULL;
  OK(weft_ndarray_list_get(list, i, &a));
  OK(weft_ndarray_list_free(list));
  return a;
}

static void sp_exec_make(SpExec* e) {
  const char* names[1] = {"x"};
  const size_t ind[2] = {0, 1};
  const int64_t dims[1] = {NX};
  WeftNDArrayList* l = NULL;
  OK(weft_symbol_from_json(kSpJson, &e->sym));
  OK(weft_executor_simple_bind(e->sym, WEFT_CPU, 0, 1, names, ind, dims, 0, NULL, NULL, "write",
                               &e->exec));
  OK(weft_executor_arg_arrays(e->exec, &l));
  e->x = list_item(l, 0);
  OK(weft_executor_outputs(e->exec, &l));
  e->out = list_item(l, 0);
  OK(weft_executor_grad_arrays(e->exec, &l));
  e->grad = list_item(l, 0);
}

static void sp_exec_free(SpExec* e) {
  OK(weft_ndarray_free(e->x));
  OK(weft_ndarray_free(e->out));
  OK(weft_ndarray_free(e->grad));
  OK(weft_executor_free(e->exec));
  OK(weft_symbol_free(e->sym));
}

/* sum(softplus_2(x)) through the executor. */
static double sp_sum(SpExec* e, const float* x) {
  float y[NX];
  double s = 0;
  int i;
  OK(weft_ndarray_copy_from(e->x, x, sizeof(y)));
  OK(weft_executor_forward(e->exec, 0));
  read_f32(e->out, y, NX);
  for (i = 0; i < NX; ++i) s += y[i];
  return s;
}

static void test_forward_backward_closed_form_and_numeric(void** state) {
  SpExec e;
  float y[NX], g[NX], x[NX];
  int i;
  (void)state;
  sp_exec_make(&e);
  OK(weft_ndarray_copy_from(e.x, kX, sizeof(kX)));
  OK(weft_executor_forward(e.exec, 1));
  OK(weft_executor_backward(e.exec, NULL, 0)); /* a Custom head: ones as its gradient */
  read_f32(e.out, y, NX);
  read_f32(e.grad, g, NX);
  for (i = 0; i < NX; ++i) {
    /* Closed forms: log(1 + e^(2x)) / 2 and sigmoid(2x). */
    double want_y = log1p(exp(2.0 * kX[i])) / 2.0, want_g = 1.0 / (1.0 + exp(-2.0 * kX[i]));
    if (fabs(y[i] - want_y) > 1e-5 || fabs(g[i] - want_g) > 1e-5)
      fail_msg("x=%g: got y=%g g=%g, expected %g %g", (double)kX[i], (double)y[i], (double)g[i],
               want_y, want_g);
  }
  for (i = 0; i < NX; ++i) { /* central differences of the forward */
    const float eps = 1e-2f;
    double up, down, numeric;
    memcpy(x, kX, sizeof(x));
    x[i] = kX[i] + eps;
    up = sp_sum(&e, x);
    x[i] = kX[i] - eps;
    down = sp_sum(&e, x);
    numeric = (up - down) / (2.0 * eps);
    if (fabs(numeric - g[i]) > 2e-3)
      fail_msg("x=%g: numeric %g, backward %g", kX[i], numeric, g[i]);
  }
  sp_exec_free(&e);
  assert_no_leaks(); /* waits for the engine, which may still hold operators */
  assert_int_equal(__atomic_load_n(&g_live_ops, __ATOMIC_RELAXED), 0);
}

static void test_autograd_records_custom(void** state) {
  const int64_t shape[1] = {NX};
  const char* keys[2] = {"op_type", "beta"};
  const char* vals[2] = {"softplus_beta", "0.5"};
  const int req = WEFT_REQ_WRITE;
  WeftNDArray* x = make_f32(shape, 1, kX);
  WeftNDArray* gx = make_f32(shape, 1, NULL);
  WeftNDArray* y = NULL;
  float g[NX];
  size_t n = 0;
  int i;
  (void)state;
  OK(weft_autograd_mark_variables(&x, 1, &req, &gx));
  OK(weft_autograd_set_is_recording(1, NULL));
  OK(weft_op_invoke("Custom", &x, 1, keys, vals, 2, &y, 1, &n));
  OK(weft_autograd_set_is_recording(0, NULL));
  assert_int_equal(n, 1);
  OK(weft_autograd_backward(&y, 1, NULL, 0, 1));
  read_f32(gx, g, NX);
  for (i = 0; i < NX; ++i) {
    double want = 1.0 / (1.0 + exp(-0.5 * kX[i]));
    if (fabs(g[i] - want) > 1e-5) fail_msg("x=%g: grad %g, expected %g", kX[i], g[i], want);
  }
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(gx));
  OK(weft_ndarray_free(x));
  assert_no_leaks();
}

#include "c_api_custom_op_train.h"

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_forward_backward_closed_form_and_numeric),
      TEST(test_autograd_records_custom),
      TEST(test_module_trains_mlp_with_custom_softplus),
      TEST(test_zoo_json_with_custom_loss),
      TEST(test_four_executor_threads),
      TEST(test_failing_callbacks_name_type_and_node),
      TEST(test_unregister_refused_while_in_use),
  };
  int failed;
  OK(weft_custom_op_register("softplus_beta", sp_creator, NULL, count_deleted));
  OK(weft_custom_op_register("my_softmax", sm_creator, NULL, count_deleted));
  failed = cmocka_run_group_tests(tests, NULL, NULL);
  OK(weft_custom_op_unregister("softplus_beta"));
  OK(weft_custom_op_unregister("my_softmax"));
  OK(weft_wait_all());
  if (g_deleted_types != 6 || __atomic_load_n(&g_live_props, __ATOMIC_RELAXED) != 0 ||
      __atomic_load_n(&g_live_ops, __ATOMIC_RELAXED) != 0) {
    fprintf(stderr, "deleted types %d (expected 6), live props %d, live operators %d\n",
            g_deleted_types, g_live_props, g_live_ops);
    return 1;
  }
  return failed;
}
