/*
 * weft_onnx_*: an ONNX model (LeNet exported from PyTorch by
 * scripts/make_onnx_import_models.py, tests/data/onnx/) imported as a symbol
 * and parameters, written as a checkpoint, and run by a predictor created
 * from the .onnx file, against PyTorch's stored output; the supported
 * operator list; errors naming every unsupported node; a model with
 * NonMaxSuppression through a cached op; live handles back to their baseline.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "c_test_util.h"

#define ONNX_DIR WEFT_TEST_DATA "/onnx/"

static float* load_npy(const char* path, size_t* count) {
  WeftNDArray* a = NULL;
  int64_t n = 0;
  float* v;
  OK(weft_ndarray_load_npy(path, &a));
  OK(weft_ndarray_size(a, &n));
  v = malloc((size_t)n * sizeof(float));
  read_f32(a, v, (size_t)n);
  OK(weft_ndarray_free(a));
  *count = (size_t)n;
  return v;
}

static void test_import_lists(void** state) {
  WeftSymbolHandle* sym = NULL;
  WeftNDArrayList *args = NULL, *aux = NULL;
  WeftStringList* names = NULL;
  size_t n = 0;
  int named = 0;
  (void)state;
  OK(weft_onnx_import(ONNX_DIR "resnet.onnx", 0, NULL, NULL, NULL, &sym, &args, &aux));
  OK(weft_ndarray_list_size(aux, &n, &named));
  assert_int_equal(n, 24); /* 12 BatchNorms' running mean and variance */
  OK(weft_symbol_list_auxiliary_states(sym, &names));
  OK(weft_string_list_size(names, &n));
  assert_int_equal(n, 24);
  OK(weft_string_list_free(names));
  OK(weft_ndarray_list_free(aux));
  OK(weft_ndarray_list_free(args));
  OK(weft_symbol_free(sym));
  OK(weft_onnx_supported_ops(&names));
  OK(weft_string_list_size(names, &n));
  assert_true(n > 50);
  OK(weft_string_list_free(names));
  assert_no_leaks();
}

static void test_predictor_from_onnx(void** state) {
  const char* inputs[1] = {"input0"};
  const size_t ind_ptr[2] = {0, 4};
  const int64_t dims[4] = {2, 1, 28, 28};
  WeftPredictor* p = NULL;
  float out[20];
  size_t n_in = 0, n_ref = 0, i;
  float *in, *ref;
  (void)state;
  in = load_npy(ONNX_DIR "lenet.input0.npy", &n_in);
  ref = load_npy(ONNX_DIR "lenet.output0.npy", &n_ref);
  assert_int_equal(n_ref, 20);
  OK(weft_predictor_create_from_files(ONNX_DIR "lenet.onnx", NULL, 1, inputs, ind_ptr, dims,
                                      WEFT_CPU, 0, 0, NULL, 0, NULL, NULL, &p));
  OK(weft_predictor_predict_float(p, in, n_in, dims, 4, out, 20));
  for (i = 0; i < 20; ++i) assert_true(fabsf(out[i] - ref[i]) <= 1e-5f * (fabsf(ref[i]) + 1));
  OK(weft_predictor_free(p));
  EXPECT_ERR(weft_predictor_create_from_files(ONNX_DIR "lenet.onnx", "x.params", 1, inputs, ind_ptr,
                                              dims, WEFT_CPU, 0, 0, NULL, 0, NULL, NULL, &p),
             WEFT_ERR_INVALID_ARGUMENT, "carries its parameters");
  free(in);
  free(ref);
  assert_no_leaks();
}

static void test_checkpoint(void** state) {
  char prefix[256], path[300];
  WeftSymbolHandle* sym = NULL;
  WeftNDArrayList *args = NULL, *aux = NULL;
  size_t n = 0;
  int named = 0;
  const char* names[1] = {"input0"};
  const size_t ind_ptr[2] = {0, 2};
  const int64_t dims[2] = {3, 20};
  (void)state;
  snprintf(prefix, sizeof prefix, "/tmp/weft_onnx_c_%d", (int)getpid());
  OK(weft_onnx_import_checkpoint(ONNX_DIR "mlp.onnx", prefix, 1, names, ind_ptr, dims));
  OK(weft_checkpoint_load(prefix, 0, &sym, &args, &aux));
  OK(weft_ndarray_list_size(args, &n, &named));
  assert_int_equal(n, 4); /* fc1/fc2 weight and bias */
  OK(weft_ndarray_list_free(aux));
  OK(weft_ndarray_list_free(args));
  OK(weft_symbol_free(sym));
  snprintf(path, sizeof path, "%s-symbol.json", prefix);
  assert_int_equal(remove(path), 0);
  snprintf(path, sizeof path, "%s-0000.params", prefix);
  assert_int_equal(remove(path), 0);
  assert_no_leaks();
}

static void test_errors(void** state) {
  WeftSymbolHandle* sym = NULL;
  WeftNDArrayList *args = NULL, *aux = NULL;
  (void)state;
  EXPECT_ERR(
      weft_onnx_import(ONNX_DIR "bad_unsupported.onnx", 0, NULL, NULL, NULL, &sym, &args, &aux),
      WEFT_ERR_NOT_IMPLEMENTED, "'the_det' (Det)", "'the_hardmax' (Hardmax)");
  EXPECT_ERR(weft_onnx_import(ONNX_DIR "bad_opset.onnx", 0, NULL, NULL, NULL, &sym, &args, &aux),
             WEFT_ERR_INVALID_ARGUMENT, "opset 99");
  EXPECT_ERR(weft_onnx_import(ONNX_DIR "missing.onnx", 0, NULL, NULL, NULL, &sym, &args, &aux),
             WEFT_ERR_IO, "missing.onnx");
  EXPECT_ERR(weft_onnx_import(NULL, 0, NULL, NULL, NULL, &sym, &args, &aux),
             WEFT_ERR_INVALID_ARGUMENT, "path");
  assert_null(sym);
  assert_no_leaks();
}

/* The imported parameter of `name` (the list's names may carry "arg:"), or NULL. */
static WeftNDArray* find_param(const WeftNDArrayList* args, const char* name) {
  size_t n = 0, i;
  int named = 0;
  WeftNDArray* a = NULL;
  OK(weft_ndarray_list_size(args, &n, &named));
  for (i = 0; i < n; ++i) {
    const char* key = NULL;
    OK(weft_ndarray_list_name(args, i, &key));
    if (strncmp(key, "arg:", 4) == 0) key += 4;
    if (strcmp(key, name) == 0) {
      OK(weft_ndarray_list_get(args, i, &a));
      return a;
    }
  }
  return NULL;
}

/* torchvision's nms (NonMaxSuppression, a data-dependent row count) runs
 * through a cached op: 9 of the 16 boxes survive, as in PyTorch; a predictor
 * refuses the model, naming the way that works. */
static void test_nms_through_cached_op(void** state) {
  WeftSymbolHandle* sym = NULL;
  WeftNDArrayList *args = NULL, *aux = NULL;
  WeftStringList* names = NULL;
  WeftCachedOp* op = NULL;
  WeftNDArray *in[8] = {NULL}, *out[2] = {NULL, NULL};
  WeftPredictor* p = NULL;
  const char* inputs[2] = {"input0", "input1"};
  const size_t ind_ptr[3] = {0, 2, 4};
  const int64_t dims[4] = {16, 8, 16, 4};
  size_t n_in = 0, n_out = 0, n_ref = 0, i;
  int64_t shape[2] = {0, 0};
  float got[64], *ref;
  (void)state;
  OK(weft_onnx_import(ONNX_DIR "nms_head.onnx", 0, NULL, NULL, NULL, &sym, &args, &aux));
  OK(weft_cached_op_create(sym, 0, NULL, NULL, &op));
  OK(weft_cached_op_list_inputs(op, &names));
  OK(weft_string_list_size(names, &n_in));
  assert_true(n_in <= 8);
  for (i = 0; i < n_in; ++i) {
    const char* name = NULL;
    OK(weft_string_list_get(names, i, &name));
    if (strcmp(name, "input0") == 0 || strcmp(name, "input1") == 0) {
      char path[256];
      snprintf(path, sizeof path, ONNX_DIR "nms_head.%s.npy", name);
      OK(weft_ndarray_load_npy(path, &in[i]));
    } else {
      in[i] = find_param(args, name);
    }
    assert_non_null(in[i]);
  }
  OK(weft_cached_op_invoke(op, in, n_in, out, 2, &n_out));
  assert_int_equal(n_out, 2);
  OK(weft_ndarray_shape(out[0], shape, 2));
  ref = load_npy(ONNX_DIR "nms_head.output0.npy", &n_ref);
  assert_int_equal(shape[0] * 4, (int64_t)n_ref);
  assert_true(n_ref < 64 && shape[0] < 16);
  read_f32(out[0], got, n_ref);
  for (i = 0; i < n_ref; ++i) assert_true(fabsf(got[i] - ref[i]) <= 1e-5f * (fabsf(ref[i]) + 1));
  free(ref);
  for (i = 0; i < 2; ++i) OK(weft_ndarray_free(out[i]));
  for (i = 0; i < n_in; ++i) OK(weft_ndarray_free(in[i]));
  OK(weft_string_list_free(names));
  OK(weft_cached_op_free(op));
  OK(weft_ndarray_list_free(aux));
  OK(weft_ndarray_list_free(args));
  OK(weft_symbol_free(sym));
  EXPECT_ERR(weft_predictor_create_from_files(ONNX_DIR "nms_head.onnx", NULL, 2, inputs, ind_ptr,
                                              dims, WEFT_CPU, 0, 0, NULL, 0, NULL, NULL, &p),
             WEFT_ERR_INVALID_ARGUMENT, "run the model through a CachedOp");
  assert_null(p);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_import_lists, setup),
      cmocka_unit_test_setup(test_predictor_from_onnx, setup),
      cmocka_unit_test_setup(test_checkpoint, setup),
      cmocka_unit_test_setup(test_errors, setup),
      cmocka_unit_test_setup(test_nms_through_cached_op, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
