/*
 * C ABI test (C99, CMocka, against libweft.so): weft_quantize_model and
 * weft_quantize_model_ex (MXNet's quantize_model / quantize_model_mkldnn)
 * on data -> fc1 (4) -> relu1 -> fc2 (3), calibrated (naive) on its own
 * data through weft_data_iter_create_ndarray. Channel-wise with fuse: both
 * layers become int8 _sg_mkldnn_fully_connected nodes with
 * channel_wise_quantize, and the model's outputs stay within the bound of
 * its int8 levels of the float32 model's; tensor-wise (NULL, and the old
 * entry) gives _contrib_quantized_fully_connected nodes; bad granularities
 * are errors naming the argument. Every test ends with no leaked handle or
 * byte (assert_no_leaks).
 */
#include "c_api_executor_util.h"

#define ROWS 16
#define IN 8
#define HIDDEN 4
#define OUT 3

static float g_x[ROWS * IN], g_w1[HIDDEN * IN], g_b1[HIDDEN], g_w2[OUT * HIDDEN], g_b2[OUT];

/* Data in [-2, 2]; fc1's output channels of magnitudes 0.02 .. 6 (one scale
 * for all of them would leave the small ones a few levels). */
static void fill_values(void) {
  static const float kMag[HIDDEN] = {0.02f, 0.3f, 1.5f, 6.0f};
  int i, c, j;
  for (i = 0; i < ROWS * IN; ++i) g_x[i] = (float)((i * 29 + 7) % 41 - 20) / 10.0f;
  for (c = 0; c < HIDDEN; ++c) {
    for (j = 0; j < IN; ++j) g_w1[c * IN + j] = kMag[c] * (float)((j * 37 + c * 11) % 17 - 8) / 8;
    g_b1[c] = 0.1f * (float)(c % 3) - 0.1f;
  }
  for (i = 0; i < OUT * HIDDEN; ++i) g_w2[i] = (float)(i * 7 % 11 - 5) / 10.0f;
  for (i = 0; i < OUT; ++i) g_b2[i] = 0.05f * (float)(i + 1);
}

/* op(args) named `name` with one parameter. */
static WeftSymbolHandle* layer(const char* op, const char* name, const char* key, const char* val,
                               WeftSymbolHandle** args, size_t n) {
  WeftSymbolHandle* s = NULL;
  OK(weft_symbol_create_atomic(op, &key, &val, 1, &s));
  OK(weft_symbol_compose(s, name, n, NULL, args));
  return s;
}

static WeftSymbolHandle* mlp(void) {
  WeftSymbolHandle *data = var("data"), *fc1, *relu, *fc2;
  fc1 = layer("FullyConnected", "fc1", "num_hidden", "4", &data, 1);
  relu = layer("Activation", "relu1", "act_type", "relu", &fc1, 1);
  fc2 = layer("FullyConnected", "fc2", "num_hidden", "3", &relu, 1);
  OK(weft_symbol_free(data));
  OK(weft_symbol_free(fc1));
  OK(weft_symbol_free(relu));
  return fc2;
}

/* The float32 parameters, named as the model's arguments. */
typedef struct {
  WeftNDArray* arr[4];
  const char* names[4];
} Params;

static Params make_params(void) {
  const int64_t s_w1[2] = {HIDDEN, IN}, s_b1[1] = {HIDDEN}, s_w2[2] = {OUT, HIDDEN},
                s_b2[1] = {OUT};
  Params p;
  p.names[0] = "fc1_weight";
  p.names[1] = "fc1_bias";
  p.names[2] = "fc2_weight";
  p.names[3] = "fc2_bias";
  p.arr[0] = make_f32(s_w1, 2, g_w1);
  p.arr[1] = make_f32(s_b1, 1, g_b1);
  p.arr[2] = make_f32(s_w2, 2, g_w2);
  p.arr[3] = make_f32(s_b2, 1, g_b2);
  return p;
}

static void free_params(Params* p) {
  int i;
  for (i = 0; i < 4; ++i) OK(weft_ndarray_free(p->arr[i]));
}

/* weft_quantize_model_ex on the MLP (fuse, naive calibration on all the
 * data in one batch), or the old entry when `old_entry`. Returns its status. */
static WeftStatus quantize(const char* granularity, const char* calib_mode, int old_entry,
                           WeftSymbolHandle** out_sym, WeftNDArrayList** out_args) {
  const int64_t s_x[2] = {ROWS, IN};
  const char* data_name = "data";
  WeftSymbolHandle* sym = mlp();
  Params p = make_params();
  WeftNDArray* x = make_f32(s_x, 2, g_x);
  WeftDataIter* it = NULL;
  WeftNDArrayList* out_aux = NULL;
  WeftStatus st;
  OK(weft_data_iter_create_ndarray(1, &data_name, &x, 0, NULL, NULL, ROWS, 0, NULL, 0, &it));
  if (old_entry)
    st = weft_quantize_model(sym, 4, p.names, p.arr, 0, NULL, NULL, it, calib_mode, -1, "int8",
                             "smart", 1, 0, NULL, 0, NULL, out_sym, out_args, &out_aux);
  else
    st = weft_quantize_model_ex(sym, 4, p.names, p.arr, 0, NULL, NULL, it, calib_mode, -1, "int8",
                                "smart", granularity, 1, 0, NULL, 0, NULL, out_sym, out_args,
                                &out_aux);
  if (st == WEFT_OK) OK(weft_ndarray_list_free(out_aux));
  OK(weft_data_iter_free(it));
  OK(weft_ndarray_free(x));
  free_params(&p);
  OK(weft_symbol_free(sym));
  return st;
}

/* The symbol's JSON, copied into `buf`. */
static void json_of(const WeftSymbolHandle* sym, char* buf, size_t cap) {
  WeftStringList* l = NULL;
  const char* s = NULL;
  OK(weft_symbol_to_json(sym, &l));
  OK(weft_string_list_get(l, 0, &s));
  assert_true(strlen(s) < cap);
  strcpy(buf, s);
  OK(weft_string_list_free(l));
}

static int count(const char* text, const char* sub) {
  int n = 0;
  for (text = strstr(text, sub); text; text = strstr(text + 1, sub)) ++n;
  return n;
}

/* Runs `sym` on the data with the arguments of the named list `args` (the
 * float32 parameters when NULL) into out[ROWS * OUT]. */
static void run(const WeftSymbolHandle* sym, const WeftNDArrayList* args, float* out) {
  const int64_t s_x[2] = {ROWS, IN};
  WeftStringList* names = NULL;
  WeftNDArray* bound[16];
  WeftNDArray* owned[16];
  WeftExecutor* ex = NULL;
  Params p = make_params();
  size_t n = 0, i, j, size = 0;
  int named = 0;
  OK(weft_symbol_list_arguments(sym, &names));
  OK(weft_string_list_size(names, &n));
  assert_true(n <= 16);
  for (i = 0; i < n; ++i) {
    const char* name = NULL;
    owned[i] = bound[i] = NULL;
    OK(weft_string_list_get(names, i, &name));
    if (strcmp(name, "data") == 0) {
      owned[i] = make_f32(s_x, 2, g_x);
    } else if (args) {
      OK(weft_ndarray_list_size(args, &size, &named));
      for (j = 0; j < size && !owned[i]; ++j) {
        const char* got = NULL;
        OK(weft_ndarray_list_name(args, j, &got));
        if (strcmp(got, name) == 0) owned[i] = list_get(args, j);
      }
    } else {
      for (j = 0; j < 4; ++j)
        if (strcmp(p.names[j], name) == 0) bound[i] = p.arr[j];
    }
    if (owned[i]) bound[i] = owned[i];
    if (!bound[i]) fail_msg("no array for argument %s", name);
  }
  OK(weft_executor_bind(sym, WEFT_CPU, 0, bound, n, NULL, NULL, NULL, 0, &ex));
  OK(weft_executor_forward(ex, 0));
  read_result(ex, 0, 0, out, ROWS * OUT);
  OK(weft_executor_free(ex));
  for (i = 0; i < n; ++i) OK(weft_ndarray_free(owned[i]));
  OK(weft_string_list_free(names));
  free_params(&p);
}

static float max_abs(const float* v, int n) {
  float m = 0;
  int i;
  for (i = 0; i < n; ++i) m = fmaxf(m, fabsf(v[i]));
  return m;
}

/* The largest |v[c * n + j]| over j: row c's MaxAbs. */
static float row_max(const float* v, int c, int n) { return max_abs(v + c * n, n); }

/* Channel-wise: two fused int8 layers with per-channel weight scales (their
 * float32 weights kept), fc1 writing uint8 levels of relu1's calibrated
 * range, fc2 float32. With lx = MaxAbs(x) / 127.5 the data's level, lw a
 * channel's weight level (its MaxAbs / 127.5) and l1 = max(y1) / 255.5 the
 * level of fc1's output, each rounding is at most half a level (the bias's
 * in units of lx lw), and relu is 1-Lipschitz, so
 *   fc1: |dy1| <= sum_j (|w1| lx / 2 + |x| lw1 / 2 + lx lw1 / 4) + lx lw1 / 2 + l1 / 2
 *   fc2: |dy2| <= sum_h (|w2| |dy1| + (y1 + |dy1|) lw2 / 2) + l1 lw2 / 2
 * (fc2 reads fc1's uint8 levels exactly). */
static void test_channel_wise(void** state) {
  static char json[65536];
  WeftSymbolHandle *q = NULL, *f = NULL;
  WeftNDArrayList* args = NULL;
  float want[ROWS * OUT], got[ROWS * OUT], y1[ROWS * HIDDEN], worst = 0, top = 0, lx, l1;
  int r, c, h, j;
  (void)state;
  fill_values();
  OK(quantize("channel-wise", "naive", 0, &q, &args));
  json_of(q, json, sizeof json);
  assert_int_equal(count(json, "\"op\": \"_sg_mkldnn_fully_connected\""), 2);
  assert_int_equal(count(json, "\"channel_wise_quantize\": \"True\""), 2);
  assert_int_equal(count(json, "_contrib_quantized_fully_connected"), 0);
  assert_int_equal(count(json, "\"enable_float_output\": \"True\""), 1);
  f = mlp();
  run(f, NULL, want);
  run(q, args, got);
  for (r = 0; r < ROWS; ++r)
    for (h = 0; h < HIDDEN; ++h) {
      float v = g_b1[h];
      for (j = 0; j < IN; ++j) v += g_x[r * IN + j] * g_w1[h * IN + j];
      y1[r * HIDDEN + h] = fmaxf(v, 0);
      top = fmaxf(top, v);
    }
  lx = max_abs(g_x, ROWS * IN) / 127.5f;
  l1 = top / 255.5f;
  for (r = 0; r < ROWS; ++r)
    for (c = 0; c < OUT; ++c) {
      const float lw2 = row_max(g_w2, c, HIDDEN) / 127.5f;
      float bound = l1 * lw2 / 2, err = fabsf(got[r * OUT + c] - want[r * OUT + c]);
      for (h = 0; h < HIDDEN; ++h) {
        const float lw1 = row_max(g_w1, h, IN) / 127.5f;
        float dy1 = lx * lw1 / 2 + l1 / 2;
        for (j = 0; j < IN; ++j)
          dy1 += fabsf(g_w1[h * IN + j]) * lx / 2 + fabsf(g_x[r * IN + j]) * lw1 / 2 + lx * lw1 / 4;
        bound += fabsf(g_w2[c * HIDDEN + h]) * dy1 + (y1[r * HIDDEN + h] + dy1) * lw2 / 2;
      }
      if (err > bound * 1.001f + 1e-5f)
        fail_msg("output (%d, %d): got %g, float32 %g, off by more than the bound %g", r, c,
                 (double)got[r * OUT + c], (double)want[r * OUT + c], (double)bound);
      worst = fmaxf(worst, err);
    }
  /* The int8 layers ran: float32 alone would agree to ~1e-6. */
  assert_true(worst > 1e-4f);
  OK(weft_symbol_free(f));
  OK(weft_symbol_free(q));
  OK(weft_ndarray_list_free(args));
  assert_no_leaks();
}

/* NULL is tensor-wise, and the old entry is the new one with NULL: both
 * give the same quantized FullyConnected graph. */
static void test_tensor_wise_default(void** state) {
  static char a[65536], b[65536], c[65536];
  WeftSymbolHandle* q = NULL;
  WeftNDArrayList* args = NULL;
  (void)state;
  fill_values();
  OK(quantize(NULL, "naive", 0, &q, &args));
  json_of(q, a, sizeof a);
  OK(weft_symbol_free(q));
  OK(weft_ndarray_list_free(args));
  OK(quantize(NULL, "naive", 1, &q, &args));
  json_of(q, b, sizeof b);
  OK(weft_symbol_free(q));
  OK(weft_ndarray_list_free(args));
  OK(quantize("tensor-wise", "naive", 0, &q, &args));
  json_of(q, c, sizeof c);
  OK(weft_symbol_free(q));
  OK(weft_ndarray_list_free(args));
  assert_string_equal(a, b);
  assert_string_equal(a, c);
  assert_int_equal(count(a, "\"op\": \"_contrib_quantized_fully_connected\""), 2);
  assert_int_equal(count(a, "channel_wise_quantize"), 0);
  assert_no_leaks();
}

static void test_bad_granularity(void** state) {
  WeftSymbolHandle* q = NULL;
  WeftNDArrayList* args = NULL;
  (void)state;
  fill_values();
  EXPECT_ERR(quantize("per-channel", "naive", 0, &q, &args), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'quantize_granularity'", "\"tensor-wise\", \"channel-wise\" or NULL",
             "given \"per-channel\"");
  EXPECT_ERR(quantize("Channel-Wise", "naive", 0, &q, &args), WEFT_ERR_INVALID_ARGUMENT,
             "given \"Channel-Wise\"");
  /* Per-channel scales need a calibrated (or float32) output. */
  EXPECT_ERR(quantize("channel-wise", "none", 0, &q, &args), WEFT_ERR_INVALID_ARGUMENT,
             "channel-wise", "calib_mode is none");
  assert_null(q);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_channel_wise),
      TEST(test_tensor_wise_default),
      TEST(test_bad_granularity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
