/*
 * Executors with device groups (weft_executor_simple_bind_group2ctx,
 * weft_executor_bind_group2ctx): the seed's a * b (group dev1) + c (group
 * dev2) net on cpu(1) / cpu(2), arrays on their groups' devices, numbers
 * against the closed form, the inserted copies, and the errors. Leaks are
 * checked on every CPU device used. Pure C99 against libweft.so (CMocka).
 */
#include "c_api_executor_util.h"

static const char* g_groups[] = {"dev1", "dev2"};
static const int g_types[] = {WEFT_CPU, WEFT_CPU};
static const int g_ids[] = {1, 2};

/* Live bytes on cpu(0..3), the devices these tests use. */
static size_t all_live_bytes(void) {
  size_t total = 0, live = 0, pooled = 0;
  int id;
  for (id = 0; id < 4; ++id) {
    OK(weft_storage_stats(WEFT_CPU, id, &live, &pooled));
    total += live;
  }
  return total;
}

static size_t g_start_all;

static int setup_devices(void** state) {
  setup(state);
  g_start_all = all_live_bytes();
  return 0;
}

static void assert_no_device_leaks(void) {
  assert_no_leaks();
  assert_int_equal(all_live_bytes(), g_start_all);
}

/* A variable in device group `group`. */
static WeftSymbolHandle* grouped_var(const char* name, const char* group) {
  WeftSymbolHandle* v = var(name);
  OK(weft_symbol_set_attr(v, "ctx_group", group));
  return v;
}

/* a, b and mul = a * b in dev1; c and add = mul + c in dev2. */
static WeftSymbolHandle* seed_net(void) {
  return seed_net_of(grouped_var("a", "dev1"), grouped_var("b", "dev1"), grouped_var("c", "dev2"));
}

static const char* kNames[3] = {"a", "b", "c"};
static const size_t kIndPtr[4] = {0, 2, 4, 6};
static const int64_t kDims[6] = {2, 3, 2, 3, 2, 3};

/* Asserts the device of every entry of `list` (NULL entries skipped). */
static void expect_devices(WeftNDArrayList* list, const int* ids, size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) {
    WeftNDArray* a = list_get(list, i);
    int type = -1, id = -1;
    OK(weft_ndarray_context(a, &type, &id));
    assert_int_equal(type, WEFT_CPU);
    assert_int_equal(id, ids[i]);
    OK(weft_ndarray_free(a));
  }
}

/* Forward and backward with head gradient kG; checks a*b + c and its
 * gradients (g*b, g*a, g) against the closed form. */
static void run_and_check(WeftExecutor* ex) {
  float out[6], da[6], db[6], dc[6], want[6], wa[6], wb[6];
  WeftNDArray* g = make_f32(k23, 2, kG);
  int i;
  set_abc(ex);
  OK(weft_executor_forward(ex, 1));
  OK(weft_executor_backward(ex, &g, 1));
  read_result(ex, 0, 0, out, 6);
  read_result(ex, 1, 0, da, 6);
  read_result(ex, 1, 1, db, 6);
  read_result(ex, 1, 2, dc, 6);
  for (i = 0; i < 6; ++i) {
    want[i] = kA[i] * kB[i] + kC[i];
    wa[i] = kG[i] * kB[i];
    wb[i] = kG[i] * kA[i];
  }
  assert_floats(out, want, 6);
  assert_floats(da, wa, 6);
  assert_floats(db, wb, 6);
  assert_floats(dc, kG, 6);
  OK(weft_ndarray_free(g));
}

static void test_simple_bind_group2ctx(void** state) {
  WeftSymbolHandle* s = seed_net();
  WeftExecutor* ex = NULL;
  WeftNDArrayList *args = NULL, *grads = NULL;
  WeftStringList* text = NULL;
  const char* dump = NULL;
  const int devices[3] = {1, 1, 2};
  (void)state;
  OK(weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 2, g_groups, g_types, g_ids, 3, kNames,
                                         kIndPtr, kDims, 0, NULL, NULL, "write", &ex));
  OK(weft_executor_arg_arrays(ex, &args));
  OK(weft_executor_grad_arrays(ex, &grads));
  expect_devices(args, devices, 3);
  expect_devices(grads, devices, 3);
  OK(weft_ndarray_list_free(args));
  OK(weft_ndarray_list_free(grads));
  run_and_check(ex);
  /* mul's output crosses to cpu(2) for add; the head gradient (on add's
   * device) crosses back to cpu(1) for mul's gradient nodes. */
  OK(weft_executor_print(ex, &text));
  OK(weft_string_list_get(text, 0, &dump));
  assert_non_null(strstr(dump, "[cpu(2)] Op:_CrossDeviceCopy, Name=mul_0_copy"));
  assert_non_null(strstr(dump, "[cpu(1)] Op:_CrossDeviceCopy, Name=_head_grad_0_0_copy"));
  assert_non_null(strstr(dump, "[cpu(1)] Op:elemwise_mul, Name=mul\n"));
  assert_non_null(strstr(dump, "[cpu(2)] Op:elemwise_add, Name=add\n"));
  OK(weft_string_list_free(text));
  OK(weft_executor_free(ex));
  /* num_groups 0 is weft_executor_simple_bind: everything on cpu(0). */
  OK(weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 0, NULL, NULL, NULL, 3, kNames, kIndPtr,
                                         kDims, 0, NULL, NULL, "write", &ex));
  OK(weft_executor_arg_arrays(ex, &args));
  {
    const int zeros[3] = {0, 0, 0};
    expect_devices(args, zeros, 3);
  }
  OK(weft_ndarray_list_free(args));
  run_and_check(ex);
  OK(weft_executor_free(ex));
  OK(weft_symbol_free(s));
  assert_no_device_leaks();
}

/* Float32 (2,3) array on cpu(id). */
static WeftNDArray* on_cpu(int id) {
  WeftNDArray* a = NULL;
  OK(weft_ndarray_create(k23, 2, WEFT_FLOAT32, WEFT_CPU, id, &a));
  return a;
}

static void test_bind_group2ctx(void** state) {
  WeftSymbolHandle* s = seed_net();
  WeftExecutor* ex = NULL;
  WeftNDArray *args[3], *grads[3];
  const int reqs[3] = {WEFT_REQ_WRITE, WEFT_REQ_WRITE, WEFT_REQ_WRITE};
  const int devices[3] = {1, 1, 2};
  int i;
  (void)state;
  for (i = 0; i < 3; ++i) {
    args[i] = on_cpu(devices[i]);
    grads[i] = on_cpu(devices[i]);
  }
  OK(weft_executor_bind_group2ctx(s, WEFT_CPU, 0, 2, g_groups, g_types, g_ids, args, 3, grads, reqs,
                                  NULL, 0, &ex));
  run_and_check(ex);
  OK(weft_executor_free(ex));
  ex = NULL;
  /* A gradient array on another device than its argument. */
  OK(weft_ndarray_free(grads[0]));
  grads[0] = on_cpu(2);
  EXPECT_ERR(weft_executor_bind_group2ctx(s, WEFT_CPU, 0, 2, g_groups, g_types, g_ids, args, 3,
                                          grads, reqs, NULL, 0, &ex),
             WEFT_ERR_DEVICE, "gradient array of 'a'", "cpu(2)", "cpu(1)");
  assert_null(ex);
  /* Without groups the old rule holds: every array on the bind device. */
  EXPECT_ERR(weft_executor_bind_group2ctx(s, WEFT_CPU, 0, 0, NULL, NULL, NULL, args, 3, NULL, NULL,
                                          NULL, 0, &ex),
             WEFT_ERR_DEVICE, "argument 'a'", "cpu(1)", "cpu(0)");
  for (i = 0; i < 3; ++i) {
    OK(weft_ndarray_free(args[i]));
    OK(weft_ndarray_free(grads[i]));
  }
  OK(weft_symbol_free(s));
  assert_no_device_leaks();
}

static void test_group_errors(void** state) {
  WeftSymbolHandle* s = seed_net();
  WeftExecutor* ex = NULL;
  const char* twice[] = {"dev1", "dev1"};
  const char* with_null[] = {"dev1", NULL};
  const char* only_dev1[] = {"dev1"};
  const int bad_types[] = {WEFT_CPU, 7};
  const int gpu_types[] = {WEFT_CPU, WEFT_GPU};
  const int gpu_ids[] = {1, 0};
  WeftNDArray* args[3];
  int i;
  (void)state;
  EXPECT_ERR(
      weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 2, twice, g_types, g_ids, 3, kNames,
                                          kIndPtr, kDims, 0, NULL, NULL, "write", &ex),
      WEFT_ERR_INVALID_ARGUMENT, "group_names", "'dev1' is given twice");
  EXPECT_ERR(
      weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 2, with_null, g_types, g_ids, 3, kNames,
                                          kIndPtr, kDims, 0, NULL, NULL, "write", &ex),
      WEFT_ERR_INVALID_ARGUMENT, "group_names[1]", "NULL");
  EXPECT_ERR(weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 2, NULL, g_types, g_ids, 3, kNames,
                                                 kIndPtr, kDims, 0, NULL, NULL, "write", &ex),
             WEFT_ERR_INVALID_ARGUMENT, "group_names");
  EXPECT_ERR(
      weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 2, g_groups, bad_types, g_ids, 3, kNames,
                                          kIndPtr, kDims, 0, NULL, NULL, "write", &ex),
      WEFT_ERR_DEVICE, "'dev2'", "group_dev_types[1]");
  /* A group the map lacks: named with its node. */
  EXPECT_ERR(
      weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 1, only_dev1, g_types, g_ids, 3, kNames,
                                          kIndPtr, kDims, 0, NULL, NULL, "write", &ex),
      WEFT_ERR_DEVICE, "'dev2'");
  for (i = 0; i < 3; ++i) args[i] = on_cpu(1);
  EXPECT_ERR(weft_executor_bind_group2ctx(s, WEFT_CPU, 0, 1, only_dev1, g_types, g_ids, args, 3,
                                          NULL, NULL, NULL, 0, &ex),
             WEFT_ERR_DEVICE, "node 'add'", "'dev2'");
  /* gpu(0) without a device (or without CUDA): a clean device error. */
  EXPECT_ERR(
      weft_executor_simple_bind_group2ctx(s, WEFT_CPU, 0, 2, g_groups, gpu_types, gpu_ids, 3,
                                          kNames, kIndPtr, kDims, 0, NULL, NULL, "write", &ex),
      WEFT_ERR_DEVICE, "gpu");
  EXPECT_ERR(weft_executor_bind_group2ctx(s, WEFT_CPU, 0, 2, g_groups, gpu_types, gpu_ids, args, 3,
                                          NULL, NULL, NULL, 0, &ex),
             WEFT_ERR_DEVICE, "gpu(0)");
  EXPECT_ERR(weft_executor_simple_bind_group2ctx(s, WEFT_GPU, 0, 0, NULL, NULL, NULL, 3, kNames,
                                                 kIndPtr, kDims, 0, NULL, NULL, "write", &ex),
             WEFT_ERR_DEVICE, "gpu");
  /* The plain functions share the bodies but report under their own names. */
  EXPECT_ERR(weft_executor_simple_bind(s, WEFT_GPU, 0, 3, kNames, kIndPtr, kDims, 0, NULL, NULL,
                                       "write", &ex),
             WEFT_ERR_DEVICE, "weft_executor_simple_bind:", "gpu");
  EXPECT_ERR(weft_executor_bind(s, WEFT_CPU, 0, args, 3, NULL, NULL, NULL, 0, &ex), WEFT_ERR_DEVICE,
             "weft_executor_bind:", "argument 'a'", "cpu(1)");
  EXPECT_ERR(weft_executor_bind_group2ctx(NULL, WEFT_CPU, 0, 2, g_groups, g_types, g_ids, args, 3,
                                          NULL, NULL, NULL, 0, &ex),
             WEFT_ERR_INVALID_ARGUMENT, "sym");
  EXPECT_ERR(weft_executor_bind_group2ctx(s, WEFT_CPU, 0, 2, g_groups, g_types, g_ids, args, 3,
                                          NULL, NULL, NULL, 0, NULL),
             WEFT_ERR_INVALID_ARGUMENT, "out");
  assert_null(ex);
  for (i = 0; i < 3; ++i) OK(weft_ndarray_free(args[i]));
  OK(weft_symbol_free(s));
  assert_no_device_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_simple_bind_group2ctx, setup_devices),
      cmocka_unit_test_setup(test_bind_group2ctx, setup_devices),
      cmocka_unit_test_setup(test_group_errors, setup_devices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
