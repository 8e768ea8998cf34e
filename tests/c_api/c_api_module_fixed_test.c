/*
 * C ABI test (C99, CMocka, against libweft.so): weft_module_set_fixed_params
 * (MXNet's fixed_param_names). A softmax regression trained with
 * weft_module_fit and a hand-written step keeps its fixed weight bitwise
 * while its bias trains; unknown names, NULL entries and a call after
 * weft_module_bind are errors naming them. No leaked handle or byte.
 */
#include <string.h>

#include "c_test_util.h"

/* data -> FullyConnected(3) -> SoftmaxOutput. */
static const char kJson[] =
    "{\"nodes\": ["
    "{\"op\": \"null\", \"name\": \"data\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc_weight\", \"inputs\": []},"
    "{\"op\": \"null\", \"name\": \"fc_bias\", \"inputs\": []},"
    "{\"op\": \"FullyConnected\", \"name\": \"fc\", \"attrs\": {\"num_hidden\": \"3\"},"
    " \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},"
    "{\"op\": \"null\", \"name\": \"softmax_label\", \"inputs\": []},"
    "{\"op\": \"SoftmaxOutput\", \"name\": \"softmax\", \"inputs\": [[3, 0, 0], [4, 0, 0]]}],"
    "\"arg_nodes\": [0, 1, 2, 4], \"heads\": [[5, 0, 0]]}";

#define ROWS 24

typedef struct {
  WeftSymbolHandle* sym;
  WeftNDArray *x, *y;
  WeftDataIter* iter;
  WeftModule* mod;
} Setup;

static void setup_make(Setup* s) {
  static float x[ROWS * 2], y[ROWS];
  const int64_t xs[2] = {ROWS, 2}, ys[1] = {ROWS};
  const char* data_name = "data";
  const char* label_name = "softmax_label";
  int i;
  for (i = 0; i < ROWS; ++i) {
    x[2 * i] = (float)(i % 3) - 1.0f + 0.01f * (float)i;
    x[2 * i + 1] = (float)((i / 3) % 2) - 0.5f;
    y[i] = (float)(i % 3);
  }
  OK(weft_symbol_from_json(kJson, &s->sym));
  s->x = make_f32(xs, 2, x);
  s->y = make_f32(ys, 1, y);
  OK(weft_data_iter_create_ndarray(1, &data_name, &s->x, 1, &label_name, &s->y, 8, 0, "pad", 0,
                                   &s->iter));
  OK(weft_module_create(s->sym, 1, &data_name, 1, &label_name, WEFT_CPU, 0, &s->mod));
}

static void setup_free(Setup* s) {
  OK(weft_module_free(s->mod));
  OK(weft_data_iter_free(s->iter));
  OK(weft_ndarray_free(s->x));
  OK(weft_ndarray_free(s->y));
  OK(weft_symbol_free(s->sym));
}

/* Copies the module's parameter `name` (at most 8 floats) into `out`. */
static void read_param(const WeftModule* mod, const char* name, float* out, size_t n) {
  WeftNDArrayList* args = NULL;
  size_t size = 0, i;
  int found = 0;
  OK(weft_module_params(mod, &args, NULL));
  OK(weft_ndarray_list_size(args, &size, NULL));
  for (i = 0; i < size; ++i) {
    const char* got = NULL;
    OK(weft_ndarray_list_name(args, i, &got));
    if (strcmp(got, name) == 0 || (strncmp(got, "arg:", 4) == 0 && strcmp(got + 4, name) == 0)) {
      WeftNDArray* a = NULL;
      OK(weft_ndarray_list_get(args, i, &a));
      read_f32(a, out, n);
      OK(weft_ndarray_free(a));
      found = 1;
    }
  }
  OK(weft_ndarray_list_free(args));
  if (!found) fail_msg("parameter %s not found", name);
}

static void test_fixed_weight_keeps_its_bits(void** state) {
  const char* fixed[] = {"fc_weight"};
  const char* keys[] = {"learning_rate", "momentum"};
  const char* vals[] = {"0.5", "0.9"};
  float w0[6], w1[6], b0[3], b1[3];
  int has_next = 0;
  Setup s;
  WeftInitializer* init = NULL;
  WeftOptimizer* opt = NULL;
  WeftMetric* acc = NULL;
  (void)state;
  setup_make(&s);
  OK(weft_module_set_fixed_params(s.mod, 1, fixed));
  OK(weft_module_bind(s.mod, s.iter, 1));
  OK(weft_initializer_create("xavier", NULL, NULL, 0, 4, &init));
  OK(weft_module_init_params(s.mod, init, NULL, NULL, 1));
  OK(weft_optimizer_create("sgd", keys, vals, 2, &opt));
  OK(weft_module_init_optimizer(s.mod, opt));
  OK(weft_metric_create("acc", NULL, NULL, 0, &acc));
  read_param(s.mod, "fc_weight", w0, 6);
  read_param(s.mod, "fc_bias", b0, 3);
  OK(weft_module_fit(s.mod, s.iter, NULL, acc, 0, 3, WEFT_PROGRESS_SILENT, NULL, NULL));
  OK(weft_data_iter_reset(s.iter)); /* one more step by hand */
  OK(weft_data_iter_next(s.iter, &has_next));
  assert_true(has_next);
  OK(weft_module_forward(s.mod, s.iter, 1));
  OK(weft_module_backward(s.mod));
  OK(weft_module_update(s.mod));
  read_param(s.mod, "fc_weight", w1, 6);
  read_param(s.mod, "fc_bias", b1, 3);
  assert_memory_equal(w0, w1, sizeof w0);     /* fixed: bitwise unchanged */
  assert_memory_not_equal(b0, b1, sizeof b0); /* trained */
  EXPECT_ERR(weft_module_set_fixed_params(s.mod, 1, fixed), WEFT_ERR_INVALID_ARGUMENT, "bound",
             "before Bind");
  OK(weft_metric_free(acc));
  OK(weft_optimizer_free(opt));
  OK(weft_initializer_free(init));
  setup_free(&s);
  assert_no_leaks();
}

static void test_errors_name_the_parameters(void** state) {
  const char* unknown[] = {"fc_weight", "fc9_weight", "conv_bias"};
  const char* with_null[] = {"fc_bias", NULL};
  Setup s;
  (void)state;
  setup_make(&s);
  EXPECT_ERR(weft_module_set_fixed_params(s.mod, 3, unknown), WEFT_ERR_INVALID_ARGUMENT,
             "'fc9_weight', 'conv_bias'", "fc_weight, fc_bias");
  EXPECT_ERR(weft_module_set_fixed_params(s.mod, 2, with_null), WEFT_ERR_INVALID_ARGUMENT,
             "names[1]");
  EXPECT_ERR(weft_module_set_fixed_params(s.mod, 1, NULL), WEFT_ERR_INVALID_ARGUMENT, "names");
  EXPECT_ERR(weft_module_set_fixed_params(NULL, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "mod");
  OK(weft_module_set_fixed_params(s.mod, 0, NULL)); /* none fixed */
  setup_free(&s);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_fixed_weight_keeps_its_bits),
      TEST(test_errors_name_the_parameters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
