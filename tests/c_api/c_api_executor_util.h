/*
 * Helpers shared by the executor C ABI tests (c_api_executor_*_test.c): the
 * a*b + b*c graph bound by simple_bind with fixed values, and list access.
 * Included once per test binary.
 */
#ifndef WEFT_TESTS_C_API_C_API_EXECUTOR_UTIL_H_
#define WEFT_TESTS_C_API_C_API_EXECUTOR_UTIL_H_

#include "c_api_symbol_util.h"

static const int64_t k23[2] = {2, 3};

/* Array `index` of `list` (a new handle, NULL for a none entry). */
static inline WeftNDArray* list_get(const WeftNDArrayList* list, size_t index) {
  WeftNDArray* a = NULL;
  OK(weft_ndarray_list_get(list, index, &a));
  return a;
}

static inline void expect_list_names(const WeftNDArrayList* list, const char* const* names,
                                     size_t n) {
  size_t size = 0, i;
  int named = 0;
  OK(weft_ndarray_list_size(list, &size, &named));
  assert_int_equal(size, n);
  assert_int_equal(named, 1);
  for (i = 0; i < n; ++i) {
    const char* s = NULL;
    OK(weft_ndarray_list_name(list, i, &s));
    assert_string_equal(s, names[i]);
  }
}

/* Copies `data` into array `index` of the executor's arguments. */
static inline void set_arg(const WeftExecutor* ex, size_t index, const float* data, size_t n) {
  WeftNDArrayList* args = NULL;
  WeftNDArray* a;
  OK(weft_executor_arg_arrays(ex, &args));
  a = list_get(args, index);
  OK(weft_ndarray_copy_from(a, data, n * sizeof(float)));
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_list_free(args));
}

/* Reads `n` floats of output (grads = 0) or gradient (grads = 1) `index`. */
static inline void read_result(const WeftExecutor* ex, int grads, size_t index, float* out,
                               size_t n) {
  WeftNDArrayList* l = NULL;
  WeftNDArray* a;
  OK(grads ? weft_executor_grad_arrays(ex, &l) : weft_executor_outputs(ex, &l));
  a = list_get(l, index);
  assert_non_null(a);
  read_f32(a, out, n);
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_list_free(l));
}

/* simple_bind of a*b + b*c with a, b, c of shape `shape` (2 dims). */
static inline WeftExecutor* bind_abc(const WeftSymbolHandle* sym, const int64_t* shape,
                                     const char* req) {
  const char* names[3] = {"a", "b", "c"};
  const size_t ind_ptr[4] = {0, 2, 4, 6};
  int64_t dims[6];
  WeftExecutor* ex = NULL;
  int i;
  for (i = 0; i < 3; ++i) {
    dims[2 * i] = shape[0];
    dims[2 * i + 1] = shape[1];
  }
  OK(weft_executor_simple_bind(sym, WEFT_CPU, 0, 3, names, ind_ptr, dims, 0, NULL, NULL, req, &ex));
  return ex;
}

static const float kA[6] = {1, 2, 3, 4, 5, 6};
static const float kB[6] = {0.5f, -1, 2, 3, -0.25f, 1.5f};
static const float kC[6] = {-2, 0, 1, 7, 2, -3};
static const float kG[6] = {1, -1, 2, 0.5f, 3, -2};

static inline void set_abc(const WeftExecutor* ex) {
  set_arg(ex, 0, kA, 6);
  set_arg(ex, 1, kB, 6);
  set_arg(ex, 2, kC, 6);
}

#endif /* WEFT_TESTS_C_API_C_API_EXECUTOR_UTIL_H_ */
