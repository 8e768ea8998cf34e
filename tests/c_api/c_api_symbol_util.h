/*
 * Helpers shared by the symbol C ABI tests (c_api_symbol_*_test.c): list
 * comparison, small graph builders and shape checks, on top of c_test_util.h
 * (OK, EXPECT_ERR, setup, assert_no_leaks). Included once per test binary.
 */
#ifndef WEFT_TESTS_C_API_C_API_SYMBOL_UTIL_H_
#define WEFT_TESTS_C_API_C_API_SYMBOL_UTIL_H_

#include "c_test_util.h"

/* Asserts that `list` holds exactly the comma-separated names of `want`
 * ("" = empty), then frees it. */
static inline void expect_list(WeftStringList* list, const char* want) {
  char joined[4096];
  size_t n = 0, i, len = 0;
  joined[0] = '\0';
  OK(weft_string_list_size(list, &n));
  for (i = 0; i < n; ++i) {
    const char* s = NULL;
    OK(weft_string_list_get(list, i, &s));
    len += (size_t)snprintf(joined + len, sizeof(joined) - len, "%s%s", i ? "," : "", s);
    assert_true(len < sizeof(joined));
  }
  OK(weft_string_list_free(list));
  if (strcmp(joined, want) != 0) fail_msg("list is \"%s\", expected \"%s\"", joined, want);
}

static inline void expect_arguments(const WeftSymbolHandle* s, const char* want) {
  WeftStringList* l = NULL;
  OK(weft_symbol_list_arguments(s, &l));
  expect_list(l, want);
}

static inline void expect_outputs(const WeftSymbolHandle* s, const char* want) {
  WeftStringList* l = NULL;
  OK(weft_symbol_list_outputs(s, &l));
  expect_list(l, want);
}

static inline WeftSymbolHandle* var(const char* name) {
  WeftSymbolHandle* v = NULL;
  OK(weft_symbol_create_variable(name, &v));
  return v;
}

/* op(args...) named `name`, positional, no parameters. */
static inline WeftSymbolHandle* apply(const char* op, const char* name, WeftSymbolHandle** args,
                                      size_t n) {
  WeftSymbolHandle* s = NULL;
  OK(weft_symbol_create_atomic(op, NULL, NULL, 0, &s));
  OK(weft_symbol_compose(s, name, n, NULL, args));
  return s;
}

/* op(args) named `name` in device group `group` (its "ctx_group" attribute). */
static inline WeftSymbolHandle* grouped(const char* op, const char* name, const char* group,
                                        WeftSymbolHandle** args, size_t n) {
  const char* keys[] = {"ctx_group"};
  const char* vals[1];
  WeftSymbolHandle* s = NULL;
  vals[0] = group;
  OK(weft_symbol_create_atomic(op, keys, vals, 1, &s));
  OK(weft_symbol_compose(s, name, n, NULL, args));
  return s;
}

/* The seed's placement example: mul = a * b in group dev1, add = mul + c in
 * group dev2; frees a, b, c and mul, returns add. */
static inline WeftSymbolHandle* seed_net_of(WeftSymbolHandle* a, WeftSymbolHandle* b,
                                            WeftSymbolHandle* c) {
  WeftSymbolHandle *ab[2], *mc[2], *mul, *add;
  ab[0] = a;
  ab[1] = b;
  mul = grouped("elemwise_mul", "mul", "dev1", ab, 2);
  mc[0] = mul;
  mc[1] = c;
  add = grouped("elemwise_add", "add", "dev2", mc, 2);
  OK(weft_symbol_free(a));
  OK(weft_symbol_free(b));
  OK(weft_symbol_free(c));
  OK(weft_symbol_free(mul));
  return add;
}

/* a*b + b*c (MXNet's mutual inference example) with its variables freed. */
static inline WeftSymbolHandle* make_abc(void) {
  WeftSymbolHandle* a = var("a");
  WeftSymbolHandle* b = var("b");
  WeftSymbolHandle* c = var("c");
  WeftSymbolHandle *ab_args[2], *bc_args[2], *sum_args[2];
  WeftSymbolHandle *ab, *bc, *sum;
  ab_args[0] = a;
  ab_args[1] = b;
  bc_args[0] = b;
  bc_args[1] = c;
  ab = apply("elemwise_mul", "ab", ab_args, 2);
  bc = apply("elemwise_mul", "bc", bc_args, 2);
  sum_args[0] = ab;
  sum_args[1] = bc;
  sum = apply("elemwise_add", "sum", sum_args, 2);
  OK(weft_symbol_free(a));
  OK(weft_symbol_free(b));
  OK(weft_symbol_free(c));
  OK(weft_symbol_free(ab));
  OK(weft_symbol_free(bc));
  return sum;
}

/* Copies the dims of entry (group, index) into `dims` and returns the rank. */
static inline int shape_of(const WeftShapeResult* r, int group, size_t index, int64_t* dims) {
  int ndim = -2;
  OK(weft_shape_result_ndim(r, group, index, &ndim));
  if (ndim > 0) OK(weft_shape_result_dims(r, group, index, dims, (size_t)ndim));
  return ndim;
}

static inline void expect_shape(const WeftShapeResult* r, int group, size_t index, const char* name,
                                int ndim, int64_t d0, int64_t d1) {
  int64_t dims[8];
  const char* got_name = NULL;
  OK(weft_shape_result_name(r, group, index, &got_name));
  assert_string_equal(got_name, name);
  assert_int_equal(shape_of(r, group, index, dims), ndim);
  if (ndim >= 1) assert_int_equal(dims[0], d0);
  if (ndim >= 2) assert_int_equal(dims[1], d1);
}

#endif /* WEFT_TESTS_C_API_C_API_SYMBOL_UTIL_H_ */
