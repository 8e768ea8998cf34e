/*
 * ndarray_demo: an imperative NDArray program written against the C ABI.
 *
 * It creates arrays, runs elementwise, broadcast, scalar, dot, reduction,
 * quadratic, relu and random operators, takes views, and prints every
 * result's dtype, shape and values. Every call's status is checked: on a
 * failure the demo prints weft_last_error(), frees what it made and exits 1.
 *
 *   $ ndarray_demo
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/c_api.h"

/* Checks a weft_ call; on failure prints the library's message and makes the
 * enclosing function return -1. */
#define CHECK(call)                                                                              \
  do {                                                                                           \
    WeftStatus check_status_ = (call);                                                           \
    if (check_status_ != WEFT_OK) {                                                              \
      fprintf(stderr, "ndarray_demo: %s failed (status %d):\n  %s\n", #call, (int)check_status_, \
              weft_last_error());                                                                \
      return -1;                                                                                 \
    }                                                                                            \
  } while (0)

/* Every array the demo creates, freed at the end (or on failure). */
#define MAX_ARRAYS 64
static WeftNDArray* g_arrays[MAX_ARRAYS];
static int g_num_arrays;

static WeftNDArray* track(WeftNDArray* a) {
  if (g_num_arrays == MAX_ARRAYS) {
    fprintf(stderr, "ndarray_demo: too many arrays\n");
    exit(1);
  }
  g_arrays[g_num_arrays++] = a;
  return a;
}

static int free_all(void) {
  int status = 0;
  while (g_num_arrays > 0) {
    if (weft_ndarray_free(g_arrays[--g_num_arrays]) != WEFT_OK) {
      fprintf(stderr, "ndarray_demo: weft_ndarray_free failed: %s\n", weft_last_error());
      status = -1;
    }
  }
  return status;
}

/* A float32 cpu(0) array of `shape` filled with `data`. */
static int make(const int64_t* shape, int ndim, const float* data, WeftNDArray** out) {
  WeftNDArray* a = NULL;
  int64_t size = 0;
  CHECK(weft_ndarray_create(shape, ndim, WEFT_FLOAT32, WEFT_CPU, 0, &a));
  track(a);
  CHECK(weft_ndarray_size(a, &size));
  CHECK(weft_ndarray_copy_from(a, data, (size_t)size * sizeof(float)));
  *out = a;
  return 0;
}

/* Runs a one-output operator; params are "key", "value" pairs. */
static int invoke(const char* op, WeftNDArray** inputs, size_t num_inputs, const char** kv,
                  size_t num_params, WeftNDArray** out) {
  const char* keys[8];
  const char* vals[8];
  WeftNDArray* outputs[4];
  size_t i, num_outputs = 0;
  if (num_params > 8) {
    fprintf(stderr, "ndarray_demo: too many parameters for %s\n", op);
    return -1;
  }
  for (i = 0; i < num_params; ++i) {
    keys[i] = kv[2 * i];
    vals[i] = kv[2 * i + 1];
  }
  if (weft_op_invoke(op, inputs, num_inputs, keys, vals, num_params, outputs, 4, &num_outputs) !=
      WEFT_OK) {
    fprintf(stderr, "ndarray_demo: operator '%s' failed (status %d):\n  %s\n", op,
            (int)weft_last_error_code(), weft_last_error());
    return -1;
  }
  for (i = 0; i < num_outputs; ++i) track(outputs[i]);
  *out = outputs[0];
  return 0;
}

static const char* dtype_name(int dtype) {
  static const char* const kNames[] = {"float32", "float64", "float16", "uint8",
                                       "int32",   "int8",    "int64"};
  return dtype >= 0 && dtype <= 6 ? kNames[dtype] : "?";
}

/* Prints `v` (row-major, `ndim` extents in `shape`) as nested brackets. */
static void print_values(const double* v, const int64_t* shape, int ndim, int depth, int indent) {
  int64_t i, stride = 1;
  int d;
  if (ndim == 0) {
    printf("%g", v[0]);
    return;
  }
  for (d = 1; d < ndim; ++d) stride *= shape[d];
  printf("[");
  for (i = 0; i < shape[0]; ++i) {
    if (i > 0) {
      if (ndim > 1)
        printf(",\n%*s", indent + depth + 1, "");
      else
        printf(", ");
    }
    print_values(v + i * stride, shape + 1, ndim - 1, depth + 1, indent);
  }
  printf("]");
}

/* Prints "name: float32 (2,3) =" and the values of `a`. */
static int show(const char* name, const WeftNDArray* a) {
  int64_t shape[32];
  int64_t size = 0, i;
  int ndim = 0, dtype = 0, d, indent;
  double* values;
  CHECK(weft_ndarray_ndim(a, &ndim));
  CHECK(weft_ndarray_shape(a, shape, 32));
  CHECK(weft_ndarray_size(a, &size));
  CHECK(weft_ndarray_dtype(a, &dtype));
  printf("%s: %s (", name, dtype_name(dtype));
  for (d = 0; d < ndim; ++d) printf(d ? ",%lld" : "%lld", (long long)shape[d]);
  printf(ndim == 1 ? ",) =\n" : ") =\n");

  values = (double*)malloc((size_t)size * sizeof(double));
  if (!values) {
    fprintf(stderr, "ndarray_demo: out of memory\n");
    return -1;
  }
  if (dtype == WEFT_FLOAT32) {
    float* f = (float*)malloc((size_t)size * sizeof(float));
    if (!f || weft_ndarray_copy_to(a, f, (size_t)size * sizeof(float)) != WEFT_OK) {
      fprintf(stderr, "ndarray_demo: reading %s failed: %s\n", name,
              f ? weft_last_error() : "out of memory");
      free(f);
      free(values);
      return -1;
    }
    for (i = 0; i < size; ++i) values[i] = f[i];
    free(f);
  } else if (dtype == WEFT_FLOAT64) {
    if (weft_ndarray_copy_to(a, values, (size_t)size * sizeof(double)) != WEFT_OK) {
      fprintf(stderr, "ndarray_demo: reading %s failed: %s\n", name, weft_last_error());
      free(values);
      return -1;
    }
  } else {
    printf("  (values of dtype %s are not printed)\n", dtype_name(dtype));
    free(values);
    return 0;
  }
  indent = 2;
  printf("%*s", indent, "");
  print_values(values, shape, ndim, 0, indent);
  printf("\n\n");
  free(values);
  return 0;
}

static int run(void) {
  const int64_t s23[2] = {2, 3}, s13[2] = {1, 3}, s32[2] = {3, 2};
  const float xv[6] = {1, 2, 3, 4, 5, 6};
  const float yv[6] = {10, 20, 30, 40, 50, 60};
  const float rowv[3] = {1, 0.5f, -1};
  const float wv[6] = {1, 0, 0, 1, 1, 1};
  WeftNDArray *x, *y, *row, *w, *r, *view, *rows;
  size_t num_ops = 0, live = 0, pooled = 0;
  int req = WEFT_REQ_ADD;

  printf("libweft %s (C ABI version %d)\n", weft_version(), weft_abi_version());
  CHECK(weft_op_count(&num_ops));
  printf("%zu operators registered\n\n", num_ops);

  if (make(s23, 2, xv, &x) || make(s23, 2, yv, &y) || make(s13, 2, rowv, &row) ||
      make(s32, 2, wv, &w))
    return -1;
  if (show("x", x) || show("y", y) || show("row", row) || show("w", w)) return -1;

  {
    WeftNDArray* in[2];
    in[0] = x;
    in[1] = y;
    if (invoke("elemwise_add", in, 2, NULL, 0, &r) || show("elemwise_add(x, y)", r)) return -1;
  }
  {
    WeftNDArray* in[2];
    in[0] = x;
    in[1] = row;
    if (invoke("broadcast_mul", in, 2, NULL, 0, &r) || show("broadcast_mul(x, row)", r)) return -1;
  }
  {
    const char* kv[] = {"scalar", "2.5"};
    if (invoke("_mul_scalar", &x, 1, kv, 1, &r) || show("_mul_scalar(x, scalar=2.5)", r)) return -1;
  }
  {
    WeftNDArray* in[2];
    in[0] = x;
    in[1] = w;
    if (invoke("dot", in, 2, NULL, 0, &r) || show("dot(x, w)", r)) return -1;
  }
  if (invoke("sum", &x, 1, NULL, 0, &r) || show("sum(x)", r)) return -1;
  {
    const char* kv[] = {"axis", "1"};
    if (invoke("sum", &x, 1, kv, 1, &r) || show("sum(x, axis=1)", r)) return -1;
  }
  {
    const char* kv[] = {"a", "1", "b", "-2", "c", "1"};
    if (invoke("quadratic", &x, 1, kv, 3, &r) || show("quadratic(x, a=1, b=-2, c=1)", r)) return -1;
  }
  {
    /* relu(x - 3.5), with the shift done by quadratic (a=0, b=1, c=-3.5). */
    const char* kv[] = {"b", "1", "c", "-3.5"};
    WeftNDArray* shifted;
    if (invoke("quadratic", &x, 1, kv, 2, &shifted) || invoke("relu", &shifted, 1, NULL, 0, &r) ||
        show("relu(x - 3.5)", r))
      return -1;
  }
  {
    const char* kv[] = {"low", "-1", "high", "1", "shape", "(2, 3)"};
    CHECK(weft_random_seed(42));
    if (invoke("_random_uniform", NULL, 0, kv, 3, &r) ||
        show("_random_uniform(low=-1, high=1, shape=(2,3)) after seed 42", r))
      return -1;
  }

  /* Accumulate into an existing array: y += quadratic(x, b=1) = x. */
  {
    const char* keys[] = {"b"};
    const char* vals[] = {"1"};
    CHECK(weft_op_invoke_into("quadratic", &x, 1, keys, vals, 1, &y, 1, &req));
    if (show("y after y += x (invoke_into, req=add)", y)) return -1;
  }

  /* Views share storage with their base. */
  CHECK(weft_ndarray_reshape(x, s32, 2, &view));
  track(view);
  if (show("reshape(x, (3,2))", view)) return -1;
  CHECK(weft_ndarray_slice(view, 1, 3, &rows));
  track(rows);
  if (show("reshape(x, (3,2))[1:3]", rows)) return -1;

  CHECK(weft_wait_all());
  CHECK(weft_storage_stats(WEFT_CPU, 0, &live, &pooled));
  printf("cpu(0) storage: %zu bytes live, %zu bytes pooled, %zu handles\n", live, pooled,
         weft_live_handle_count());
  return 0;
}

int main(void) {
  int status = run();
  if (free_all() != 0) status = -1;
  if (status == 0 && weft_live_handle_count() != 0) {
    fprintf(stderr, "ndarray_demo: %zu handles leaked\n", weft_live_handle_count());
    status = -1;
  }
  if (status != 0) {
    fprintf(stderr, "ndarray_demo: FAILED\n");
    return 1;
  }
  printf("after freeing everything: %zu handles\n", weft_live_handle_count());
  return 0;
}
