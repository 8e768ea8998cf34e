/*
 * The symbol C ABI: MXNet JSON to and from strings and files, format
 * information, legacy generations and malformed input.
 * Pure C99 against libweft.so (CMocka). Each test ends by asserting that
 * the number of live handles is back to its value at the start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "c_api_symbol_util.h"

static void test_json_roundtrip(void** state) {
  WeftSymbolHandle *s, *loaded, *again;
  WeftStringList *j1 = NULL, *j2 = NULL;
  const char *t1 = NULL, *t2 = NULL;
  int gen = -1, ver = -1, has = -1, upg = -1;
  char path[] = "/tmp/weft_symbol_test_XXXXXX";
  int fd;
  (void)state;
  s = make_abc();
  OK(weft_symbol_to_json(s, &j1));
  OK(weft_string_list_get(j1, 0, &t1));
  assert_non_null(strstr(t1, "\"mxnet_version\""));
  assert_non_null(strstr(t1, "\"elemwise_mul\""));
  OK(weft_symbol_from_json(t1, &loaded));
  expect_arguments(loaded, "a,b,c");
  expect_outputs(loaded, "sum_output");
  OK(weft_symbol_json_info(loaded, &gen, &ver, &has, &upg));
  assert_int_equal(gen, WEFT_JSON_MXNET_1);
  assert_true(ver >= 10000);
  assert_int_equal(has, 1);
  assert_int_equal(upg, 0);
  OK(weft_symbol_json_info(loaded, NULL, NULL, NULL, NULL));
  OK(weft_symbol_to_json(loaded, &j2));
  OK(weft_string_list_get(j2, 0, &t2));
  assert_string_equal(t1, t2);
  OK(weft_string_list_free(j2));

  /* Through a file. */
  fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  OK(weft_symbol_save_file(s, path));
  OK(weft_symbol_from_json_file(path, &again));
  OK(weft_symbol_to_json(again, &j2));
  OK(weft_string_list_get(j2, 0, &t2));
  assert_string_equal(t1, t2);
  OK(weft_string_list_free(j2));
  OK(weft_symbol_free(again));
  remove(path);

  /* Format info exists only for loaded symbols. */
  EXPECT_ERR(weft_symbol_json_info(s, &gen, &ver, &has, &upg), WEFT_ERR_NOT_FOUND,
             "not loaded from JSON");
  EXPECT_ERR(weft_symbol_to_json(s, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_symbol_save_file(s, NULL), WEFT_ERR_INVALID_ARGUMENT, "'path'");
  EXPECT_ERR(weft_symbol_save_file(s, ""), WEFT_ERR_INVALID_ARGUMENT, "'path'");
  EXPECT_ERR(weft_symbol_save_file(s, "/nonexistent-dir/x/y.json"), WEFT_ERR_IO,
             "/nonexistent-dir/x/y.json");
  EXPECT_ERR(weft_symbol_from_json_file("/nonexistent-dir/y.json", &again), WEFT_ERR_IO,
             "/nonexistent-dir/y.json");
  EXPECT_ERR(weft_symbol_from_json_file(NULL, &again), WEFT_ERR_INVALID_ARGUMENT, "'path'");
  EXPECT_ERR(weft_symbol_from_json_file("", &again), WEFT_ERR_INVALID_ARGUMENT, "'path'");
  EXPECT_ERR(weft_symbol_from_json(NULL, &again), WEFT_ERR_INVALID_ARGUMENT, "'json'");
  EXPECT_ERR(weft_symbol_from_json(t1, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  OK(weft_string_list_free(j1));
  OK(weft_symbol_free(loaded));
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static const char kLegacy08[] =
    "{\"nodes\": ["
    "{\"op\": \"null\", \"param\": {}, \"name\": \"x\", \"inputs\": [], "
    "\"backward_source_id\": -1, \"attr\": {\"lr_mult\": \"0.2\"}},"
    "{\"op\": \"relu\", \"param\": {}, \"name\": \"r\", \"inputs\": [[0, 0]], "
    "\"backward_source_id\": -1}],"
    "\"arg_nodes\": [0], \"heads\": [[1, 0]]}";

static void test_json_legacy(void** state) {
  WeftSymbolHandle* s = NULL;
  WeftStringList* l = NULL;
  int gen = -1, ver = -1, has = -1, upg = -1;
  (void)state;
  OK(weft_symbol_from_json(kLegacy08, &s));
  OK(weft_symbol_json_info(s, &gen, &ver, &has, &upg));
  assert_int_equal(gen, WEFT_JSON_MXNET_0_8);
  assert_int_equal(ver, 800);
  assert_int_equal(has, 0);
  assert_int_equal(upg, 1); /* lr_mult moved to __lr_mult__ */
  expect_arguments(s, "x");
  expect_outputs(s, "r_output");
  {
    WeftSymbolHandle* x = NULL;
    WeftSymbolHandle* internals = NULL;
    OK(weft_symbol_get_internals(s, &internals));
    OK(weft_symbol_get_output(internals, 0, &x));
    OK(weft_symbol_get_attr(x, "lr_mult", &l));
    expect_list(l, "0.2");
    OK(weft_symbol_free(x));
    OK(weft_symbol_free(internals));
  }
  OK(weft_symbol_free(s));
  assert_no_leaks();
}

static void test_json_malformed(void** state) {
  WeftSymbolHandle* s = NULL;
  (void)state;
  EXPECT_ERR(weft_symbol_from_json("{", &s), WEFT_ERR_INVALID_ARGUMENT, "JSON");
  EXPECT_ERR(weft_symbol_from_json("[1, 2]", &s), WEFT_ERR_INVALID_ARGUMENT, "JSON");
  EXPECT_ERR(weft_symbol_from_json("", &s), WEFT_ERR_INVALID_ARGUMENT, "JSON");
  EXPECT_ERR(weft_symbol_from_json("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", "
                                   "\"inputs\": []}, {\"op\": \"relu\", \"name\": \"r\", "
                                   "\"inputs\": [[7, 0, 0]]}], \"arg_nodes\": [0], "
                                   "\"heads\": [[1, 0, 0]]}",
                                   &s),
             WEFT_ERR_INVALID_ARGUMENT, "'r'", "7");
  EXPECT_ERR(weft_symbol_from_json("{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", "
                                   "\"inputs\": []}, {\"op\": \"FancyConv\", \"name\": \"conv9\", "
                                   "\"inputs\": [[0, 0, 0]]}], \"arg_nodes\": [0], "
                                   "\"heads\": [[1, 0, 0]]}",
                                   &s),
             WEFT_ERR_NOT_FOUND, "FancyConv", "conv9");
  assert_null(s);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_json_roundtrip),
      TEST(test_json_legacy),
      TEST(test_json_malformed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
