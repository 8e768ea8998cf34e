/*
 * weft_onnx_*: an ONNX model (LeNet exported from PyTorch by
 * scripts/make_onnx_import_models.py, tests/data/onnx/) imported as a symbol
 * and parameters, written as a checkpoint, and run by a predictor created
 * from the .onnx file, against PyTorch's stored output; the supported
 * operator list; errors naming every unsupported node; a model with
 * NonMaxSuppression through a cached op and through a predictor (each call's
 * rows reported, concurrent callers), and a selection of no box (an array of
 * no row); live handles back to their baseline.
 */
#include <math.h>
#include <pthread.h>
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
 * through a cached op: 9 of the 16 boxes survive, as in PyTorch. */
static void test_nms_through_cached_op(void** state) {
  WeftSymbolHandle* sym = NULL;
  WeftNDArrayList *args = NULL, *aux = NULL;
  WeftStringList* names = NULL;
  WeftCachedOp* op = NULL;
  WeftNDArray *in[8] = {NULL}, *out[2] = {NULL, NULL};
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
  assert_no_leaks();
}

/* The NMS head's inputs (features 16x8, anchors 16x4) back to back, and
 * PyTorch's outputs (boxes rows x 4, scores rows). */
struct NmsCase {
  float in[16 * 8 + 16 * 4];
  float *boxes, *scores;
  size_t n_boxes, n_scores;
};

static void load_nms_case(struct NmsCase* c) {
  size_t n0 = 0, n1 = 0;
  float* f = load_npy(ONNX_DIR "nms_head.input0.npy", &n0);
  float* a = load_npy(ONNX_DIR "nms_head.input1.npy", &n1);
  assert_int_equal(n0, 16 * 8);
  assert_int_equal(n1, 16 * 4);
  memcpy(c->in, f, sizeof(float) * n0);
  memcpy(c->in + n0, a, sizeof(float) * n1);
  free(f);
  free(a);
  c->boxes = load_npy(ONNX_DIR "nms_head.output0.npy", &c->n_boxes);
  c->scores = load_npy(ONNX_DIR "nms_head.output1.npy", &c->n_scores);
}

static const size_t kNmsIndPtr[3] = {0, 2, 4};
static const int64_t kNmsDims[4] = {16, 8, 16, 4};

/* One weft_predictor_predict_shaped() call with buffers of the outputs'
 * upper bounds (16x4 and 16); returns its status, the shapes in out_*. */
static WeftStatus predict_nms(WeftPredictor* p, const struct NmsCase* c, float* boxes,
                              float* scores, size_t* out_ind_ptr, int64_t* out_dims) {
  const void* in[2] = {c->in, c->in + 16 * 8};
  const size_t in_bytes[2] = {sizeof(float) * 16 * 8, sizeof(float) * 16 * 4};
  void* out[2] = {boxes, scores};
  const size_t out_bytes[2] = {sizeof(float) * 16 * 4, sizeof(float) * 16};
  return weft_predictor_predict_shaped(p, 2, in, in_bytes, kNmsIndPtr, kNmsDims, 2, out, out_bytes,
                                       out_ind_ptr, out_dims, 3);
}

static int nms_matches(const struct NmsCase* c, const float* boxes, const float* scores,
                       const size_t* ind_ptr, const int64_t* dims) {
  size_t i;
  if (ind_ptr[0] != 0 || ind_ptr[1] != 2 || ind_ptr[2] != 3) return 0;
  if ((size_t)(dims[0] * dims[1]) != c->n_boxes || dims[1] != 4) return 0;
  if ((size_t)dims[2] != c->n_scores) return 0;
  for (i = 0; i < c->n_boxes; ++i)
    if (fabsf(boxes[i] - c->boxes[i]) > 1e-5f * (fabsf(c->boxes[i]) + 1)) return 0;
  for (i = 0; i < c->n_scores; ++i)
    if (fabsf(scores[i] - c->scores[i]) > 1e-5f * (fabsf(c->scores[i]) + 1)) return 0;
  return 1;
}

struct NmsWorker {
  WeftPredictor* p;
  const struct NmsCase* c;
  int failures, mismatches;
};

static void* run_nms_worker(void* arg) {
  struct NmsWorker* w = (struct NmsWorker*)arg;
  int k;
  for (k = 0; k < 8; ++k) {
    float boxes[64], scores[16];
    size_t ind_ptr[3];
    int64_t dims[3];
    if (predict_nms(w->p, w->c, boxes, scores, ind_ptr, dims) != WEFT_OK)
      ++w->failures;
    else if (!nms_matches(w->c, boxes, scores, ind_ptr, dims))
      ++w->mismatches;
  }
  return NULL;
}

/* The same model served by a predictor from the .onnx file: it runs node by
 * node, reports the upper bounds as the output shapes and each call's rows
 * through weft_predictor_predict_shaped() (and its packed twin), equal to
 * PyTorch's, from several threads at once; the buffers of the bound without
 * the shapes, a short capacity and dynamic batching are refused. */
static void test_nms_predictor(void** state) {
  const char* inputs[2] = {"input0", "input1"};
  const char* batch_key[1] = {"max_batch"};
  const char* batch_val[1] = {"4"};
  WeftPredictor* p = NULL;
  struct NmsCase c;
  float boxes[64], scores[16], packed_out[80];
  size_t ind_ptr[3], ndim = 0, i;
  int64_t dims[3], shape[2];
  const size_t in_bytes[2] = {sizeof(float) * 16 * 8, sizeof(float) * 16 * 4};
  const size_t out_bytes[2] = {sizeof(float) * 64, sizeof(float) * 16};
  const void* in[2];
  void* out[2] = {boxes, scores};
  struct NmsWorker workers[4];
  pthread_t threads[4];
  (void)state;
  load_nms_case(&c);
  in[0] = c.in;
  in[1] = c.in + 16 * 8;
  assert_true(c.n_scores < 16);
  OK(weft_predictor_create_from_files(ONNX_DIR "nms_head.onnx", NULL, 2, inputs, kNmsIndPtr,
                                      kNmsDims, WEFT_CPU, 0, 0, NULL, 0, NULL, NULL, &p));
  OK(weft_predictor_output_shape(p, 2, kNmsIndPtr, kNmsDims, 0, shape, 2, &ndim));
  assert_int_equal(ndim, 2);
  assert_int_equal(shape[0], 16); /* every box kept: the buffer that always suffices */
  assert_int_equal(shape[1], 4);
  OK(predict_nms(p, &c, boxes, scores, ind_ptr, dims));
  assert_true(nms_matches(&c, boxes, scores, ind_ptr, dims));
  assert_int_equal(dims[0], (int64_t)c.n_scores); /* the rows of this call */
  OK(weft_predictor_predict_packed_shaped(p, 2, c.in, in_bytes, kNmsIndPtr, kNmsDims, 2, packed_out,
                                          out_bytes, ind_ptr, dims, 3));
  assert_true(nms_matches(&c, packed_out, packed_out + 64, ind_ptr, dims));
  EXPECT_ERR(weft_predictor_predict(p, 2, in, in_bytes, kNmsIndPtr, kNmsDims, 2, out, out_bytes),
             WEFT_ERR_INVALID_ARGUMENT, "depend on the input values",
             "weft_predictor_predict_shaped");
  EXPECT_ERR(weft_predictor_predict_shaped(p, 2, in, in_bytes, kNmsIndPtr, kNmsDims, 2, out,
                                           out_bytes, ind_ptr, dims, 2),
             WEFT_ERR_INVALID_ARGUMENT, "more than 'capacity' (2)");
  for (i = 0; i < 4; ++i) {
    struct NmsWorker w = {p, &c, 0, 0};
    workers[i] = w;
    assert_int_equal(pthread_create(&threads[i], NULL, run_nms_worker, &workers[i]), 0);
  }
  for (i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    assert_int_equal(workers[i].failures, 0);
    assert_int_equal(workers[i].mismatches, 0);
  }
  OK(weft_predictor_free(p));
  p = NULL;
  EXPECT_ERR(
      weft_predictor_create_from_files(ONNX_DIR "nms_head.onnx", NULL, 2, inputs, kNmsIndPtr,
                                       kNmsDims, WEFT_CPU, 0, 0, NULL, 1, batch_key, batch_val, &p),
      WEFT_ERR_INVALID_ARGUMENT, "cannot split outputs whose rows depend");
  assert_null(p);
  free(c.boxes);
  free(c.scores);
  assert_no_leaks();
}

/* A selection of no box through the C entries: a cached op of one
 * _onnx_NonMaxSuppression with a score threshold of 0.5 returns an array of
 * no row, (0, 3), for scores below it (size 0, a copy of no byte), and for
 * the ONNX specification's scores after that its two boxes above the
 * threshold that survive (box 4 overlaps box 3; box 5 scores 0.3). */
static void test_nms_no_box_through_cached_op(void** state) {
  const char* keys[4] = {"max_output_boxes_per_class", "iou_threshold", "score_threshold",
                         "use_score_threshold"};
  const char* vals[4] = {"3", "0.5", "0.5", "True"};
  const float boxes[24] = {0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                           0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101};
  const float low[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.45f, 0.5f};
  const float high[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};
  const int64_t box_shape[3] = {1, 6, 4}, score_shape[3] = {1, 1, 6};
  WeftSymbolHandle *nms = NULL, *args[2] = {NULL, NULL};
  WeftCachedOp* op = NULL;
  WeftNDArray *in[2], *out[1] = {NULL};
  int64_t shape[2] = {-1, -1}, size = -1, rows[9];
  size_t n_out = 0, k;
  (void)state;
  OK(weft_symbol_create_atomic("_onnx_NonMaxSuppression", keys, vals, 4, &nms));
  OK(weft_symbol_create_variable("boxes", &args[0]));
  OK(weft_symbol_create_variable("scores", &args[1]));
  OK(weft_symbol_compose(nms, "nms0", 2, NULL, args));
  OK(weft_cached_op_create(nms, 0, NULL, NULL, &op));
  in[0] = make_f32(box_shape, 3, boxes);
  for (k = 0; k < 2; ++k) {
    in[1] = make_f32(score_shape, 3, k == 0 ? low : high);
    OK(weft_cached_op_invoke(op, in, 2, out, 1, &n_out));
    assert_int_equal(n_out, 1);
    OK(weft_ndarray_shape(out[0], shape, 2));
    OK(weft_ndarray_size(out[0], &size));
    assert_int_equal(shape[0], k == 0 ? 0 : 2);
    assert_int_equal(shape[1], 3);
    assert_int_equal(size, k == 0 ? 0 : 6);
    OK(weft_ndarray_copy_to(out[0], rows, (size_t)size * sizeof(int64_t)));
    if (k == 1) {
      assert_int_equal(rows[2], 3); /* by score: boxes 3 (0.95) and 0 (0.9) */
      assert_int_equal(rows[5], 0);
    }
    OK(weft_ndarray_free(out[0]));
    OK(weft_ndarray_free(in[1]));
  }
  OK(weft_ndarray_free(in[0]));
  OK(weft_cached_op_free(op));
  for (k = 0; k < 2; ++k) OK(weft_symbol_free(args[k]));
  OK(weft_symbol_free(nms));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_import_lists, setup),
      cmocka_unit_test_setup(test_predictor_from_onnx, setup),
      cmocka_unit_test_setup(test_checkpoint, setup),
      cmocka_unit_test_setup(test_errors, setup),
      cmocka_unit_test_setup(test_nms_through_cached_op, setup),
      cmocka_unit_test_setup(test_nms_predictor, setup),
      cmocka_unit_test_setup(test_nms_no_box_through_cached_op, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
