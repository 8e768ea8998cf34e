/*
 * C ABI test (C99, CMocka, against libweft.so): optimizer state files
 * (weft_optimizer_save_states / weft_optimizer_load_states). Training N
 * steps, saving, and continuing M steps gives bit-identical weights to a
 * fresh optimizer that loads the file after N steps and continues M (RMSProp
 * centered and LARS with momentum); a load into another optimizer, a
 * missing file and a malformed one fail naming the file and change
 * nothing; NULL and freed handles. Every test ends with no leaked handle
 * or byte.
 */
#include <stdio.h>
#include <stdlib.h>

#include "c_test_util.h"

static char g_path[256];

static const char* tmp_path(const char* name) {
  const char* dir = getenv("TMPDIR");
  snprintf(g_path, sizeof(g_path), "%s/weft_c_optimizer_states_%s", dir && *dir ? dir : "/tmp",
           name);
  return g_path;
}

static const int64_t kShape[1] = {5};

/* Step `k`'s gradient. */
static WeftNDArray* grad(int k) {
  float g[5];
  int i;
  for (i = 0; i < 5; ++i) g[i] = 0.3f * (float)((i * 3 + k) % 7 - 3) + 0.05f * (float)k;
  return make_f32(kShape, 1, g);
}

static void train(WeftOptimizer* opt, WeftNDArray* w, int from, int steps) {
  int k;
  for (k = from; k < from + steps; ++k) {
    WeftNDArray* g = grad(k);
    OK(weft_optimizer_update(opt, 2, "fc_weight", w, g));
    OK(weft_ndarray_free(g));
  }
}

static void check_resume(const char* name, const char* const* keys, const char* const* vals,
                         size_t n) {
  const float w0[5] = {0.5f, -1.0f, 0.25f, 2.0f, -0.75f};
  float mid[5], a[5], b[5];
  const char* path = tmp_path(name);
  int64_t na = 0, nb = 0;
  WeftOptimizer *opt = NULL, *fresh = NULL;
  WeftNDArray *w = make_f32(kShape, 1, w0), *w2;
  OK(weft_optimizer_create(name, keys, vals, n, &opt));
  train(opt, w, 0, 3);
  OK(weft_optimizer_save_states(opt, path));
  read_f32(w, mid, 5);
  train(opt, w, 3, 4);
  read_f32(w, a, 5);

  OK(weft_optimizer_create(name, keys, vals, n, &fresh));
  OK(weft_optimizer_load_states(fresh, path));
  OK(weft_optimizer_num_update(fresh, &nb));
  assert_int_equal(nb, 3);
  w2 = make_f32(kShape, 1, mid);
  train(fresh, w2, 3, 4);
  read_f32(w2, b, 5);
  assert_memory_equal(a, b, sizeof(a));
  OK(weft_optimizer_num_update(opt, &na));
  OK(weft_optimizer_num_update(fresh, &nb));
  assert_int_equal(na, nb);
  remove(path);
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(w2));
  OK(weft_optimizer_free(opt));
  OK(weft_optimizer_free(fresh));
}

static void test_resume_is_exact(void** state) {
  const char* rk[] = {"learning_rate", "centered", "wd"};
  const char* rv[] = {"0.01", "True", "0.01"};
  const char* lk[] = {"learning_rate", "momentum", "wd", "eta"};
  const char* lv[] = {"0.1", "0.9", "0.001", "0.01"};
  (void)state;
  check_resume("rmsprop", rk, rv, 3);
  check_resume("lars", lk, lv, 4);
  check_resume("adam", NULL, NULL, 0);
  assert_no_leaks();
}

static void test_errors(void** state) {
  const char* mk[] = {"momentum"};
  const char* mv[] = {"0.9"};
  const float zeros[5] = {0, 0, 0, 0, 0};
  const char* path = tmp_path("errors");
  char bad_path[300];
  int64_t n = -1;
  FILE* f;
  WeftOptimizer *sgd = NULL, *adam = NULL, *stale = NULL;
  WeftNDArray* w = make_f32(kShape, 1, zeros);
  WeftNDArray* g = grad(1);
  (void)state;
  OK(weft_optimizer_create("sgd", mk, mv, 1, &sgd));
  OK(weft_optimizer_update(sgd, 0, "w", w, g));
  OK(weft_optimizer_save_states(sgd, path));
  OK(weft_optimizer_create("adam", NULL, NULL, 0, &adam));
  /* Another optimizer's states: named, and nothing changes. */
  EXPECT_ERR(weft_optimizer_load_states(adam, path), WEFT_ERR_INVALID_ARGUMENT, path,
             "saved by optimizer 'sgd'", "'adam'");
  OK(weft_optimizer_num_update(adam, &n));
  assert_int_equal(n, 0);
  /* Not a states file; a missing file. */
  snprintf(bad_path, sizeof(bad_path), "%s.bad", path);
  f = fopen(bad_path, "wb");
  assert_non_null(f);
  fputs("not an NDArray list", f);
  fclose(f);
  EXPECT_ERR(weft_optimizer_load_states(sgd, bad_path), WEFT_ERR_INVALID_ARGUMENT, bad_path);
  remove(bad_path);
  EXPECT_ERR(weft_optimizer_load_states(sgd, bad_path), WEFT_ERR_IO, bad_path);
  EXPECT_ERR(weft_optimizer_save_states(sgd, "/nonexistent-dir/x.states"), WEFT_ERR_IO,
             "/nonexistent-dir/x.states");
  /* Arguments and handles. */
  EXPECT_ERR(weft_optimizer_save_states(sgd, NULL), WEFT_ERR_INVALID_ARGUMENT, "path");
  EXPECT_ERR(weft_optimizer_load_states(NULL, path), WEFT_ERR_INVALID_ARGUMENT, "opt");
  EXPECT_ERR(weft_optimizer_save_states((WeftOptimizer*)w, path), WEFT_ERR_INVALID_HANDLE,
             "WeftNDArray");
  stale = adam;
  OK(weft_optimizer_free(adam));
  EXPECT_ERR(weft_optimizer_load_states(stale, path), WEFT_ERR_INVALID_HANDLE, "freed");
  /* The file still loads into a matching optimizer. */
  OK(weft_optimizer_load_states(sgd, path));
  OK(weft_optimizer_num_update(sgd, &n));
  assert_int_equal(n, 1);
  remove(path);
  OK(weft_optimizer_free(sgd));
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(g));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_resume_is_exact),
      TEST(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
