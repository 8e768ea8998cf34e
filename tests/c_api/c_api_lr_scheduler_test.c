/*
 * C ABI test (C99, CMocka, against libweft.so): learning-rate schedules by
 * name (weft_optimizer_set_lr_scheduler_ex): SGD steps under cosine, poly and
 * multifactor schedules with linear and constant warm-up against closed forms
 * computed here, base_lr defaulting to the optimizer's learning_rate, "none",
 * and errors that name the parameter and leave the schedule as it was.
 */
#include "c_test_util.h"

static const double kPi = 3.14159265358979323846;

/* The learning rate the optimizer reports for "w" after its updates so far. */
static double current_lr(const WeftOptimizer* opt) {
  float lr = -1;
  OK(weft_optimizer_learning_rate(opt, "w", &lr));
  return lr;
}

/* SGD with learning_rate 1 and no momentum on a one-element weight. */
static WeftOptimizer* make_sgd(void) {
  const char* keys[] = {"learning_rate"};
  const char* vals[] = {"1"};
  WeftOptimizer* opt = NULL;
  OK(weft_optimizer_create("sgd", keys, vals, 1, &opt));
  return opt;
}

static void test_cosine_with_linear_warmup_steps(void** state) {
  const char* keys[] = {"max_update", "warmup_steps", "warmup_begin_lr", "final_lr"};
  const char* vals[] = {"6", "2", "0.5", "0.1"};
  const int64_t shape[1] = {1};
  const float zero = 0.0f, one = 1.0f;
  double want_w = 0;
  float got;
  int k;
  WeftOptimizer* opt = make_sgd();
  WeftNDArray *w, *g;
  (void)state;
  OK(weft_optimizer_set_lr_scheduler_ex(opt, "cosine", keys, vals, 4));
  assert_true(fabs(current_lr(opt) - 0.5) < 1e-7); /* num_update 0: warmup_begin_lr */
  w = make_f32(shape, 1, &zero);
  g = make_f32(shape, 1, &one);
  for (k = 1; k <= 9; ++k) {
    /* Update k runs with LR(k): linear warm-up to base_lr 1 over 2 updates,
     * then 0.1 + 0.9 * (1 + cos(pi * (k - 2) / 4)) / 2, held after update 6. */
    const int done = k < 6 ? k - 2 : 4;
    const double lr = k < 2 ? 0.5 + 0.5 * k / 2.0 : 0.1 + 0.9 * (1 + cos(kPi * done / 4.0)) / 2;
    OK(weft_optimizer_update(opt, 0, "w", w, g));
    want_w -= (float)lr;
    read_f32(w, &got, 1);
    if (fabs(got - want_w) > 1e-5)
      fail_msg("update %d: weight %.9g, expected %.9g", k, got, want_w);
    assert_true(fabs(current_lr(opt) - lr) < 1e-6);
  }
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(g));
  OK(weft_optimizer_free(opt));
  assert_no_leaks();
}

static void test_poly_multifactor_constant_warmup_and_none(void** state) {
  const char* pkeys[] = {"max_update", "pwr", "base_lr"};
  const char* pvals[] = {"10", "2", "0.5"};
  const char* mkeys[] = {"step", "factor", "warmup_steps", "warmup_begin_lr", "warmup_mode"};
  const char* mvals[] = {"(3,5)", "0.1", "2", "0.25", "constant"};
  const char* fkeys[] = {"step", "factor"};
  const char* fvals[] = {"1", "0.5"};
  const int64_t shape[1] = {1};
  const float zero = 0.0f, one = 1.0f;
  const double multi[7] = {0.25, 1.0, 1.0, 0.1, 0.1, 0.01, 0.01}; /* LR(1..7) */
  int k;
  WeftOptimizer* opt = make_sgd();
  WeftNDArray *w = make_f32(shape, 1, &zero), *g = make_f32(shape, 1, &one);
  (void)state;
  /* Poly from the given base_lr 0.5 (not the optimizer's 1): 0.5 * (1 - 0/10)^2 at 0. */
  OK(weft_optimizer_set_lr_scheduler_ex(opt, "PolyScheduler", pkeys, pvals, 3));
  assert_true(fabs(current_lr(opt) - 0.5) < 1e-7);
  for (k = 1; k <= 5; ++k) OK(weft_optimizer_update(opt, 0, "w", w, g));
  assert_true(fabs(current_lr(opt) - 0.5 * 0.25) < 1e-7); /* (1 - 5/10)^2 */
  /* Multifactor from the optimizer's learning_rate 1 with a constant warm-up; a
   * schedule set later reads the same update count, so start a new index. */
  OK(weft_optimizer_free(opt));
  opt = make_sgd();
  OK(weft_optimizer_set_lr_scheduler_ex(opt, "multifactor", mkeys, mvals, 5));
  for (k = 1; k <= 7; ++k) {
    OK(weft_optimizer_update(opt, 0, "w", w, g));
    if (fabs(current_lr(opt) - multi[k - 1]) > 1e-7)
      fail_msg("update %d: lr %.9g, expected %.9g", k, current_lr(opt), multi[k - 1]);
  }
  /* "factor" by name: 0.5^(7 - 1) at update 7. */
  OK(weft_optimizer_set_lr_scheduler_ex(opt, "Factor", fkeys, fvals, 2));
  assert_true(fabs(current_lr(opt) - 1.0 / 64) < 1e-8);
  /* "none" restores the constant learning_rate; NULL arrays with no parameters. */
  OK(weft_optimizer_set_lr_scheduler_ex(opt, "None", NULL, NULL, 0));
  assert_true(fabs(current_lr(opt) - 1.0) < 1e-7);
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(g));
  OK(weft_optimizer_free(opt));
  assert_no_leaks();
}

static void test_errors_name_the_parameter(void** state) {
  const char* ok_keys[] = {"max_update"};
  const char* ok_vals[] = {"10"};
  const char* first_keys[] = {"max_update", "base_lr"};
  const char* first_vals[] = {"10", "0.3"};
  const char* keys[] = {"max_update", "warmup_steps"};
  const char* vals[] = {"10", "10"};
  const char* bad_mode[] = {"10", "cubic"};
  const char* mode_keys[] = {"max_update", "warmup_mode"};
  const char* null_val[] = {"10", NULL};
  const char* begin_keys[] = {"max_update", "warmup_begin_lr"};
  const char* begin_vals[] = {"10", "2"};
  const char* step_keys[] = {"step"};
  const char* step_vals[] = {"(4,2)"};
  WeftOptimizer* opt = make_sgd();
  (void)state;
  OK(weft_optimizer_set_lr_scheduler_ex(opt, "cosine", first_keys, first_vals, 2));
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "linear", ok_keys, ok_vals, 1),
             WEFT_ERR_INVALID_ARGUMENT, "linear", "cosine");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "cosine", NULL, NULL, 0),
             WEFT_ERR_INVALID_ARGUMENT, "max_update", "missing");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "poly", keys, vals, 2),
             WEFT_ERR_INVALID_ARGUMENT, "max_update", "warmup_steps");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "poly", mode_keys, bad_mode, 2),
             WEFT_ERR_INVALID_ARGUMENT, "warmup_mode", "cubic");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "poly", begin_keys, begin_vals, 2),
             WEFT_ERR_INVALID_ARGUMENT, "warmup_begin_lr", "base_lr");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "multifactor", step_keys, step_vals, 1),
             WEFT_ERR_INVALID_ARGUMENT, "increasing");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "factor", ok_keys, ok_vals, 1),
             WEFT_ERR_INVALID_ARGUMENT, "max_update", "unknown");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "none", ok_keys, ok_vals, 1),
             WEFT_ERR_INVALID_ARGUMENT, "none", "max_update");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "poly", keys, null_val, 2),
             WEFT_ERR_INVALID_ARGUMENT, "vals[1]");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, "poly", NULL, vals, 1),
             WEFT_ERR_INVALID_ARGUMENT, "keys");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(opt, NULL, ok_keys, ok_vals, 1),
             WEFT_ERR_INVALID_ARGUMENT, "name");
  EXPECT_ERR(weft_optimizer_set_lr_scheduler_ex(NULL, "poly", ok_keys, ok_vals, 1),
             WEFT_ERR_INVALID_ARGUMENT, "opt");
  /* The cosine schedule set first is still in place: LR(0) = its base_lr 0.3. */
  assert_true(fabs(current_lr(opt) - 0.3) < 1e-7);
  OK(weft_optimizer_free(opt));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_cosine_with_linear_warmup_steps),
      TEST(test_poly_multifactor_constant_warmup_and_none),
      TEST(test_errors_name_the_parameter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
