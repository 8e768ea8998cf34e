/*
 * weft_onnx_*: an ONNX model (LeNet exported from PyTorch by
 * scripts/make_onnx_import_models.py, tests/data/onnx/) imported as a symbol
 * and parameters, written as a checkpoint, and run by a predictor created
 * from the .onnx file, against PyTorch's stored output; the supported
 * operator list; errors naming every unsupported node; live handles back to
 * their baseline.
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_import_lists, setup),
      cmocka_unit_test_setup(test_predictor_from_onnx, setup),
      cmocka_unit_test_setup(test_checkpoint, setup),
      cmocka_unit_test_setup(test_errors, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
