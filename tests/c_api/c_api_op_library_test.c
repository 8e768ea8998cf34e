/*
 * C ABI tests of weft_load_library / weft_loaded_ops: the test library
 * tests/c_api/plugins/softplus_plugin.c (built by CMake) loads, is listed,
 * runs imperatively, through autograd and in a symbol against the closed
 * form; the same library built against another header version is refused
 * naming both versions; a missing file and a callback error are reported.
 */
#include "c_test_util.h"

#define NX 5
static const float kX[NX] = {-2.f, -0.5f, 0.f, 0.75f, 3.f};

static double sp(double beta, double x) { return log1p(exp(beta * x)) / beta; }
static double dsp(double beta, double x) { return 1.0 / (1.0 + exp(-beta * x)); }

static int listed(const char* name) {
  WeftStringList* l = NULL;
  size_t n = 0, i;
  int found = 0;
  OK(weft_loaded_ops(&l));
  OK(weft_string_list_size(l, &n));
  for (i = 0; i < n; ++i) {
    const char* s = NULL;
    OK(weft_string_list_get(l, i, &s));
    found |= strcmp(s, name) == 0;
  }
  OK(weft_string_list_free(l));
  return found;
}

static void test_loads_lists_and_runs(void** state) {
  const int64_t shape[1] = {NX};
  const char* keys[1] = {"beta"};
  const char* vals[1] = {"1.5"};
  const int req = WEFT_REQ_WRITE;
  const char* doc = NULL;
  size_t np = 0, n = 0;
  WeftNDArray *x, *gx, *y = NULL;
  float out[NX], g[NX];
  int i;
  (void)state;
  OK(weft_load_library(WEFT_TEST_PLUGIN));
  OK(weft_load_library(WEFT_TEST_PLUGIN)); /* again: nothing happens */
  assert_true(listed("plugin_softplus"));
  assert_true(listed("_backward_plugin_softplus"));
  OK(weft_op_info("plugin_softplus", &doc, &np));
  assert_non_null(strstr(doc, "operator library"));
  x = make_f32(shape, 1, kX);
  gx = make_f32(shape, 1, NULL);
  OK(weft_autograd_mark_variables(&x, 1, &req, &gx));
  OK(weft_autograd_set_is_recording(1, NULL));
  OK(weft_op_invoke("plugin_softplus", &x, 1, keys, vals, 1, &y, 1, &n));
  OK(weft_autograd_set_is_recording(0, NULL));
  OK(weft_autograd_backward(&y, 1, NULL, 0, 1));
  read_f32(y, out, NX);
  read_f32(gx, g, NX);
  for (i = 0; i < NX; ++i)
    if (fabs(out[i] - sp(1.5, kX[i])) > 1e-5 || fabs(g[i] - dsp(1.5, kX[i])) > 1e-5)
      fail_msg("x=%g: got %g and %g, expected %g and %g", kX[i], out[i], g[i], sp(1.5, kX[i]),
               dsp(1.5, kX[i]));
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(gx));
  OK(weft_ndarray_free(x));
  assert_no_leaks();
}

static const char kJson[] =
    "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []},"
    "{\"op\": \"plugin_softplus\", \"name\": \"sp\", \"attrs\": {\"beta\": \"0.5\"}, "
    "\"inputs\": [[0, 0, 0]]}], \"arg_nodes\": [0], \"heads\": [[1, 0, 0]]}";

static void test_symbol_forward_backward(void** state) {
  const char* names[1] = {"x"};
  const size_t ind[2] = {0, 1};
  const int64_t dims[1] = {NX};
  WeftSymbolHandle* sym = NULL;
  WeftExecutor* ex = NULL;
  WeftNDArrayList* l = NULL;
  WeftNDArray *x = NULL, *y = NULL, *gx = NULL, *head;
  float out[NX], g[NX], ones[NX] = {1, 1, 1, 1, 1};
  int i;
  (void)state;
  OK(weft_load_library(WEFT_TEST_PLUGIN));
  OK(weft_symbol_from_json(kJson, &sym));
  OK(weft_executor_simple_bind(sym, WEFT_CPU, 0, 1, names, ind, dims, 0, NULL, NULL, "write", &ex));
  OK(weft_executor_arg_arrays(ex, &l));
  OK(weft_ndarray_list_get(l, 0, &x));
  OK(weft_ndarray_list_free(l));
  OK(weft_executor_grad_arrays(ex, &l));
  OK(weft_ndarray_list_get(l, 0, &gx));
  OK(weft_ndarray_list_free(l));
  OK(weft_executor_outputs(ex, &l));
  OK(weft_ndarray_list_get(l, 0, &y));
  OK(weft_ndarray_list_free(l));
  OK(weft_ndarray_copy_from(x, kX, sizeof(kX)));
  head = make_f32(dims, 1, ones);
  OK(weft_executor_forward(ex, 1));
  OK(weft_executor_backward(ex, &head, 1));
  read_f32(y, out, NX);
  read_f32(gx, g, NX);
  for (i = 0; i < NX; ++i)
    if (fabs(out[i] - sp(0.5, kX[i])) > 1e-5 || fabs(g[i] - dsp(0.5, kX[i])) > 1e-5)
      fail_msg("x=%g: got %g and %g", kX[i], out[i], g[i]);
  OK(weft_ndarray_free(head));
  OK(weft_ndarray_free(x));
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(gx));
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

static void test_errors(void** state) {
  const int64_t shape[1] = {NX};
  const char* keys[1] = {"beta"};
  const char* vals[1] = {"-1"};
  WeftNDArray *x, *y = NULL;
  size_t n = 0;
  (void)state;
  EXPECT_ERR(weft_load_library(WEFT_TEST_PLUGIN_V2), WEFT_ERR_INVALID_ARGUMENT,
             "softplus_plugin_v2", "version 2", "version 1");
  EXPECT_ERR(weft_load_library("/no/such/library.so"), WEFT_ERR_IO, "/no/such/library.so");
  EXPECT_ERR(weft_load_library(""), WEFT_ERR_INVALID_ARGUMENT, "path", "empty");
  OK(weft_load_library(WEFT_TEST_PLUGIN));
  x = make_f32(shape, 1, kX);
  EXPECT_ERR(weft_op_invoke("plugin_softplus", &x, 1, keys, vals, 1, &y, 1, &n),
             WEFT_ERR_INVALID_ARGUMENT, "plugin_softplus", "beta must be positive");
  OK(weft_ndarray_free(x));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_loads_lists_and_runs),
      TEST(test_symbol_forward_backward),
      TEST(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
