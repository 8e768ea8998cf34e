/*
 * C ABI test (C99, CMocka, against libweft.so): the metrics and initializers
 * added by name reach C through weft_metric_create and
 * weft_initializer_create: f1 (micro), perplexity (ignore_label None), loss
 * and pearsonr values against closed forms; orthogonal, bilinear, lstmbias
 * and mixed fills; errors naming the parameter. No leaked handle or byte.
 */
#include "c_test_util.h"

/* The single value of metric `m` and its reported name. */
static double metric_value(const WeftMetric* m, const char* want_name) {
  WeftStringList* names = NULL;
  const char* name = NULL;
  double v = -1;
  size_t n = 0;
  OK(weft_metric_get(m, &names, &v, 1, &n));
  assert_int_equal(n, 1);
  OK(weft_string_list_get(names, 0, &name));
  assert_string_equal(name, want_name);
  OK(weft_string_list_free(names));
  return v;
}

static void test_new_metrics_by_name(void** state) {
  const int64_t pshape[2] = {3, 2}, lshape[1] = {3};
  const float pred[6] = {0.25f, 0.75f, 0.0f, 1.0f, 0.5f, 0.5f}; /* argmax 1, 1, 0 */
  const float label[3] = {0, 1, 1};
  const char* f1_keys[] = {"average"};
  const char* f1_vals[] = {"micro"};
  const char* pp_keys[] = {"ignore_label"};
  const char* pp_vals[] = {"None"};
  WeftNDArray *p = make_f32(pshape, 2, pred), *l = make_f32(lshape, 1, label);
  WeftMetric *f1 = NULL, *pp = NULL, *loss = NULL, *pr = NULL;
  (void)state;
  OK(weft_metric_create("F1", f1_keys, f1_vals, 1, &f1));
  OK(weft_metric_create("perplexity", pp_keys, pp_vals, 1, &pp));
  OK(weft_metric_create("loss", NULL, NULL, 0, &loss));
  OK(weft_metric_create("pearsonr", NULL, NULL, 0, &pr));
  OK(weft_metric_update(f1, 1, &l, 1, &p));
  OK(weft_metric_update(f1, 1, &l, 1, &p));
  OK(weft_metric_update(pp, 1, &l, 1, &p));
  OK(weft_metric_update(loss, 0, NULL, 1, &p));
  /* tp 1, fp 1, fn 1 per batch: precision = recall = 1/2, F1 1/2. */
  assert_true(fabs(metric_value(f1, "f1") - 0.5) < 1e-12);
  /* exp(-(log .25 + log 1 + log .5) / 3) */
  assert_true(fabs(metric_value(pp, "perplexity") - exp(-(log(0.25) + log(0.5)) / 3)) < 1e-9);
  assert_true(fabs(metric_value(loss, "loss") - 3.0 / 6) < 1e-12);
  /* The same values correlate perfectly. */
  OK(weft_metric_update(pr, 1, &p, 1, &p));
  assert_true(fabs(metric_value(pr, "pearsonr") - 1.0) < 1e-12);
  EXPECT_ERR(weft_metric_create("mcc", f1_keys, pp_vals, 1, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "out");
  EXPECT_ERR(weft_metric_create("mcc", f1_keys, pp_vals, 1, &pr), WEFT_ERR_INVALID_ARGUMENT,
             "average", "None");
  OK(weft_metric_free(f1));
  OK(weft_metric_free(pp));
  OK(weft_metric_free(loss));
  OK(weft_metric_free(pr));
  OK(weft_ndarray_free(p));
  OK(weft_ndarray_free(l));
  assert_no_leaks();
}

static WeftNDArray* filled(const char* init_name, const char* const* keys, const char* const* vals,
                           size_t n, const char* param, const int64_t* shape, int ndim) {
  WeftInitializer* init = NULL;
  WeftNDArray* a = NULL;
  OK(weft_initializer_create(init_name, keys, vals, n, 7, &init));
  OK(weft_ndarray_create(shape, ndim, WEFT_FLOAT32, WEFT_CPU, 0, &a));
  OK(weft_initializer_init(init, param, a));
  OK(weft_initializer_free(init));
  return a;
}

static void test_new_initializers_by_name(void** state) {
  const int64_t sq[2] = {3, 3}, k4[4] = {1, 1, 4, 4}, b8[1] = {8}, two[1] = {2};
  const char* okeys[] = {"scale", "rand_type"};
  const char* ovals[] = {"2", "normal"};
  const char* mkeys[] = {"patterns", "initializers"};
  const char* mvals[] = {"[\"fc1\", \".*\"]", "[[\"constant\", {\"value\": 3}], \"one\"]"};
  const float k1[4] = {0.25f, 0.75f, 0.75f, 0.25f};
  const float lstm[8] = {0, 0, 1, 1, 0, 0, 0, 0};
  float w[16], want[16];
  int i, j, r;
  WeftNDArray* a;
  WeftInitializer* bad = NULL;
  (void)state;
  /* orthogonal, scale 2: W W^T = 4 I. */
  a = filled("orthogonal", okeys, ovals, 2, "w", sq, 2);
  read_f32(a, w, 9);
  for (i = 0; i < 3; ++i)
    for (j = 0; j < 3; ++j) {
      double dot = 0;
      for (r = 0; r < 3; ++r) dot += (double)w[i * 3 + r] * w[j * 3 + r];
      assert_true(fabs(dot - (i == j ? 4.0 : 0.0)) < 1e-5);
    }
  OK(weft_ndarray_free(a));
  /* bilinear: the outer product of 1/4, 3/4, 3/4, 1/4. */
  a = filled("bilinear", NULL, NULL, 0, "up_weight", k4, 4);
  read_f32(a, w, 16);
  for (i = 0; i < 16; ++i) want[i] = k1[i / 4] * k1[i % 4];
  assert_floats(w, want, 16);
  OK(weft_ndarray_free(a));
  /* lstmbias: the forget gate's quarter (a name no suffix rule claims). */
  a = filled("lstm_bias", NULL, NULL, 0, "lstm_param", b8, 1);
  read_f32(a, w, 8);
  assert_floats(w, lstm, 8);
  OK(weft_ndarray_free(a));
  /* mixed: fc1* gets 3, the rest one. */
  a = filled("mixed", mkeys, mvals, 2, "fc1_weight", two, 1);
  read_f32(a, w, 2);
  assert_true(w[0] == 3.0f && w[1] == 3.0f);
  OK(weft_ndarray_free(a));
  a = filled("mixed", mkeys, mvals, 2, "fc2_weight", two, 1);
  read_f32(a, w, 2);
  assert_true(w[0] == 1.0f && w[1] == 1.0f);
  OK(weft_ndarray_free(a));
  EXPECT_ERR(weft_initializer_create("mixed", mkeys, mvals, 1, 0, &bad), WEFT_ERR_INVALID_ARGUMENT,
             "initializers", "missing");
  assert_null(bad);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_new_metrics_by_name),
      TEST(test_new_initializers_by_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
