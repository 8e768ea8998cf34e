/*
 * The device placement C ABI (weft_symbol_place_device, _graph): the
 * seed's a * b (group dev1) + c (group dev2) example for inference and
 * training, as lists and as an annotated graph, a single device, and the
 * errors (missing group, a mutated input on
 * another device, bad arguments). Pure C99 against libweft.so (CMocka).
 */
#include <string.h>

#include "c_api_symbol_util.h"

/* The seed's example with its intermediate handles freed. */
static WeftSymbolHandle* seed_net(void) { return seed_net_of(var("a"), var("b"), var("c")); }

static const char* g_groups[] = {"dev1", "dev2"};
static const int g_group_types[] = {WEFT_CPU, WEFT_CPU};
static const int g_group_ids[] = {0, 1};
static const char* g_fixed[] = {"a", "b", "c"};
static const int g_fixed_types[] = {WEFT_CPU, WEFT_CPU, WEFT_CPU};
static const int g_fixed_ids[] = {0, 0, 0};

static void expect_placement(WeftSymbolHandle* s, int train, const char* names, const char* ops,
                             const char* devices, size_t copies) {
  WeftStringList *n = NULL, *o = NULL, *d = NULL;
  size_t num_copies = 99;
  OK(weft_symbol_place_device(s, train, WEFT_CPU, 0, 2, g_groups, g_group_types, g_group_ids, 3,
                              g_fixed, g_fixed_types, g_fixed_ids, &n, &o, &d, &num_copies));
  expect_list(n, names);
  expect_list(o, ops);
  expect_list(d, devices);
  assert_int_equal(num_copies, copies);
}

static void test_seed_example(void** state) {
  WeftSymbolHandle* s = seed_net();
  (void)state;
  expect_placement(s, 0, "a,b,mul,mul_0_copy,c,c_0_copy,add",
                   "null,null,elemwise_mul,_CrossDeviceCopy,null,_CrossDeviceCopy,elemwise_add",
                   "cpu(0),cpu(0),cpu(0),cpu(1),cpu(0),cpu(1),cpu(1)", 2);
  /* Training: the head gradient lives with add on cpu(1); mul's gradient
   * nodes stay on mul's device and share one copy of it. */
  expect_placement(s, 1,
                   "a,b,mul,mul_0_copy,c,c_0_copy,add,_head_grad_0,_head_grad_0_0_copy,"
                   "mul_lhs_grad,mul_rhs_grad",
                   "null,null,elemwise_mul,_CrossDeviceCopy,null,_CrossDeviceCopy,elemwise_add,"
                   "null,_CrossDeviceCopy,elemwise_mul,elemwise_mul",
                   "cpu(0),cpu(0),cpu(0),cpu(1),cpu(0),cpu(1),cpu(1),cpu(1),cpu(0),cpu(0),cpu(0)",
                   3);
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

/* Each node of `placed` as "name@device", comma-separated, in topological order. */
static void node_devices(const WeftSymbolHandle* placed, char* buf, size_t cap) {
  WeftSymbolHandle* internals = NULL;
  size_t n = 0;
  buf[0] = '\0';
  OK(weft_symbol_get_internals(placed, &internals));
  OK(weft_symbol_num_outputs(internals, &n));
  for (size_t i = 0; i < n; ++i) {
    WeftSymbolHandle* out = NULL;
    WeftStringList *name = NULL, *dev = NULL;
    const char *ns = NULL, *ds = NULL;
    size_t k = 0;
    OK(weft_symbol_get_output(internals, i, &out));
    OK(weft_symbol_get_name(out, &name));
    OK(weft_symbol_get_attr(out, "__device__", &dev));
    OK(weft_string_list_size(dev, &k));
    assert_int_equal(k, 1);
    OK(weft_string_list_get(name, 0, &ns));
    OK(weft_string_list_get(dev, 0, &ds));
    if (i) strncat(buf, ",", cap - strlen(buf) - 1);
    strncat(buf, ns, cap - strlen(buf) - 1);
    strncat(buf, "@", cap - strlen(buf) - 1);
    strncat(buf, ds, cap - strlen(buf) - 1);
    OK(weft_string_list_free(name));
    OK(weft_string_list_free(dev));
    OK(weft_symbol_free(out));
  }
  OK(weft_symbol_free(internals));
}

static void test_placed_graph(void** state) {
  WeftSymbolHandle* s = seed_net();
  WeftSymbolHandle *placed = NULL, *untouched = NULL;
  WeftStringList *json = NULL, *dev = NULL;
  const char* text = NULL;
  size_t copies = 99, k = 9;
  char buf[1024];
  (void)state;
  OK(weft_symbol_place_device_graph(s, 0, WEFT_CPU, 0, 2, g_groups, g_group_types, g_group_ids, 3,
                                    g_fixed, g_fixed_types, g_fixed_ids, &placed, &copies));
  assert_int_equal(copies, 2);
  node_devices(placed, buf, sizeof buf);
  assert_string_equal(
      buf, "a@cpu(0),b@cpu(0),mul@cpu(0),mul_0_copy@cpu(1),c@cpu(0),c_0_copy@cpu(1),add@cpu(1)");
  /* The JSON carries the copies and the devices; the input symbol has neither. */
  OK(weft_symbol_to_json(placed, &json));
  OK(weft_string_list_get(json, 0, &text));
  assert_non_null(strstr(text, "_CrossDeviceCopy"));
  assert_non_null(strstr(text, "__device__"));
  OK(weft_string_list_free(json));
  OK(weft_symbol_get_attr(s, "__device__", &dev));
  OK(weft_string_list_size(dev, &k));
  assert_int_equal(k, 0);
  OK(weft_string_list_free(dev));
  OK(weft_symbol_to_json(s, &json));
  OK(weft_string_list_get(json, 0, &text));
  assert_null(strstr(text, "_CrossDeviceCopy"));
  assert_null(strstr(text, "__device__"));
  OK(weft_string_list_free(json));
  OK(weft_symbol_free(placed));
  /* Training: the gradient nodes and the head gradient's copy are in the graph. */
  OK(weft_symbol_place_device_graph(s, 1, WEFT_CPU, 0, 2, g_groups, g_group_types, g_group_ids, 3,
                                    g_fixed, g_fixed_types, g_fixed_ids, &placed, &copies));
  assert_int_equal(copies, 3);
  node_devices(placed, buf, sizeof buf);
  assert_string_equal(
      buf,
      "a@cpu(0),b@cpu(0),mul@cpu(0),mul_0_copy@cpu(1),c@cpu(0),c_0_copy@cpu(1),add@cpu(1),"
      "_head_grad_0@cpu(1),_head_grad_0_0_copy@cpu(0),mul_lhs_grad@cpu(0),mul_rhs_grad@cpu(0)");
  OK(weft_symbol_free(placed));
  /* Errors as weft_symbol_place_device; the out-parameters stay untouched. */
  EXPECT_ERR(weft_symbol_place_device_graph(s, 0, WEFT_CPU, 0, 1, g_groups, g_group_types,
                                            g_group_ids, 0, NULL, NULL, NULL, &untouched, &copies),
             WEFT_ERR_DEVICE, "node 'add'", "group 'dev2'");
  EXPECT_ERR(weft_symbol_place_device_graph(s, 0, WEFT_CPU, 0, 0, NULL, NULL, NULL, 0, NULL, NULL,
                                            NULL, NULL, &copies),
             WEFT_ERR_INVALID_ARGUMENT, "'out_placed'");
  EXPECT_ERR(weft_symbol_place_device_graph(NULL, 0, WEFT_CPU, 0, 0, NULL, NULL, NULL, 0, NULL,
                                            NULL, NULL, &untouched, &copies),
             WEFT_ERR_INVALID_ARGUMENT, "'sym'");
  assert_null(untouched);
  assert_int_equal(copies, 3);
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static void test_single_device(void** state) {
  WeftSymbolHandle* s = seed_net();
  WeftStringList *n = NULL, *o = NULL, *d = NULL;
  const int ids[] = {3, 3};
  size_t copies = 99;
  (void)state;
  OK(weft_symbol_place_device(s, 0, WEFT_CPU, 3, 2, g_groups, g_group_types, ids, 0, NULL, NULL,
                              NULL, &n, &o, &d, &copies));
  expect_list(n, "a,b,mul,c,add");
  expect_list(o, "null,null,elemwise_mul,null,elemwise_add");
  expect_list(d, "cpu(3),cpu(3),cpu(3),cpu(3),cpu(3)");
  assert_int_equal(copies, 0);
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static void test_errors(void** state) {
  WeftSymbolHandle* s = seed_net();
  WeftStringList *n = NULL, *o = NULL, *d = NULL;
  size_t copies = 99;
  const char* twice[] = {"dev1", "dev1"};
  const int bad_types[] = {WEFT_CPU, 7};
  const int bad_ids[] = {0, -1};
  const char* nope[] = {"nope"};
  (void)state;
  EXPECT_ERR(weft_symbol_place_device(s, 0, WEFT_CPU, 0, 1, g_groups, g_group_types, g_group_ids, 0,
                                      NULL, NULL, NULL, &n, &o, &d, &copies),
             WEFT_ERR_DEVICE, "node 'add'", "group 'dev2'", "dev1=cpu(0)");
  EXPECT_ERR(weft_symbol_place_device(s, 0, WEFT_CPU, 0, 2, twice, g_group_types, g_group_ids, 0,
                                      NULL, NULL, NULL, &n, &o, &d, &copies),
             WEFT_ERR_INVALID_ARGUMENT, "'group_names'", "'dev1' is given twice");
  EXPECT_ERR(weft_symbol_place_device(s, 0, WEFT_CPU, 0, 2, g_groups, bad_types, g_group_ids, 0,
                                      NULL, NULL, NULL, &n, &o, &d, &copies),
             WEFT_ERR_DEVICE, "'dev2'", "group_dev_types[1]", "is 7");
  EXPECT_ERR(weft_symbol_place_device(s, 0, WEFT_CPU, 0, 2, g_groups, g_group_types, bad_ids, 0,
                                      NULL, NULL, NULL, &n, &o, &d, &copies),
             WEFT_ERR_DEVICE, "'dev2'", "group_dev_ids[1]", "is -1");
  EXPECT_ERR(weft_symbol_place_device(s, 0, 5, 0, 2, g_groups, g_group_types, g_group_ids, 0, NULL,
                                      NULL, NULL, &n, &o, &d, &copies),
             WEFT_ERR_DEVICE, "default device", "is 5");
  EXPECT_ERR(weft_symbol_place_device(s, 0, WEFT_CPU, 0, 2, g_groups, g_group_types, g_group_ids, 1,
                                      nope, g_fixed_types, g_fixed_ids, &n, &o, &d, &copies),
             WEFT_ERR_INVALID_ARGUMENT, "'nope'", "no variable");
  EXPECT_ERR(weft_symbol_place_device(s, 0, WEFT_CPU, 0, 2, NULL, g_group_types, g_group_ids, 0,
                                      NULL, NULL, NULL, &n, &o, &d, &copies),
             WEFT_ERR_INVALID_ARGUMENT, "'group_names'");
  EXPECT_ERR(weft_symbol_place_device(s, 0, WEFT_CPU, 0, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL,
                                      NULL, &o, &d, &copies),
             WEFT_ERR_INVALID_ARGUMENT, "'out_names'");
  EXPECT_ERR(weft_symbol_place_device(NULL, 0, WEFT_CPU, 0, 0, NULL, NULL, NULL, 0, NULL, NULL,
                                      NULL, &n, &o, &d, &copies),
             WEFT_ERR_INVALID_ARGUMENT, "'sym'");
  /* Out-parameters are untouched on failure. */
  assert_null(n);
  assert_null(o);
  assert_null(d);
  assert_int_equal(copies, 99);
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static void test_mutated_input_across_devices(void** state) {
  WeftSymbolHandle* data = var("data");
  WeftSymbolHandle* bn = grouped("BatchNorm", "bn", "dev2", &data, 1);
  WeftStringList *n = NULL, *o = NULL, *d = NULL;
  const char* fixed[] = {"data", "bn_moving_mean"};
  const int ids[] = {0, 0};
  size_t copies = 99;
  (void)state;
  /* Only data is fixed: the moving statistics follow BatchNorm to cpu(1). */
  OK(weft_symbol_place_device(bn, 0, WEFT_CPU, 0, 2, g_groups, g_group_types, g_group_ids, 1, fixed,
                              g_fixed_types, ids, &n, &o, &d, &copies));
  expect_list(n, "data,data_0_copy,bn_gamma,bn_beta,bn_moving_mean,bn_moving_var,bn");
  expect_list(o, "null,_CrossDeviceCopy,null,null,null,null,BatchNorm");
  expect_list(d, "cpu(0),cpu(1),cpu(1),cpu(1),cpu(1),cpu(1),cpu(1)");
  assert_int_equal(copies, 1);
  EXPECT_ERR(weft_symbol_place_device(bn, 0, WEFT_CPU, 0, 2, g_groups, g_group_types, g_group_ids,
                                      2, fixed, g_fixed_types, ids, &n, &o, &d, &copies),
             WEFT_ERR_DEVICE, "node 'bn' (BatchNorm)", "input 'moving_mean'", "cpu(0)", "cpu(1)");
  OK(weft_symbol_free(data));
  OK(weft_symbol_free(bn));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_seed_example),
      TEST(test_placed_graph),
      TEST(test_single_device),
      TEST(test_errors),
      TEST(test_mutated_input_across_devices),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
