/*
 * C ABI test (C99, CMocka, against libweft.so): version, last error (and its
 * thread-locality), random seed, op listing, docs and aliases, device
 * count and memory.
 * Every test checks its happy path and error paths and ends with no leaked
 * handle or byte (assert_no_leaks).
 */
#include <pthread.h>

#include "c_test_util.h"

/* Runs first (keep it first in main): no call has failed yet on this thread. */
static void test_last_error_initially_empty(void** state) {
  (void)state;
  assert_string_equal(weft_last_error(), "");
  assert_int_equal(weft_last_error_code(), WEFT_OK);
  assert_no_leaks();
}

static void test_version(void** state) {
  const char* v = weft_version();
  (void)state;
  assert_non_null(v);
  assert_true(strlen(v) >= 5); /* "0.1.0" */
  assert_non_null(strchr(v, '.'));
  assert_ptr_equal(weft_version(), v);
  assert_int_equal(weft_abi_version(), WEFT_API_VERSION);
  assert_no_leaks();
}

static void test_last_error_kept_after_success(void** state) {
  size_t count = 0;
  char first[512];
  (void)state;
  EXPECT_ERR(weft_op_count(NULL), WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  assert_string_equal(weft_last_error(), "weft_op_count: argument 'out' is NULL");
  snprintf(first, sizeof first, "%s", weft_last_error());
  /* A successful call returns WEFT_OK and leaves the last error alone. */
  OK(weft_op_count(&count));
  assert_string_equal(weft_last_error(), first);
  assert_int_equal(weft_last_error_code(), WEFT_ERR_INVALID_ARGUMENT);
  /* The next failure replaces it. */
  EXPECT_ERR(weft_op_info("no_such_op_xyz", NULL, NULL), WEFT_ERR_NOT_FOUND, "no_such_op_xyz");
  assert_int_equal(weft_last_error_code(), WEFT_ERR_NOT_FOUND);
  assert_no_leaks();
}

/* What a second thread saw of the last error. */
struct ThreadErrors {
  WeftStatus before_code, after_code;
  char before[256], after[256];
};

static void* fail_in_thread(void* arg) {
  struct ThreadErrors* t = (struct ThreadErrors*)arg;
  t->before_code = weft_last_error_code();
  snprintf(t->before, sizeof t->before, "%s", weft_last_error());
  weft_op_info("thread_only_missing_op", NULL, NULL);
  t->after_code = weft_last_error_code();
  snprintf(t->after, sizeof t->after, "%s", weft_last_error());
  return NULL;
}

/* Each thread has its own last error: a failure on one thread neither shows
 * on another nor replaces another's. */
static void test_last_error_is_thread_local(void** state) {
  pthread_t thread;
  struct ThreadErrors t;
  (void)state;
  EXPECT_ERR(weft_op_count(NULL), WEFT_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
  memset(&t, 0, sizeof t);
  assert_int_equal(pthread_create(&thread, NULL, fail_in_thread, &t), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_int_equal(t.before_code, WEFT_OK);
  assert_string_equal(t.before, "");
  assert_int_equal(t.after_code, WEFT_ERR_NOT_FOUND);
  assert_non_null(strstr(t.after, "thread_only_missing_op"));
  assert_int_equal(weft_last_error_code(), WEFT_ERR_INVALID_ARGUMENT);
  assert_string_equal(weft_last_error(), "weft_op_count: argument 'out' is NULL");
  assert_no_leaks();
}

static void test_random_seed_and_wait_all(void** state) {
  (void)state;
  OK(weft_random_seed(42));
  OK(weft_random_seed(UINT64_MAX));
  OK(weft_wait_all());
  assert_no_leaks();
}

/* ------------------------------------------------------------- operators */

static void test_op_listing(void** state) {
  size_t count = 0, i;
  int found = 0;
  const char* prev = NULL;
  const char* name = NULL;
  const char* again = NULL;
  (void)state;
  OK(weft_op_count(&count));
  assert_true(count >= 2); /* quadratic and _backward_quadratic at least */
  for (i = 0; i < count; ++i) {
    OK(weft_op_name(i, &name));
    assert_non_null(name);
    if (prev) assert_true(strcmp(prev, name) < 0); /* sorted, unique */
    if (strcmp(name, "quadratic") == 0) found = 1;
    assert_string_not_equal(name, "_contrib_quadratic"); /* aliases excluded */
    prev = name;
  }
  assert_true(found);
  /* Strings stay valid and stable. */
  OK(weft_op_name(0, &name));
  OK(weft_op_name(0, &again));
  assert_ptr_equal(name, again);

  name = "untouched";
  EXPECT_ERR(weft_op_name(count, &name), WEFT_ERR_INVALID_ARGUMENT, "weft_op_name", "'index'");
  assert_string_equal(name, "untouched");
  EXPECT_ERR(weft_op_name(0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_name: argument 'out_name' is NULL");
  EXPECT_ERR(weft_op_count(NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_count: argument 'out' is NULL");
  assert_no_leaks();
}

static void test_op_info(void** state) {
  const char* doc = NULL;
  const char* doc2 = NULL;
  size_t n = 0, n2 = 0;
  (void)state;
  OK(weft_op_info("quadratic", &doc, &n));
  assert_non_null(doc);
  assert_non_null(strstr(doc, "quadratic"));
  assert_int_equal(n, 3);
  /* An alias resolves to the same definition. */
  OK(weft_op_info("_contrib_quadratic", &doc2, &n2));
  assert_ptr_equal(doc, doc2);
  assert_int_equal(n2, 3);

  doc = "untouched";
  EXPECT_ERR(weft_op_info("no_such_op_abc", &doc, &n), WEFT_ERR_NOT_FOUND, "weft_op_info",
             "no_such_op_abc");
  assert_string_equal(doc, "untouched");
  EXPECT_ERR(weft_op_info(NULL, &doc, &n), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_info: argument 'op' is NULL");
  EXPECT_ERR(weft_op_info("quadratic", NULL, &n), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_doc' is NULL");
  EXPECT_ERR(weft_op_info("quadratic", &doc, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out_num_params' is NULL");
  assert_no_leaks();
}

static int is_param_type(const char* t) {
  static const char* const kTypes[] = {"int",  "float",  "boolean", "shape",
                                       "enum", "string", "dtype",   "context"};
  size_t i;
  for (i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i)
    if (strcmp(t, kTypes[i]) == 0) return 1;
  return 0;
}

static void test_op_param(void** state) {
  const char *name = NULL, *type = NULL, *def = NULL, *doc = NULL;
  size_t count = 0, i, j;
  (void)state;
  OK(weft_op_param("quadratic", 0, &name, &type, &def, &doc));
  assert_string_equal(name, "a");
  assert_string_equal(type, "float");
  assert_non_null(def);
  assert_string_equal(def, "0");
  assert_non_null(doc);
  assert_true(strlen(doc) > 0);
  OK(weft_op_param("quadratic", 2, &name, NULL, NULL, NULL));
  assert_string_equal(name, "c");
  /* Every out-pointer may be NULL. */
  OK(weft_op_param("quadratic", 1, NULL, NULL, NULL, NULL));

  /* Every parameter of every op has a known type name; a NULL default
   * means the parameter is required. */
  OK(weft_op_count(&count));
  for (i = 0; i < count; ++i) {
    const char* op = NULL;
    const char* odoc = NULL;
    size_t np = 0;
    OK(weft_op_name(i, &op));
    OK(weft_op_info(op, &odoc, &np));
    for (j = 0; j < np; ++j) {
      name = type = NULL;
      OK(weft_op_param(op, j, &name, &type, &def, &doc));
      assert_non_null(name);
      assert_true(is_param_type(type));
    }
    EXPECT_ERR(weft_op_param(op, np, &name, &type, &def, &doc), WEFT_ERR_INVALID_ARGUMENT,
               "'index'", op);
  }

  name = "untouched";
  EXPECT_ERR(weft_op_param("quadratic", 3, &name, NULL, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_param", "quadratic", "3 parameter(s)");
  assert_string_equal(name, "untouched");
  EXPECT_ERR(weft_op_param("nope_op", 0, &name, NULL, NULL, NULL), WEFT_ERR_NOT_FOUND, "nope_op");
  EXPECT_ERR(weft_op_param(NULL, 0, &name, NULL, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'op' is NULL");
  assert_no_leaks();
}

/* Whether `list` holds `want`. */
static int list_has(const WeftStringList* list, const char* want) {
  size_t n = 0, i;
  const char* s = NULL;
  OK(weft_string_list_size(list, &n));
  for (i = 0; i < n; ++i) {
    OK(weft_string_list_get(list, i, &s));
    if (strcmp(s, want) == 0) return 1;
  }
  return 0;
}

static void test_op_aliases(void** state) {
  WeftStringList* list = NULL;
  WeftStringList* untouched = (WeftStringList*)&list; /* any non-NULL marker */
  size_t n = 0, count = 0, i, total = 0;
  const char* s = NULL;
  (void)state;
  /* quadratic is registered with the alias _contrib_quadratic. */
  OK(weft_op_aliases("quadratic", &list));
  OK(weft_string_list_size(list, &n));
  assert_int_equal(n, 1);
  OK(weft_string_list_get(list, 0, &s));
  assert_string_equal(s, "_contrib_quadratic");
  OK(weft_string_list_free(list));
  /* Looked up by an alias: the same list (the canonical name not in it). */
  OK(weft_op_aliases("_contrib_quadratic", &list));
  assert_true(list_has(list, "_contrib_quadratic"));
  assert_false(list_has(list, "quadratic"));
  OK(weft_string_list_free(list));
  /* Several aliases: add_n is ElementWiseSum's. */
  OK(weft_op_aliases("ElementWiseSum", &list));
  assert_true(list_has(list, "add_n"));
  OK(weft_string_list_free(list));

  /* Every alias of every op resolves to that op; no alias is a canonical name. */
  OK(weft_op_count(&count));
  for (i = 0; i < count; ++i) {
    const char* op = NULL;
    size_t j, k;
    OK(weft_op_name(i, &op));
    OK(weft_op_aliases(op, &list));
    OK(weft_string_list_size(list, &n));
    for (j = 0; j < n; ++j) {
      const char *doc = NULL, *doc2 = NULL, *other = NULL;
      size_t np = 0;
      OK(weft_string_list_get(list, j, &s));
      assert_string_not_equal(s, op);
      OK(weft_op_info(op, &doc, &np));
      OK(weft_op_info(s, &doc2, &np));
      assert_ptr_equal(doc, doc2);
      for (k = 0; k < count; ++k) {
        OK(weft_op_name(k, &other));
        assert_string_not_equal(s, other);
      }
    }
    total += n;
    OK(weft_string_list_free(list));
  }
  assert_true(total >= 3);

  list = untouched;
  EXPECT_ERR(weft_op_aliases("no_such_op_q", &list), WEFT_ERR_NOT_FOUND, "weft_op_aliases",
             "no_such_op_q");
  assert_ptr_equal(list, untouched);
  EXPECT_ERR(weft_op_aliases(NULL, &list), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_aliases: argument 'op' is NULL");
  EXPECT_ERR(weft_op_aliases("quadratic", NULL), WEFT_ERR_INVALID_ARGUMENT,
             "weft_op_aliases: argument 'out' is NULL");
  assert_no_leaks();
}

/* Device count and memory: the CPU always, each GPU this process sees (none
 * on a machine without one), and the errors for a missing device or type. */
static void test_device_count_and_memory(void** state) {
  int cpus = 0, gpus = -1, i;
  uint64_t free_bytes = 0, total_bytes = 0;
  char missing[64];
  (void)state;
  OK(weft_device_count(WEFT_CPU, &cpus));
  assert_true(cpus >= 1);
  OK(weft_device_count(WEFT_GPU, &gpus));
  assert_true(gpus >= 0);
  OK(weft_device_memory(WEFT_CPU, 0, &free_bytes, &total_bytes));
  assert_true(total_bytes > ((uint64_t)1 << 20));
  assert_true(free_bytes <= total_bytes);
  for (i = 0; i < gpus; ++i) {
    free_bytes = total_bytes = 0;
    OK(weft_device_memory(WEFT_GPU, i, &free_bytes, &total_bytes));
    assert_true(total_bytes > ((uint64_t)1 << 20));
    assert_true(free_bytes > 0 && free_bytes <= total_bytes);
  }
  snprintf(missing, sizeof missing, "gpu(%d)", gpus);
  EXPECT_ERR(weft_device_memory(WEFT_GPU, gpus, &free_bytes, &total_bytes), WEFT_ERR_DEVICE,
             missing);
  EXPECT_ERR(weft_device_count(7, &cpus), WEFT_ERR_DEVICE, "argument 'dev_type' is 7");
  EXPECT_ERR(weft_device_count(WEFT_CPU, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'out' is NULL");
  EXPECT_ERR(weft_device_memory(WEFT_CPU, -1, &free_bytes, &total_bytes), WEFT_ERR_DEVICE,
             "argument 'dev_id' is -1");
  EXPECT_ERR(weft_device_memory(WEFT_CPU, 0, NULL, &total_bytes), WEFT_ERR_INVALID_ARGUMENT,
             "argument 'free_bytes' is NULL");
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_last_error_initially_empty),
      TEST(test_version),
      TEST(test_last_error_kept_after_success),
      TEST(test_last_error_is_thread_local),
      TEST(test_random_seed_and_wait_all),
      TEST(test_op_listing),
      TEST(test_op_info),
      TEST(test_op_param),
      TEST(test_op_aliases),
      TEST(test_device_count_and_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
