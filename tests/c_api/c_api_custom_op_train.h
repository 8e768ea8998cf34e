/*
 * The second half of c_api_custom_op_test.c (included once, after the
 * softplus op): a softmax loss as a Custom op, training with modules, the
 * threaded, failing and unregistering cases.
 */
#ifndef WEFT_TESTS_C_API_C_API_CUSTOM_OP_TRAIN_H_
#define WEFT_TESTS_C_API_C_API_CUSTOM_OP_TRAIN_H_

/* --------------------------------------------- my_softmax (a Custom loss) */

static const char* const kSmArgs[] = {"data", "label", NULL};

static const char* sm_list_args(void* s, const char* const** out) {
  (void)s;
  *out = kSmArgs;
  return NULL;
}

/* Entries: data (batch, k), label, output. */
static const char* sm_infer_shape(void* s, int num, int* ndims, int64_t* const* shapes,
                                  int max_ndim) {
  (void)s;
  (void)max_ndim;
  if (num != 3 || ndims[0] != 2) return "my_softmax: expected data of rank 2";
  ndims[1] = 1;
  shapes[1][0] = shapes[0][0];
  ndims[2] = 2;
  shapes[2][0] = shapes[0][0];
  shapes[2][1] = shapes[0][1];
  return NULL;
}

typedef struct {
  int64_t k; /* classes */
} SmOp;

static const char* sm_forward(void* s, int is_train, const int* req, WeftNDArray* const* in,
                              int num_in, WeftNDArray* const* out, int num_out,
                              WeftNDArray* const* aux, int num_aux) {
  const int64_t k = ((const SmOp*)s)->k;
  int64_t n = 0, m = 0, r, j;
  float *x = data_of(in[0], &n), *y = data_of(out[0], &m);
  (void)is_train;
  (void)aux;
  if (num_in != 2 || num_out != 1 || num_aux != 0 || !x || !y) return "my_softmax: bad arrays";
  for (r = 0; r < n / k; ++r) {
    float mx = x[r * k], sum = 0;
    for (j = 1; j < k; ++j) mx = x[r * k + j] > mx ? x[r * k + j] : mx;
    for (j = 0; j < k; ++j) sum += expf(x[r * k + j] - mx);
    for (j = 0; j < k; ++j) store(req[0], &y[r * k + j], expf(x[r * k + j] - mx) / sum);
  }
  return NULL;
}

/* d(cross-entropy)/d(data) = softmax - one_hot(label); the label gets 0. */
static const char* sm_backward(void* s, const int* req, WeftNDArray* const* out_grad,
                               WeftNDArray* const* in_data, WeftNDArray* const* out_data,
                               WeftNDArray* const* in_grad, WeftNDArray* const* aux, int num_in,
                               int num_out, int num_aux) {
  const int64_t k = ((const SmOp*)s)->k;
  int64_t n = 0, nl = 0, i;
  float *p = data_of(out_data[0], &n), *label = data_of(in_data[1], &nl);
  float* dx = data_of(in_grad[0], &n);
  (void)out_grad;
  (void)aux;
  if (num_in != 2 || num_out != 1 || num_aux != 0 || !p || !label || !dx)
    return "my_softmax: bad arrays";
  for (i = 0; i < n; ++i)
    store(req[0], &dx[i], p[i] - ((int64_t)label[i / k] == i % k ? 1.f : 0.f));
  if (req[1] != WEFT_REQ_NULL && in_grad[1] != NULL) {
    float* dl = data_of(in_grad[1], &nl);
    for (i = 0; i < nl; ++i) store(req[1], &dl[i], 0.f);
  }
  return NULL;
}

static const char* sm_create_operator(void* s, const char* ctx, int num, const int* ndims,
                                      const int64_t* const* shapes, const int* dtypes,
                                      WeftCustomOp* out) {
  SmOp* op;
  (void)s;
  (void)ctx;
  (void)dtypes;
  if (num != 2 || ndims[0] != 2) return "my_softmax: expected data of rank 2";
  op = (SmOp*)malloc(sizeof(SmOp));
  op->k = shapes[0][1];
  __atomic_fetch_add(&g_live_ops, 1, __ATOMIC_RELAXED);
  out->state = op;
  out->del = sp_op_del;
  out->forward = sm_forward;
  out->backward = sm_backward;
  return NULL;
}

static const char* sm_creator(void* user_data, const char* op_type, const char* const* keys,
                              const char* const* values, int num_attrs, WeftCustomOpProp* out) {
  (void)user_data;
  (void)op_type;
  (void)keys;
  (void)values;
  if (num_attrs != 0) return "my_softmax takes no attributes";
  __atomic_fetch_add(&g_live_props, 1, __ATOMIC_RELAXED);
  out->state = malloc(1);
  out->del = sp_prop_del;
  out->list_arguments = sm_list_args;
  out->list_outputs = sp_list_outs;
  out->infer_shape = sm_infer_shape;
  out->create_operator = sm_create_operator;
  return NULL; /* no infer_type, no declare_backward_dependency: the defaults */
}

/* ------------------------------------------------------------ training */

#define NB 200

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

/* The symbol JSON as MXNet 1.9 writes it: fc1 -> act -> fc2 -> loss. */
static char* mlp_json(const char* act, const char* loss) {
  static char buf[4096];
  snprintf(buf, sizeof(buf),
           "{\"nodes\": ["
           "{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
           "{\"op\": \"null\", \"name\": \"fc1_weight\", \"inputs\": []},"
           "{\"op\": \"null\", \"name\": \"fc1_bias\", \"inputs\": []},"
           "{\"op\": \"FullyConnected\", \"name\": \"fc1\", \"attrs\": {\"num_hidden\": \"16\"},"
           " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},"
           "%s,"
           "{\"op\": \"null\", \"name\": \"fc2_weight\", \"inputs\": []},"
           "{\"op\": \"null\", \"name\": \"fc2_bias\", \"inputs\": []},"
           "{\"op\": \"FullyConnected\", \"name\": \"fc2\", \"attrs\": {\"num_hidden\": \"4\"},"
           " \"inputs\": [[4, 0, 0], [5, 0, 0], [6, 0, 0]]},"
           "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []},"
           "%s],"
           "\"arg_nodes\": [0, 1, 2, 5, 6, 8], \"node_row_ptr\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "
           "10], \"heads\": [[9, 0, 0]],"
           "\"attrs\": {\"mxnet_version\": [\"int\", 10901]}}",
           act, loss);
  return buf;
}

static const char kActCustom[] =
    "{\"op\": \"Custom\", \"name\": \"act1\", \"attrs\": {\"beta\": \"1.5\", \"op_type\": "
    "\"softplus_beta\"}, \"inputs\": [[3, 0, 0]]}";
static const char kActRelu[] =
    "{\"op\": \"Activation\", \"name\": \"act1\", \"attrs\": {\"act_type\": \"relu\"}, "
    "\"inputs\": [[3, 0, 0]]}";
static const char kLossSoftmax[] =
    "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", \"inputs\": [[7, 0, 0], [8, 0, 0]]}";
static const char kLossCustom[] =
    "{\"op\": \"Custom\", \"name\": \"softmax\", \"attrs\": {\"op_type\": \"my_softmax\"}, "
    "\"inputs\": [[7, 0, 0], [8, 0, 0]]}";

/* Cross-entropy of a module on the blobs before and after 4 epochs. */
static void train_and_check(const char* json) {
  static float x[2 * NB], y[NB];
  const int64_t xs[2] = {NB, 2}, ys[1] = {NB};
  const char* data_name = "data";
  const char* label_name = "softmax_label";
  const char* keys[2] = {"learning_rate", "momentum"};
  const char* vals[2] = {"0.1", "0.9"};
  WeftSymbolHandle* sym = NULL;
  WeftNDArray *xa, *ya;
  WeftDataIter* iter = NULL;
  WeftModule* mod = NULL;
  WeftInitializer* init = NULL;
  WeftOptimizer* opt = NULL;
  WeftMetric* ce = NULL;
  WeftStringList* names = NULL;
  double before = 0, after = 0;
  size_t n = 0;
  make_blobs(x, y, NB, 7);
  OK(weft_symbol_from_json(json, &sym));
  xa = make_f32(xs, 2, x);
  ya = make_f32(ys, 1, y);
  OK(weft_data_iter_create_ndarray(1, &data_name, &xa, 1, &label_name, &ya, 20, 1, "pad", 5,
                                   &iter));
  OK(weft_module_create(sym, 1, &data_name, 1, &label_name, WEFT_CPU, 0, &mod));
  OK(weft_module_bind(mod, iter, 1));
  OK(weft_initializer_create("xavier", NULL, NULL, 0, 3, &init));
  OK(weft_module_init_params(mod, init, NULL, NULL, 1));
  OK(weft_optimizer_create("sgd", keys, vals, 2, &opt));
  OK(weft_module_init_optimizer(mod, opt));
  OK(weft_metric_create("ce", NULL, NULL, 0, &ce));
  OK(weft_module_score(mod, iter, ce));
  OK(weft_metric_get(ce, &names, &before, 1, &n));
  OK(weft_string_list_free(names));
  OK(weft_module_fit(mod, iter, NULL, ce, 0, 4, WEFT_PROGRESS_SILENT, NULL, NULL));
  OK(weft_module_score(mod, iter, ce));
  OK(weft_metric_get(ce, &names, &after, 1, &n));
  OK(weft_string_list_free(names));
  if (!(after < 0.5 * before) || !(after < 0.3))
    fail_msg("cross-entropy %g before training, %g after: it did not fall", before, after);
  OK(weft_metric_free(ce));
  OK(weft_optimizer_free(opt));
  OK(weft_initializer_free(init));
  OK(weft_module_free(mod));
  OK(weft_data_iter_free(iter));
  OK(weft_ndarray_free(xa));
  OK(weft_ndarray_free(ya));
  OK(weft_symbol_free(sym));
}

static void test_module_trains_mlp_with_custom_softplus(void** state) {
  int before = __atomic_load_n(&g_backward_calls, __ATOMIC_RELAXED);
  (void)state;
  train_and_check(mlp_json(kActCustom, kLossSoftmax));
  /* 4 epochs of 10 batches */
  assert_true(__atomic_load_n(&g_backward_calls, __ATOMIC_RELAXED) - before >= 40);
  assert_no_leaks(); /* waits for the engine, which may still hold operators */
  assert_int_equal(__atomic_load_n(&g_live_ops, __ATOMIC_RELAXED), 0);
}

static void test_zoo_json_with_custom_loss(void** state) {
  WeftSymbolHandle* sym = NULL;
  (void)state;
  train_and_check(mlp_json(kActRelu, kLossCustom));
  /* Both custom ops at once. */
  train_and_check(mlp_json(kActCustom, kLossCustom));
  /* The same file with the type not registered: refused, naming it. */
  OK(weft_custom_op_unregister("my_softmax"));
  EXPECT_ERR(weft_symbol_from_json(mlp_json(kActRelu, kLossCustom), &sym),
             WEFT_ERR_INVALID_ARGUMENT, "my_softmax", "not registered", "softmax");
  assert_null(sym);
  OK(weft_custom_op_register("my_softmax", sm_creator, NULL, count_deleted));
  assert_no_leaks();
}

/* ------------------------------------------------------------- threads */

static void* thread_main(void* arg) {
  SpExec e;
  float x[NX], y[NX], g[NX];
  int it, i, t = *(int*)arg, bad = 0;
  sp_exec_make(&e);
  for (it = 0; it < 25; ++it) {
    for (i = 0; i < NX; ++i) x[i] = kX[i] + 0.01f * (float)(t + it);
    if (weft_ndarray_copy_from(e.x, x, sizeof(x)) != WEFT_OK ||
        weft_executor_forward(e.exec, 1) != WEFT_OK ||
        weft_executor_backward(e.exec, NULL, 0) != WEFT_OK ||
        weft_ndarray_copy_to(e.out, y, sizeof(y)) != WEFT_OK ||
        weft_ndarray_copy_to(e.grad, g, sizeof(g)) != WEFT_OK) {
      bad = 1;
      break;
    }
    for (i = 0; i < NX; ++i)
      if (fabsf(y[i] - softplus(2.f, x[i])) > 1e-5f || fabsf(g[i] - sigmoid(2.f * x[i])) > 1e-5f)
        bad = 1;
  }
  sp_exec_free(&e);
  *(int*)arg = bad;
  return NULL;
}

static void test_four_executor_threads(void** state) {
  pthread_t th[4];
  int arg[4], i, calls = __atomic_load_n(&g_forward_calls, __ATOMIC_RELAXED);
  (void)state;
  for (i = 0; i < 4; ++i) {
    arg[i] = i;
    assert_int_equal(pthread_create(&th[i], NULL, thread_main, &arg[i]), 0);
  }
  for (i = 0; i < 4; ++i) assert_int_equal(pthread_join(th[i], NULL), 0);
  for (i = 0; i < 4; ++i) assert_int_equal(arg[i], 0);
  assert_int_equal(__atomic_load_n(&g_forward_calls, __ATOMIC_RELAXED) - calls, 4 * 25);
  assert_no_leaks(); /* waits for the engine, which may still hold operators */
  assert_int_equal(__atomic_load_n(&g_live_ops, __ATOMIC_RELAXED), 0);
}

/* -------------------------------------------------- errors and in-use */

static const char kFailJson[] =
    "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []},"
    "{\"op\": \"Custom\", \"name\": \"bad_node\", \"attrs\": {\"op_type\": \"failing\"%s}, "
    "\"inputs\": [[0, 0, 0]]}], \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}";

static void test_failing_callbacks_name_type_and_node(void** state) {
  char json[512];
  SpExec e;
  float y[NX];
  (void)state;
  OK(weft_custom_op_register("failing", sp_creator, (void*)1, count_deleted));
  /* The creator refuses: the load fails naming the type and the node. */
  snprintf(json, sizeof(json), kFailJson, ", \"beta\": \"-1\"");
  EXPECT_ERR(weft_symbol_from_json(json, &e.sym), WEFT_ERR_INVALID_ARGUMENT, "failing", "bad_node",
             "beta must be positive");
  /* Forward fails: reported at the sync copy, naming the type and node. */
  snprintf(json, sizeof(json), kFailJson, "");
  {
    const char* names[1] = {"x"};
    const size_t ind[2] = {0, 1};
    const int64_t dims[1] = {NX};
    WeftNDArrayList* l = NULL;
    OK(weft_symbol_from_json(json, &e.sym));
    OK(weft_executor_simple_bind(e.sym, WEFT_CPU, 0, 1, names, ind, dims, 0, NULL, NULL, "null",
                                 &e.exec));
    OK(weft_executor_outputs(e.exec, &l));
    e.out = list_item(l, 0);
  }
  OK(weft_executor_forward(e.exec, 0));
  EXPECT_ERR(weft_ndarray_copy_to(e.out, y, sizeof(y)), WEFT_ERR_INVALID_ARGUMENT, "failing",
             "bad_node", "boom: this forward always fails");
  OK(weft_ndarray_free(e.out));
  OK(weft_executor_free(e.exec));
  OK(weft_symbol_free(e.sym));
  OK(weft_wait_all());
  OK(weft_custom_op_unregister("failing"));
  assert_no_leaks();
}

static void test_unregister_refused_while_in_use(void** state) {
  WeftSymbolHandle* sym = NULL;
  WeftStringList* list = NULL;
  size_t n = 0;
  const char* name = NULL;
  int deleted = g_deleted_types;
  (void)state;
  OK(weft_custom_op_register("temp_sp", sp_creator, NULL, count_deleted));
  EXPECT_ERR(weft_custom_op_register("temp_sp", sp_creator, NULL, count_deleted),
             WEFT_ERR_INVALID_ARGUMENT, "temp_sp", "registered already");
  assert_int_equal(g_deleted_types, deleted + 1); /* the failed call released its user data */
  OK(weft_custom_op_list(&list));
  OK(weft_string_list_size(list, &n));
  assert_int_equal(n, 3); /* my_softmax, softplus_beta, temp_sp */
  OK(weft_string_list_get(list, 2, &name));
  assert_string_equal(name, "temp_sp");
  OK(weft_string_list_free(list));
  {
    char json[sizeof(kSpJson) + 8];
    const char* at = strstr(kSpJson, "softplus_beta");
    memcpy(json, kSpJson, (size_t)(at - kSpJson));
    strcpy(json + (at - kSpJson), "temp_sp");
    strcat(json, at + strlen("softplus_beta"));
    OK(weft_symbol_from_json(json, &sym));
  }
  EXPECT_ERR(weft_custom_op_unregister("temp_sp"), WEFT_ERR_INVALID_ARGUMENT, "temp_sp", "in use");
  OK(weft_symbol_free(sym));
  OK(weft_custom_op_unregister("temp_sp"));
  assert_int_equal(g_deleted_types, deleted + 2);
  EXPECT_ERR(weft_custom_op_unregister("temp_sp"), WEFT_ERR_NOT_FOUND, "temp_sp");
  assert_no_leaks();
}

#endif /* WEFT_TESTS_C_API_C_API_CUSTOM_OP_TRAIN_H_ */
