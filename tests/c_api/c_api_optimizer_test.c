/*
 * C ABI test (C99, CMocka, against libweft.so): initializers and optimizers
 * (weft_initializer_*, weft_optimizer_*): SGD-momentum and Adam steps against
 * closed forms computed here in double, schedules, multipliers, the
 * initializer's rules and determinism, and error paths (NULL, freed, double
 * freed and foreign handles, unknown names and parameters). Every test ends
 * with no leaked handle or byte (assert_no_leaks).
 */
#include "c_test_util.h"

static float f32(double v) { return (float)v; }

static void assert_close(const float* got, const double* want, size_t n, double tol) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (fabs((double)got[i] - want[i]) > tol * (1.0 + fabs(want[i])))
      fail_msg("element %d: got %.9g, expected %.9g", (int)i, (double)got[i], want[i]);
}

static double clipd(double x, double c) { return x > c ? c : x < -c ? -c : x; }

static void test_sgd_momentum_steps(void** state) {
  const char* keys[] = {"learning_rate", "momentum", "wd", "clip_gradient", "rescale_grad"};
  const char* vals[] = {"0.1", "0.9", "0.01", "1", "0.5"};
  const int64_t shape[1] = {4};
  const float w0[4] = {0.5f, -1.25f, 2.0f, 0.0f};
  const float grads[3][4] = {
      {0.4f, -3.0f, 1.0f, -5.0f}, {-1.2f, 0.6f, 0.2f, 2.4f}, {0.05f, 4.0f, -0.9f, 0.0f}};
  double rw[4], rm[4] = {0, 0, 0, 0};
  float got[4];
  int64_t num_update = -1;
  int k, i;
  WeftOptimizer* opt = NULL;
  WeftNDArray *w, *g;
  (void)state;
  OK(weft_optimizer_create("sgd", keys, vals, 5, &opt));
  w = make_f32(shape, 1, w0);
  for (i = 0; i < 4; ++i) rw[i] = w0[i];
  for (k = 0; k < 3; ++k) {
    g = make_f32(shape, 1, grads[k]);
    OK(weft_optimizer_update(opt, 0, "fc_weight", w, g));
    OK(weft_ndarray_free(g)); /* the pushed update keeps the gradient alive */
    for (i = 0; i < 4; ++i) {
      rm[i] = f32(0.9) * rm[i] - (double)f32(0.1) * f32(0.01) * rw[i] -
              f32(0.1) * clipd(f32(0.5) * grads[k][i], 1.0);
      rw[i] += rm[i];
    }
  }
  read_f32(w, got, 4);
  assert_close(got, rw, 4, 1e-6);
  OK(weft_optimizer_num_update(opt, &num_update));
  assert_int_equal(num_update, 3);
  OK(weft_ndarray_free(w));
  OK(weft_optimizer_free(opt));
  assert_no_leaks();
}

static void test_adam_steps_with_bias_correction(void** state) {
  const char* keys[] = {"learning_rate", "beta1", "beta2", "epsilon", "wd"};
  const char* vals[] = {"0.01", "0.8", "0.99", "1e-3", "0.1"};
  const int64_t shape[1] = {3};
  const float w0[3] = {1.0f, -2.0f, 0.25f};
  const float grads[2][3] = {{0.5f, 1.5f, -0.25f}, {-1.0f, 0.0f, 2.0f}};
  double rw[3], rm[3] = {0, 0, 0}, rv[3] = {0, 0, 0};
  float got[3];
  int k, i;
  WeftOptimizer* opt = NULL;
  WeftNDArray *w, *g;
  (void)state;
  OK(weft_optimizer_create("adam", keys, vals, 5, &opt));
  w = make_f32(shape, 1, w0);
  for (i = 0; i < 3; ++i) rw[i] = w0[i];
  for (k = 0; k < 2; ++k) {
    const int t = k + 1;
    const double lr_t = f32(f32(0.01) * sqrt(1 - pow(0.99, t)) / (1 - pow(0.8, t)));
    g = make_f32(shape, 1, grads[k]);
    OK(weft_optimizer_update(opt, 5, "x_weight", w, g));
    OK(weft_ndarray_free(g));
    for (i = 0; i < 3; ++i) {
      const double gi = grads[k][i] + (double)f32(0.1) * rw[i];
      rm[i] = f32(0.8) * rm[i] + (1 - (double)f32(0.8)) * gi;
      rv[i] = f32(0.99) * rv[i] + (1 - (double)f32(0.99)) * gi * gi;
      rw[i] -= lr_t * rm[i] / (sqrt(rv[i]) + f32(1e-3));
    }
  }
  read_f32(w, got, 3);
  assert_close(got, rw, 3, 1e-5);
  OK(weft_ndarray_free(w));
  OK(weft_optimizer_free(opt));
  assert_no_leaks();
}

static void test_schedule_rescale_and_multipliers(void** state) {
  const char* keys[] = {"learning_rate"};
  const char* vals[] = {"1"};
  const int64_t steps[2] = {1, 2};
  const int64_t shape[1] = {1};
  const float one = 1.0f, ten = 10.0f;
  float lr = 0, got = 0;
  int k;
  WeftOptimizer* opt = NULL;
  WeftSymbolHandle *v = NULL, *b = NULL;
  WeftNDArray *w, *g;
  (void)state;
  OK(weft_optimizer_create("SGD", keys, vals, 1, &opt));
  OK(weft_optimizer_set_lr_scheduler(opt, "factor", steps, 1, 0.5f, 1e-8f));
  OK(weft_optimizer_set_rescale_grad(opt, 2.0f));
  w = make_f32(shape, 1, &ten);
  g = make_f32(shape, 1, &one);
  /* Updates 1, 2, 3 run with 1, 0.5, 0.25, each on 2 * g. */
  for (k = 0; k < 3; ++k) OK(weft_optimizer_update(opt, 0, "w", w, g));
  read_f32(w, &got, 1);
  assert_true(fabsf(got - (10.0f - 2.0f * 1.75f)) < 1e-6f);
  OK(weft_optimizer_learning_rate(opt, "w", &lr));
  assert_true(fabsf(lr - 0.25f) < 1e-7f);
  OK(weft_optimizer_set_lr_scheduler(opt, "multifactor", steps, 2, 0.1f, 0.0f));
  OK(weft_optimizer_learning_rate(opt, "w", &lr));
  assert_true(fabsf(lr - 0.01f) < 1e-8f);
  OK(weft_optimizer_set_lr_scheduler(opt, "none", NULL, 0, 0.0f, 0.0f));
  /* Multipliers from a symbol's attributes. */
  OK(weft_symbol_create_variable("fc_weight", &v));
  OK(weft_symbol_set_attr(v, "lr_mult", "3"));
  OK(weft_optimizer_set_multipliers(opt, v));
  OK(weft_optimizer_learning_rate(opt, "fc_weight", &lr));
  assert_true(fabsf(lr - 3.0f) < 1e-6f);
  OK(weft_optimizer_learning_rate(opt, "fc_bias", &lr));
  assert_true(fabsf(lr - 1.0f) < 1e-6f);
  OK(weft_symbol_create_variable("b", &b));
  OK(weft_symbol_set_attr(b, "lr_mult", "fast"));
  EXPECT_ERR(weft_optimizer_set_multipliers(opt, b), WEFT_ERR_INVALID_ARGUMENT,
             "weft_optimizer_set_multipliers", "fast");
  /* Schedule errors. */
  EXPECT_ERR(weft_optimizer_set_lr_scheduler(opt, "cosine", steps, 1, 0.5f, 0.0f),
             WEFT_ERR_INVALID_ARGUMENT, "kind", "cosine", "multifactor");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler(opt, "factor", steps, 2, 0.5f, 0.0f),
             WEFT_ERR_INVALID_ARGUMENT, "num_steps");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler(opt, "factor", NULL, 1, 0.5f, 0.0f),
             WEFT_ERR_INVALID_ARGUMENT, "steps");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler(opt, "factor", steps, 1, 2.0f, 0.0f),
             WEFT_ERR_INVALID_ARGUMENT, "factor");
  {
    const int64_t bad[2] = {3, 2};
    EXPECT_ERR(weft_optimizer_set_lr_scheduler(opt, "multifactor", bad, 2, 0.5f, 0.0f),
               WEFT_ERR_INVALID_ARGUMENT, "increasing");
  }
  EXPECT_ERR(weft_optimizer_set_rescale_grad(opt, NAN), WEFT_ERR_INVALID_ARGUMENT, "rescale_grad");
  OK(weft_symbol_free(v));
  OK(weft_symbol_free(b));
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(g));
  OK(weft_optimizer_free(opt));
  assert_no_leaks();
}

static void test_initializer_rules_and_determinism(void** state) {
  const char* keys[] = {"scale"};
  const char* vals[] = {"0.5"};
  const int64_t shape[2] = {50, 40};
  float a[2000], b[2000], c[3];
  const int64_t s3[1] = {3};
  double mean = 0;
  int i;
  WeftInitializer *i1 = NULL, *i2 = NULL;
  WeftNDArray *x = make_f32(shape, 2, NULL), *y = make_f32(shape, 2, NULL),
              *z = make_f32(s3, 1, NULL);
  (void)state;
  OK(weft_initializer_create("uniform", keys, vals, 1, 7, &i1));
  OK(weft_initializer_create("uniform", keys, vals, 1, 7, &i2));
  OK(weft_initializer_init(i1, "fc_weight", x));
  OK(weft_initializer_init(i2, "fc_weight", y));
  read_f32(x, a, 2000);
  read_f32(y, b, 2000);
  assert_memory_equal(a, b, sizeof a);
  for (i = 0; i < 2000; ++i) {
    assert_true(a[i] >= -0.5f && a[i] <= 0.5f);
    mean += a[i];
  }
  /* 6 standard errors: sd 0.5/sqrt(3), n 2000. */
  assert_true(fabs(mean / 2000) < 6 * 0.2887 / sqrt(2000.0));
  OK(weft_initializer_init(i1, "fc_bias", z));
  read_f32(z, c, 3);
  assert_true(c[0] == 0 && c[1] == 0 && c[2] == 0);
  OK(weft_initializer_init(i1, "bn_gamma", z));
  read_f32(z, c, 3);
  assert_true(c[0] == 1 && c[1] == 1 && c[2] == 1);
  OK(weft_initializer_free(i2));
  i2 = NULL;
  EXPECT_ERR(weft_initializer_create("kaiming", NULL, NULL, 0, 0, &i2), WEFT_ERR_INVALID_ARGUMENT,
             "weft_initializer_create", "kaiming");
  assert_null(i2); /* out is not written on failure */
  {
    const char* bk[] = {"sigma"};
    const char* bv[] = {"1"};
    EXPECT_ERR(weft_initializer_create("uniform", bk, bv, 1, 0, &i2), WEFT_ERR_INVALID_ARGUMENT,
               "sigma", "scale");
    assert_null(i2); /* out is not written on failure */
  }
  {
    WeftInitializer* xa = NULL;
    OK(weft_initializer_create("xavier", NULL, NULL, 0, 0, &xa));
    EXPECT_ERR(weft_initializer_init(xa, "fc_weight", z), WEFT_ERR_SHAPE, "weft_initializer_init",
               "fc_weight", "(3,)");
    OK(weft_initializer_free(xa));
  }
  OK(weft_initializer_free(i1));
  OK(weft_ndarray_free(x));
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(z));
  assert_no_leaks();
}

static void test_errors_and_handles(void** state) {
  const int64_t shape[1] = {2}, other[1] = {3};
  const char* keys[] = {"learning_rate"};
  const char* bad_vals[] = {"-1"};
  const char* dup_keys[] = {"wd", "wd"};
  const char* dup_vals[] = {"0", "0"};
  const char* bogus_keys[] = {"nesterov"};
  const char* one_val[] = {"1"};
  int64_t n = 0;
  float lr = 0;
  WeftOptimizer* opt = NULL;
  WeftOptimizer* stale = NULL;
  WeftInitializer* init = NULL;
  WeftNDArray *w = make_f32(shape, 1, NULL), *g3 = make_f32(other, 1, NULL);
  (void)state;
  EXPECT_ERR(weft_optimizer_create("rmsprop2", NULL, NULL, 0, &opt), WEFT_ERR_INVALID_ARGUMENT,
             "rmsprop2", "sgd");
  EXPECT_ERR(weft_optimizer_create("sgd", keys, bad_vals, 1, &opt), WEFT_ERR_INVALID_ARGUMENT,
             "learning_rate", "-1");
  EXPECT_ERR(weft_optimizer_create("sgd", bogus_keys, one_val, 1, &opt), WEFT_ERR_INVALID_ARGUMENT,
             "nesterov");
  EXPECT_ERR(weft_optimizer_create("sgd", dup_keys, dup_vals, 2, &opt), WEFT_ERR_INVALID_ARGUMENT,
             "wd", "twice");
  EXPECT_ERR(weft_optimizer_create("sgd", NULL, NULL, 1, &opt), WEFT_ERR_INVALID_ARGUMENT, "keys");
  EXPECT_ERR(weft_optimizer_create(NULL, NULL, NULL, 0, &opt), WEFT_ERR_INVALID_ARGUMENT, "name");
  EXPECT_ERR(weft_optimizer_create("sgd", NULL, NULL, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "out");
  assert_null(opt);
  OK(weft_optimizer_create("sgd", NULL, NULL, 0, &opt));
  EXPECT_ERR(weft_optimizer_update(opt, 0, "w", w, g3), WEFT_ERR_SHAPE, "weft_optimizer_update",
             "'w'", "(3,)");
  EXPECT_ERR(weft_optimizer_update(opt, 0, NULL, w, w), WEFT_ERR_INVALID_ARGUMENT, "name");
  EXPECT_ERR(weft_optimizer_update(opt, 0, "w", NULL, w), WEFT_ERR_INVALID_ARGUMENT, "weight");
  EXPECT_ERR(weft_optimizer_update(NULL, 0, "w", w, w), WEFT_ERR_INVALID_ARGUMENT, "opt");
  EXPECT_ERR(weft_optimizer_num_update(opt, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out' is NULL");
  EXPECT_ERR(weft_optimizer_learning_rate(opt, "w", NULL), WEFT_ERR_INVALID_ARGUMENT, "out_lr");
  /* Foreign handles: an NDArray or an initializer where an optimizer is expected. */
  OK(weft_initializer_create("zero", NULL, NULL, 0, 0, &init));
  EXPECT_ERR(weft_optimizer_num_update((const WeftOptimizer*)init, &n), WEFT_ERR_INVALID_HANDLE,
             "WeftInitializer", "WeftOptimizer");
  EXPECT_ERR(weft_optimizer_num_update((const WeftOptimizer*)w, &n), WEFT_ERR_INVALID_HANDLE,
             "WeftNDArray");
  EXPECT_ERR(weft_initializer_init((WeftInitializer*)opt, "w", w), WEFT_ERR_INVALID_HANDLE,
             "WeftOptimizer", "WeftInitializer");
  EXPECT_ERR(weft_initializer_init(init, "w", (WeftNDArray*)init), WEFT_ERR_INVALID_HANDLE, "arr");
  EXPECT_ERR(weft_optimizer_free((WeftOptimizer*)(uintptr_t)0x1234), WEFT_ERR_INVALID_HANDLE,
             "opt");
  /* Freed and double-freed handles; free(NULL) is a no-op. */
  stale = opt;
  OK(weft_optimizer_free(opt));
  EXPECT_ERR(weft_optimizer_num_update(stale, &n), WEFT_ERR_INVALID_HANDLE, "freed");
  EXPECT_ERR(weft_optimizer_learning_rate(stale, "w", &lr), WEFT_ERR_INVALID_HANDLE, "freed");
  EXPECT_ERR(weft_optimizer_free(stale), WEFT_ERR_INVALID_HANDLE, "freed");
  OK(weft_optimizer_free(NULL));
  OK(weft_initializer_free(init));
  EXPECT_ERR(weft_initializer_free(init), WEFT_ERR_INVALID_HANDLE, "freed", "WeftInitializer");
  EXPECT_ERR(weft_initializer_init(init, "w", w), WEFT_ERR_INVALID_HANDLE, "freed");
  OK(weft_initializer_free(NULL));
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(g3));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_sgd_momentum_steps),
      TEST(test_adam_steps_with_bias_correction),
      TEST(test_schedule_rescale_and_multipliers),
      TEST(test_initializer_rules_and_determinism),
      TEST(test_errors_and_handles),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
