/*
 * C ABI tests of weft_kvstore_* (local and device types; dist_sync runs
 * under mpirun in tests/dist): sums of repeated keys, the optimizer applied
 * on push, a program's updater callback on push, rank and type, every error path (NULL, unknown
 * keys, shapes, freed handles). Each test ends with no leaked handles or bytes.
 */
#include <stdio.h>

#include "c_test_util.h"

static void test_push_sums_and_pull_copies(void** state) {
  const int64_t shape[1] = {3};
  const float a0[3] = {1, 2, 3}, v1[3] = {0.5f, -1, 4}, v2[3] = {10, 20, 30};
  const float want[3] = {10.5f, 19, 34};
  const char* keys[2] = {"w", "w"};
  const char* type = NULL;
  float got[3];
  int rank = -1, workers = -1;
  WeftKVStore* kv = NULL;
  WeftNDArray *a = make_f32(shape, 1, a0), *b = make_f32(shape, 1, v1), *c = make_f32(shape, 1, v2);
  WeftNDArray* out = make_f32(shape, 1, NULL);
  WeftNDArray* vals[2];
  (void)state;
  OK(weft_kvstore_create("local", &kv));
  OK(weft_kvstore_type(kv, &type));
  assert_string_equal(type, "local");
  OK(weft_kvstore_rank(kv, &rank, &workers));
  assert_int_equal(rank, 0);
  assert_int_equal(workers, 1);
  OK(weft_kvstore_init(kv, 1, keys, &a));
  OK(weft_kvstore_pull(kv, 1, keys, &out, 0));
  read_f32(out, got, 3);
  assert_floats(got, a0, 3);
  vals[0] = b;
  vals[1] = c;
  OK(weft_kvstore_push(kv, 2, keys, vals, -1));
  OK(weft_kvstore_pull(kv, 1, keys, &out, -1));
  read_f32(out, got, 3);
  assert_floats(got, want, 3);
  /* pushpull in place */
  OK(weft_kvstore_pushpull(kv, 1, keys, &b, &b, 0));
  read_f32(b, got, 3);
  assert_floats(got, v1, 3);
  OK(weft_kvstore_barrier(kv));
  OK(weft_kvstore_free(kv));
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_free(b));
  OK(weft_ndarray_free(c));
  OK(weft_ndarray_free(out));
  assert_no_leaks();
}

static void test_optimizer_on_push(void** state) {
  const int64_t shape[1] = {2};
  const float w0[2] = {1, -1}, g[2] = {0.5f, 2};
  const char* key = "fc_weight";
  const char* okeys[1] = {"learning_rate"};
  const char* ovals[1] = {"0.1"};
  float got[2], want[2];
  WeftKVStore* kv = NULL;
  WeftOptimizer* opt = NULL;
  WeftNDArray *w = make_f32(shape, 1, w0), *grad = make_f32(shape, 1, g);
  (void)state;
  OK(weft_kvstore_create("device", &kv));
  OK(weft_optimizer_create("sgd", okeys, ovals, 1, &opt));
  OK(weft_kvstore_set_optimizer(kv, opt));
  OK(weft_optimizer_free(opt)); /* shared by the store */
  OK(weft_kvstore_init(kv, 1, &key, &w));
  OK(weft_kvstore_pushpull(kv, 1, &key, &grad, &w, 0));
  read_f32(w, got, 2);
  want[0] = 1 - 0.1f * 0.5f;
  want[1] = -1 - 0.1f * 2;
  assert_floats(got, want, 2);
  OK(weft_kvstore_free(kv));
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(grad));
  assert_no_leaks();
}

/* A program's optimizer: stored -= lr * sum (sgd_update in place), counting its calls. */
typedef struct {
  int calls;
  int fail_with;
  char last_key[16];
} UpdaterLog;

static int halve_step(const char* key, WeftNDArray* sum, WeftNDArray* stored, void* user) {
  UpdaterLog* log = (UpdaterLog*)user;
  const char* k[1] = {"lr"};
  const char* v[1] = {"0.5"};
  WeftNDArray* in[2];
  ++log->calls;
  snprintf(log->last_key, sizeof log->last_key, "%s", key);
  if (log->fail_with) return log->fail_with;
  in[0] = stored;
  in[1] = sum;
  return weft_op_invoke_into("sgd_update", in, 2, k, v, 1, &stored, 1, NULL) == WEFT_OK ? 0 : 99;
}

static void test_updater_on_push(void** state) {
  const int64_t shape[1] = {3};
  const float w0[3] = {1, 2, 3}, g1[3] = {1, 1, 1}, g2[3] = {2, 2, 2};
  const float stepped[3] = {-0.5f, 0.5f, 1.5f}, summed[3] = {3, 3, 3};
  const char* keys[2] = {"w", "w"};
  float got[3];
  UpdaterLog log = {0, 0, ""};
  WeftKVStore* kv = NULL;
  WeftOptimizer* opt = NULL;
  WeftNDArray *w = make_f32(shape, 1, w0), *a = make_f32(shape, 1, g1), *b = make_f32(shape, 1, g2);
  WeftNDArray* out = make_f32(shape, 1, NULL);
  WeftNDArray* vals[2];
  (void)state;
  vals[0] = a;
  vals[1] = b;
  OK(weft_kvstore_create("local", &kv));
  OK(weft_kvstore_init(kv, 1, keys, &w));
  OK(weft_kvstore_set_updater(kv, halve_step, &log));
  OK(weft_kvstore_push(kv, 2, keys, vals, 0)); /* sum [3,3,3]: w - 0.5 * 3 */
  OK(weft_kvstore_pull(kv, 1, keys, &out, 0));
  read_f32(out, got, 3);
  assert_floats(got, stepped, 3);
  assert_int_equal(log.calls, 1);
  assert_string_equal(log.last_key, "w");

  log.fail_with = 7; /* a failing updater fails the push and leaves the value */
  EXPECT_ERR(weft_kvstore_push(kv, 2, keys, vals, 0), WEFT_ERR_INVALID_ARGUMENT, "'w'",
             "returned 7");
  OK(weft_kvstore_pull(kv, 1, keys, &out, 0));
  read_f32(out, got, 3);
  assert_floats(got, stepped, 3);

  OK(weft_kvstore_set_updater(kv, NULL, NULL)); /* plain sums again */
  OK(weft_kvstore_push(kv, 2, keys, vals, 0));
  OK(weft_kvstore_pull(kv, 1, keys, &out, 0));
  read_f32(out, got, 3);
  assert_floats(got, summed, 3);
  assert_int_equal(log.calls, 2);

  log.fail_with = 0; /* an optimizer replaces the updater */
  OK(weft_kvstore_set_updater(kv, halve_step, &log));
  OK(weft_optimizer_create("sgd", NULL, NULL, 0, &opt));
  OK(weft_kvstore_set_optimizer(kv, opt));
  OK(weft_optimizer_free(opt));
  OK(weft_kvstore_push(kv, 2, keys, vals, 0));
  OK(weft_kvstore_barrier(kv));
  assert_int_equal(log.calls, 2);
  EXPECT_ERR(weft_kvstore_set_updater(NULL, halve_step, &log), WEFT_ERR_INVALID_ARGUMENT, "kv");
  OK(weft_kvstore_free(kv));
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_free(b));
  OK(weft_ndarray_free(out));
  assert_no_leaks();
}

/* The updater as steps: pushes queue (sum, stored); the caller takes them and updates in place. */
static void test_updater_queue(void** state) {
  const int64_t shape[1] = {2};
  const float w0[2] = {1, 2}, g1[2] = {1, 3}, g2[2] = {3, 1};
  const float stepped[2] = {-1, 0}, summed[2] = {4, 4};
  const char* keys[2] = {"w", "w"};
  const char* lr_key[1] = {"lr"};
  const char* lr_val[1] = {"0.5"};
  const char* key = NULL;
  float got[2];
  int has = -1;
  WeftKVStore* kv = NULL;
  WeftNDArray *w = make_f32(shape, 1, w0), *a = make_f32(shape, 1, g1), *b = make_f32(shape, 1, g2);
  WeftNDArray *sum = NULL, *stored = NULL, *out = make_f32(shape, 1, NULL);
  WeftNDArray *vals[2], *in[2];
  (void)state;
  vals[0] = a;
  vals[1] = b;
  OK(weft_kvstore_create("local", &kv));
  OK(weft_kvstore_init(kv, 1, keys, &w));
  EXPECT_ERR(weft_kvstore_next_update(kv, &key, &sum, &stored, &has), WEFT_ERR_INVALID_ARGUMENT,
             "no update queue");
  OK(weft_kvstore_set_updater_queue(kv, 1));
  OK(weft_kvstore_next_update(kv, &key, &sum, &stored, &has));
  assert_int_equal(has, 0);
  OK(weft_kvstore_push(kv, 2, keys, vals, 0));
  OK(weft_kvstore_next_update(kv, &key, &sum, &stored, &has));
  assert_int_equal(has, 1);
  assert_string_equal(key, "w");
  read_f32(sum, got, 2);
  assert_floats(got, summed, 2);
  in[0] = stored;
  in[1] = sum;
  OK(weft_op_invoke_into("sgd_update", in, 2, lr_key, lr_val, 1, &stored, 1, NULL));
  OK(weft_ndarray_free(sum));
  OK(weft_ndarray_free(stored));
  OK(weft_kvstore_next_update(kv, &key, &sum, &stored, &has));
  assert_int_equal(has, 0);
  OK(weft_kvstore_pull(kv, 1, keys, &out, 0));
  read_f32(out, got, 2);
  assert_floats(got, stepped, 2); /* w - 0.5 * (g1 + g2) */
  OK(weft_kvstore_set_updater_queue(kv, 0));
  OK(weft_kvstore_push(kv, 2, keys, vals, 0));
  OK(weft_kvstore_pull(kv, 1, keys, &out, 0));
  read_f32(out, got, 2);
  assert_floats(got, summed, 2);
  EXPECT_ERR(weft_kvstore_next_update(kv, &key, &sum, &stored, &has), WEFT_ERR_INVALID_ARGUMENT,
             "no update queue");
  OK(weft_kvstore_free(kv));
  OK(weft_ndarray_free(w));
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_free(b));
  OK(weft_ndarray_free(out));
  assert_no_leaks();
}

static void test_errors(void** state) {
  const int64_t shape[1] = {2}, other[1] = {5};
  const char* key = "k";
  const char* unknown = "nope";
  const char* null_key[1] = {NULL};
  WeftKVStore *kv = NULL, *stale;
  WeftNDArray *a = make_f32(shape, 1, NULL), *big = make_f32(other, 1, NULL);
  int r, n;
  (void)state;
  EXPECT_ERR(weft_kvstore_create("ps", &kv), WEFT_ERR_INVALID_ARGUMENT,
             "unknown kvstore type 'ps'");
  EXPECT_ERR(weft_kvstore_create("dist_async", &kv), WEFT_ERR_NOT_IMPLEMENTED, "dist_sync");
  EXPECT_ERR(weft_kvstore_create(NULL, &kv), WEFT_ERR_INVALID_ARGUMENT, "type");
  EXPECT_ERR(weft_kvstore_create("local", NULL), WEFT_ERR_INVALID_ARGUMENT, "out");
  OK(weft_kvstore_create("local", &kv));
  EXPECT_ERR(weft_kvstore_push(kv, 1, &unknown, &a, 0), WEFT_ERR_INVALID_ARGUMENT, "'nope'",
             "Init");
  OK(weft_kvstore_init(kv, 1, &key, &a));
  EXPECT_ERR(weft_kvstore_init(kv, 1, &key, &a), WEFT_ERR_INVALID_ARGUMENT, "'k'", "already");
  EXPECT_ERR(weft_kvstore_push(kv, 1, &key, &big, 0), WEFT_ERR_SHAPE, "'k'", "(2,)", "(5,)");
  EXPECT_ERR(weft_kvstore_pull(kv, 1, &key, &big, 0), WEFT_ERR_SHAPE, "'k'", "out");
  EXPECT_ERR(weft_kvstore_push(kv, 1, null_key, &a, 0), WEFT_ERR_INVALID_ARGUMENT, "keys[0]");
  EXPECT_ERR(weft_kvstore_push(kv, 1, NULL, &a, 0), WEFT_ERR_INVALID_ARGUMENT, "keys");
  EXPECT_ERR(weft_kvstore_pull(kv, 1, &key, NULL, 0), WEFT_ERR_INVALID_ARGUMENT, "outs");
  EXPECT_ERR(weft_kvstore_rank(kv, NULL, &n), WEFT_ERR_INVALID_ARGUMENT, "out_rank");
  EXPECT_ERR(weft_kvstore_set_optimizer(kv, (WeftOptimizer*)kv), WEFT_ERR_INVALID_HANDLE, "opt");
  stale = kv;
  OK(weft_kvstore_free(kv));
  EXPECT_ERR(weft_kvstore_rank(stale, &r, &n), WEFT_ERR_INVALID_HANDLE, "freed");
  EXPECT_ERR(weft_kvstore_free(stale), WEFT_ERR_INVALID_HANDLE, "freed", "WeftKVStore");
  OK(weft_kvstore_free(NULL));
  OK(weft_ndarray_free(a));
  OK(weft_ndarray_free(big));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_push_sums_and_pull_copies),
      TEST(test_optimizer_on_push),
      TEST(test_updater_on_push),
      TEST(test_updater_queue),
      TEST(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
