/*
 * C ABI test (C99, CMocka, against libweft.so): the dependency engine:
 * variables, sync and async C callbacks with user data and deleters,
 * ordering, waits, errors named after the failing function, and deferred
 * NDArray kernel errors through wait_to_read / copy_to / wait_all.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "c_test_util.h"

/* ------------------------------------------------------------ callbacks */

typedef struct {
  int* log;     /* shared append-only log */
  int* len;     /* its length */
  int value;    /* what this callback appends */
  int* deleted; /* incremented by the deleter */
} Step;

static const char* append_step(void* p) {
  Step* s = (Step*)p;
  usleep(2000);
  s->log[(*s->len)++] = s->value;
  return NULL;
}

static const char* fail_step(void* p) {
  (void)p;
  return "disk on fire";
}

static void delete_step(void* p) {
  Step* s = (Step*)p;
  ++*s->deleted;
}

static void* complete_later(void* p) {
  WeftEngineCompletion* done = (WeftEngineCompletion*)p;
  usleep(5000);
  weft_engine_complete(done, NULL);
  return NULL;
}

static int g_async_ran;

static void async_on_thread(void* user, WeftEngineCompletion* done) {
  pthread_t t;
  (void)user;
  g_async_ran = 1;
  pthread_create(&t, NULL, complete_later, done);
  pthread_detach(t);
}

static void async_fail(void* user, WeftEngineCompletion* done) {
  (void)user;
  OK(weft_engine_complete(done, "async failure"));
  /* A second completion is rejected. */
  EXPECT_ERR(weft_engine_complete(done, NULL), WEFT_ERR_INVALID_HANDLE, "WeftEngineCompletion");
}

/* ---------------------------------------------------------------- tests */

static void test_engine_info_and_configure(void** state) {
  int kind = -1, threads = -1;
  (void)state;
  OK(weft_engine_info(&kind, &threads));
  assert_true(kind == WEFT_ENGINE_NAIVE || kind == WEFT_ENGINE_THREADED);
  if (kind == WEFT_ENGINE_THREADED) assert_true(threads >= 1);
  /* Matching the running engine is accepted; changing it is not. */
  OK(weft_engine_configure(kind, 0));
  EXPECT_ERR(weft_engine_configure(
                 kind == WEFT_ENGINE_NAIVE ? WEFT_ENGINE_THREADED : WEFT_ENGINE_NAIVE, 0),
             WEFT_ERR_INVALID_ARGUMENT, "already running");
  EXPECT_ERR(weft_engine_configure(7, 0), WEFT_ERR_INVALID_ARGUMENT, "kind");
  EXPECT_ERR(weft_engine_configure(kind, -1), WEFT_ERR_INVALID_ARGUMENT, "cpu_threads");
  EXPECT_ERR(weft_engine_info(NULL, &threads), WEFT_ERR_INVALID_ARGUMENT, "out_kind");
  assert_no_leaks();
}

static void test_engine_order_versions_deleters(void** state) {
  int log[8], len = 0, deleted = 0, i;
  uint64_t version = 99;
  Step steps[4];
  WeftEngineVar* v = NULL;
  (void)state;
  OK(weft_engine_var_create(&v));
  OK(weft_engine_var_version(v, &version));
  assert_int_equal(version, 0);
  OK(weft_engine_var_wait(v)); /* fresh: returns at once */
  for (i = 0; i < 4; ++i) {
    steps[i].log = log;
    steps[i].len = &len;
    steps[i].value = i;
    steps[i].deleted = &deleted;
    OK(weft_engine_push_sync(append_step, &steps[i], delete_step, NULL, 0, &v, 1, "append"));
  }
  OK(weft_engine_var_wait(v));
  assert_int_equal(len, 4);
  for (i = 0; i < 4; ++i) assert_int_equal(log[i], i); /* writes run in push order */
  OK(weft_engine_var_version(v, &version));
  assert_int_equal(version, 4);
  OK(weft_wait_all());
  assert_int_equal(deleted, 4);

  /* Async completion from another thread, ordered before a later write. */
  g_async_ran = 0;
  OK(weft_engine_push_async(async_on_thread, NULL, NULL, NULL, 0, &v, 1, "async"));
  steps[0].value = 42;
  OK(weft_engine_push_sync(append_step, &steps[0], NULL, NULL, 0, &v, 1, "after async"));
  OK(weft_engine_var_wait(v));
  assert_true(g_async_ran);
  assert_int_equal(log[4], 42);
  OK(weft_engine_var_version(v, &version));
  assert_int_equal(version, 6);
  OK(weft_engine_var_free(v));
  OK(weft_engine_var_free(NULL));
  OK(weft_wait_all());
  assert_no_leaks();
}

static void test_engine_errors(void** state) {
  int log[8], len = 0, deleted = 0;
  Step s = {log, &len, 1, &deleted};
  WeftEngineVar *a = NULL, *b = NULL, *c = NULL;
  WeftEngineVar* both[2];
  WeftNDArray* arr = NULL;
  const int64_t shape[1] = {2};
  uint64_t version = 0;
  (void)state;
  OK(weft_engine_var_create(&a));
  OK(weft_engine_var_create(&b));
  OK(weft_engine_var_create(&c));

  /* Push-time errors: synchronous, and the deleter still runs. */
  EXPECT_ERR(weft_engine_push_sync(NULL, &s, delete_step, NULL, 0, &a, 1, "x"),
             WEFT_ERR_INVALID_ARGUMENT, "weft_engine_push_sync", "'fn'");
  assert_int_equal(deleted, 1);
  EXPECT_ERR(weft_engine_push_sync(append_step, &s, delete_step, &a, 1, &a, 1, "both"),
             WEFT_ERR_INVALID_ARGUMENT, "'both'", "both reads and writes");
  assert_int_equal(deleted, 2);
  EXPECT_ERR(weft_engine_push_sync(append_step, &s, NULL, NULL, 2, &a, 1, "x"),
             WEFT_ERR_INVALID_ARGUMENT, "'reads'");
  both[0] = a;
  both[1] = NULL;
  EXPECT_ERR(weft_engine_push_sync(append_step, &s, NULL, NULL, 0, both, 2, "x"),
             WEFT_ERR_INVALID_ARGUMENT, "writes[1]");
  OK(weft_ndarray_create(shape, 1, WEFT_FLOAT32, WEFT_CPU, 0, &arr));
  EXPECT_ERR(weft_engine_var_wait((WeftEngineVar*)arr), WEFT_ERR_INVALID_HANDLE, "WeftNDArray",
             "WeftEngineVar");
  OK(weft_ndarray_free(arr));

  /* A failing function: the error is stored on a, inherited by b through a
   * dependent function, reported once per variable, with the name. */
  OK(weft_engine_push_sync(fail_step, NULL, NULL, NULL, 0, &a, 1, "burner"));
  OK(weft_engine_push_sync(append_step, &s, NULL, &a, 1, &b, 1, "dependent"));
  OK(weft_engine_push_sync(append_step, &s, NULL, NULL, 0, &c, 1, "unrelated"));
  EXPECT_ERR(weft_engine_var_wait(a), WEFT_ERR_INTERNAL, "weft_engine_var_wait", "'burner'",
             "disk on fire");
  /* Every wait reports it, until a successful write releases it. */
  EXPECT_ERR(weft_engine_var_wait(a), WEFT_ERR_INTERNAL, "'burner'");
  EXPECT_ERR(weft_engine_var_wait(b), WEFT_ERR_INTERNAL, "'burner'");
  OK(weft_engine_var_wait(c));
  assert_int_equal(len, 1); /* only "unrelated" ran */
  OK(weft_engine_var_version(b, &version));
  assert_int_equal(version, 1); /* a skipped write still counts */
  OK(weft_wait_all());          /* nothing left to report */
  EXPECT_ERR(weft_engine_var_wait(b), WEFT_ERR_INTERNAL,
             "'burner'"); /* wait_all took nothing from b */
  OK(weft_engine_push_sync(append_step, &s, NULL, NULL, 0, &b, 1, "rewrite"));
  OK(weft_engine_var_wait(b));
  assert_int_equal(len, 2);

  /* An async failure, reported by weft_wait_all once. */
  OK(weft_engine_push_async(async_fail, NULL, NULL, NULL, 0, &c, 1, "async burner"));
  EXPECT_ERR(weft_wait_all(), WEFT_ERR_INTERNAL, "weft_wait_all", "'async burner'",
             "async failure");
  OK(weft_wait_all());
  EXPECT_ERR(weft_engine_var_wait(c), WEFT_ERR_INTERNAL, "'async burner'");

  OK(weft_engine_var_free(a));
  EXPECT_ERR(weft_engine_var_free(a), WEFT_ERR_INVALID_HANDLE, "freed");
  EXPECT_ERR(weft_engine_push_sync(append_step, &s, NULL, &a, 1, NULL, 0, "x"),
             WEFT_ERR_INVALID_HANDLE, "reads[0]");
  OK(weft_engine_var_free(b));
  OK(weft_engine_var_free(c));
  OK(weft_wait_all());
  assert_no_leaks();
}

/* A kernel failure in an NDArray op surfaces at the wait / copy, naming the
 * op; shape errors stay synchronous. */
static void test_ndarray_kernel_errors_are_deferred(void** state) {
  const int64_t shape[2] = {2, 3};
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const char* keys[1] = {"temperature"};
  const char* zero[1] = {"0"};
  float out[6];
  size_t n = 0;
  WeftNDArray* a = make_f32(shape, 2, x);
  WeftNDArray* y[1] = {NULL};
  (void)state;
  OK(weft_op_invoke("softmax", &a, 1, keys, zero, 1, y, 1, &n));
  EXPECT_ERR(weft_ndarray_wait_to_read(y[0]), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_wait_to_read", "'softmax'", "temperature");
  EXPECT_ERR(weft_ndarray_wait_to_read(y[0]), WEFT_ERR_INVALID_ARGUMENT,
             "'softmax'"); /* not consumed */
  OK(weft_wait_all());     /* reported already */
  OK(weft_ndarray_free(y[0]));

  OK(weft_op_invoke("softmax", &a, 1, keys, zero, 1, y, 1, &n));
  EXPECT_ERR(weft_ndarray_copy_to(y[0], out, sizeof out), WEFT_ERR_INVALID_ARGUMENT,
             "weft_ndarray_copy_to", "'softmax'");
  OK(weft_ndarray_free(y[0]));

  OK(weft_op_invoke("softmax", &a, 1, keys, zero, 1, y, 1, &n));
  OK(weft_ndarray_free(y[0])); /* freed before anyone waited */
  EXPECT_ERR(weft_wait_all(), WEFT_ERR_INVALID_ARGUMENT, "weft_wait_all", "'softmax'");
  OK(weft_wait_all());

  /* The input is unaffected. */
  read_f32(a, out, 6);
  assert_floats(out, x, 6);
  OK(weft_ndarray_free(a));
  assert_no_leaks();
}

/* Calls back into the library from an engine callback: waits are refused
 * with a clear error instead of deadlocking on the worker running it. */
typedef struct {
  WeftStatus wait_all, copy_from, var_wait;
  char message[512];
  WeftNDArray* arr;
  WeftEngineVar* self;
} Reentry;

static const char* reenter(void* p) {
  Reentry* r = (Reentry*)p;
  const float x[2] = {1, 2};
  r->wait_all = weft_wait_all();
  snprintf(r->message, sizeof r->message, "%s", weft_last_error());
  r->copy_from = weft_ndarray_copy_from(r->arr, x, sizeof x);
  r->var_wait = weft_engine_var_wait(r->self);
  return NULL;
}

static void test_engine_callback_reentry(void** state) {
  const int64_t shape[1] = {2};
  const float zero[2] = {0, 0};
  float out[2];
  int kind = 0, threads = 0;
  Reentry r;
  WeftEngineVar* v = NULL;
  (void)state;
  memset(&r, 0, sizeof r);
  OK(weft_engine_info(&kind, &threads));
  r.arr = make_f32(shape, 1, zero);
  OK(weft_engine_var_create(&v));
  r.self = v;
  OK(weft_engine_push_sync(reenter, &r, NULL, NULL, 0, &v, 1, "reentrant callback"));
  OK(weft_engine_var_wait(v)); /* returns: no deadlock, and the callback itself succeeded */
  assert_int_equal(r.wait_all, WEFT_ERR_INVALID_ARGUMENT);
  assert_non_null(strstr(r.message, "inside engine op 'reentrant callback'"));
  if (kind == WEFT_ENGINE_THREADED) {
    assert_int_equal(r.copy_from, WEFT_ERR_INVALID_ARGUMENT);
    assert_int_equal(r.var_wait, WEFT_ERR_INVALID_ARGUMENT);
    read_f32(r.arr, out, 2);
    assert_floats(out, zero, 2); /* the refused copy was never pushed */
  } else {
    assert_int_equal(r.copy_from, WEFT_OK); /* the naive engine runs it inline */
  }
  OK(weft_wait_all());
  OK(weft_engine_var_free(v));
  OK(weft_ndarray_free(r.arr));
  OK(weft_wait_all());
  assert_no_leaks();
}

static const char* note_worker(void* p) {
  int* on_worker = (int*)p;
  return weft_engine_on_worker_thread(on_worker) == WEFT_OK ? NULL : weft_last_error();
}

/* Last: shutting the global engine down (as a Mono host does at exit)
 * ends its workers; later work runs on the calling thread and still works. */
static void test_engine_shutdown(void** state) {
  const int64_t shape[1] = {2};
  const float two[2] = {2, 3};
  float out[2];
  int kind = 0, threads = 0, on_worker = -1;
  WeftEngineVar* v = NULL;
  WeftNDArray* a = NULL;
  (void)state;
  OK(weft_engine_info(&kind, &threads));
  OK(weft_engine_on_worker_thread(&on_worker));
  assert_int_equal(on_worker, 0);
  OK(weft_engine_var_create(&v));
  OK(weft_engine_push_sync(note_worker, &on_worker, NULL, NULL, 0, &v, 1, "note worker"));
  OK(weft_engine_var_wait(v));
  assert_int_equal(on_worker, kind == WEFT_ENGINE_THREADED ? 1 : 0);
  OK(weft_engine_shutdown());
  OK(weft_engine_shutdown()); /* idempotent */
  on_worker = -1;
  OK(weft_engine_push_sync(note_worker, &on_worker, NULL, NULL, 0, &v, 1, "after shutdown"));
  assert_int_equal(on_worker, 0); /* ran inline, before the push returned */
  a = make_f32(shape, 1, two);
  read_f32(a, out, 2);
  assert_floats(out, two, 2);
  EXPECT_ERR(weft_engine_on_worker_thread(NULL), WEFT_ERR_INVALID_ARGUMENT, "out");
  OK(weft_ndarray_free(a));
  OK(weft_engine_var_free(v));
  OK(weft_wait_all());
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_engine_info_and_configure),
      TEST(test_engine_order_versions_deleters),
      TEST(test_engine_errors),
      TEST(test_ndarray_kernel_errors_are_deferred),
      TEST(test_engine_callback_reentry),
      TEST(test_engine_shutdown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
