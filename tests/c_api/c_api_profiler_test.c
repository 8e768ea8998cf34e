/*
 * C ABI test (C99, CMocka, against libweft.so): the profiler — configure,
 * run, record imperative ops and user ranges/markers/counters, the trace
 * JSON, the aggregate table, dump to a file, and every error path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "c_test_util.h"

/* The single string of a one-string list (copied into `out`), freeing it. */
static void take_string(WeftStringList* list, char* out, size_t cap) {
  const char* s = NULL;
  size_t n = 0;
  OK(weft_string_list_size(list, &n));
  assert_int_equal(n, 1);
  OK(weft_string_list_get(list, 0, &s));
  snprintf(out, cap, "%s", s);
  OK(weft_string_list_free(list));
}

static size_t count(const char* text, const char* needle) {
  size_t n = 0;
  for (const char* p = strstr(text, needle); p; p = strstr(p + 1, needle)) ++n;
  return n;
}

static void test_profile_ops_ranges_and_dump(void** state) {
  static char trace[1 << 20], table[1 << 16];
  const char* keys[] = {"profile_all", "filename"};
  char path[256];
  const char* values[2];
  const int64_t shape[] = {3};
  const float data[] = {1, 4, 9};
  WeftNDArray* x = make_f32(shape, 1, data);
  WeftNDArray* y = NULL;
  WeftStringList* list = NULL;
  size_t n = 0;
  int st = -1;
  FILE* f = NULL;
  (void)state;
  snprintf(path, sizeof path, "%s/weft_c_profile_%d.json",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
  values[0] = "1";
  values[1] = path;
  OK(weft_profiler_set_config(2, keys, values));
  OK(weft_profiler_set_state(1));
  OK(weft_profiler_get_state(&st));
  assert_int_equal(st, 1);
  OK(weft_profiler_range_push("outer"));
  OK(weft_op_invoke("sqrt", &x, 1, NULL, NULL, 0, &y, 1, &n));
  OK(weft_wait_all());
  OK(weft_profiler_set_marker("after sqrt"));
  OK(weft_profiler_set_counter("samples", 3));
  OK(weft_profiler_range_pop());
  OK(weft_profiler_trace(&list));
  take_string(list, trace, sizeof trace);
  assert_int_equal(count(trace, "\"name\":\"sqrt\",\"cat\":\"operator\""), 1);
  assert_non_null(strstr(trace, "\"name\":\"outer\""));
  assert_non_null(strstr(trace, "\"name\":\"after sqrt\""));
  assert_non_null(strstr(trace, "\"samples\":3"));
  OK(weft_profiler_aggregate(0, "table", "count", 0, &list));
  take_string(list, table, sizeof table);
  assert_non_null(strstr(table, "sqrt"));
  assert_non_null(strstr(table, "Total Count"));
  OK(weft_profiler_aggregate(1, "json", NULL, 1, &list));
  take_string(list, table, sizeof table);
  assert_non_null(strstr(table, "\"sqrt\""));
  OK(weft_profiler_dump(1));
  OK(weft_profiler_get_state(&st));
  assert_int_equal(st, 0);
  f = fopen(path, "r");
  assert_non_null(f);
  n = fread(trace, 1, sizeof trace - 1, f);
  trace[n] = '\0';
  fclose(f);
  remove(path);
  assert_non_null(strstr(trace, "\"traceEvents\""));
  assert_int_equal(count(trace, "\"name\":\"sqrt\",\"cat\":\"operator\""), 1);
  OK(weft_ndarray_free(y));
  OK(weft_ndarray_free(x));
  assert_no_leaks();
}

static void test_profiler_errors(void** state) {
  const char* bad_key[] = {"profile_everything"};
  const char* bad_bool[] = {"profile_api"};
  const char* one[] = {"1"};
  const char* maybe[] = {"maybe"};
  WeftStringList* list = NULL;
  (void)state;
  EXPECT_ERR(weft_profiler_set_config(1, bad_key, one), WEFT_ERR_INVALID_ARGUMENT,
             "unknown key 'profile_everything'");
  EXPECT_ERR(weft_profiler_set_config(1, bad_bool, maybe), WEFT_ERR_INVALID_ARGUMENT,
             "profile_api");
  EXPECT_ERR(weft_profiler_set_config(1, NULL, one), WEFT_ERR_INVALID_ARGUMENT, "keys");
  EXPECT_ERR(weft_profiler_set_state(2), WEFT_ERR_INVALID_ARGUMENT, "0 (stop) or 1 (run)");
  EXPECT_ERR(weft_profiler_get_state(NULL), WEFT_ERR_INVALID_ARGUMENT, "out");
  EXPECT_ERR(weft_profiler_range_pop(), WEFT_ERR_INVALID_ARGUMENT, "no open range");
  EXPECT_ERR(weft_profiler_range_push(NULL), WEFT_ERR_INVALID_ARGUMENT, "name");
  EXPECT_ERR(weft_profiler_set_marker(NULL), WEFT_ERR_INVALID_ARGUMENT, "name");
  EXPECT_ERR(weft_profiler_aggregate(0, "xml", NULL, 0, &list), WEFT_ERR_INVALID_ARGUMENT, "'xml'");
  EXPECT_ERR(weft_profiler_aggregate(0, NULL, "median", 0, &list), WEFT_ERR_INVALID_ARGUMENT,
             "median");
  EXPECT_ERR(weft_profiler_trace(NULL), WEFT_ERR_INVALID_ARGUMENT, "out");
  OK(weft_profiler_set_state(1));
  EXPECT_ERR(weft_profiler_set_config(0, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "stop the profiler");
  OK(weft_profiler_set_state(0));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_profile_ops_ranges_and_dump),
      TEST(test_profiler_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
