/*
 * C ABI test (C99, CMocka, against libweft.so): weft_symbol_summary and
 * weft_symbol_to_dot on a*b + b*c, and their error paths.
 */
#include "c_api_symbol_util.h"

static void take(WeftStringList* l, char* out, size_t cap) {
  const char* s = NULL;
  OK(weft_string_list_get(l, 0, &s));
  snprintf(out, cap, "%s", s);
  OK(weft_string_list_free(l));
}

static void test_summary_and_dot(void** state) {
  static char text[1 << 16];
  WeftSymbolHandle* sym = make_abc();
  const char* names[] = {"a", "b", "c"};
  const size_t ind_ptr[] = {0, 2, 4, 6};
  const int64_t dims[] = {2, 3, 2, 3, 2, 3};
  const char* keys[] = {"title", "hide_weights", "node_attr.fontsize"};
  const char* values[] = {"abc", "0", "9"};
  const char* bad_key[] = {"colour"};
  WeftStringList* l = NULL;
  (void)state;
  OK(weft_symbol_summary(sym, 3, names, ind_ptr, dims, &l));
  take(l, text, sizeof text);
  assert_non_null(strstr(text, "sum(elemwise_add)"));
  assert_non_null(strstr(text, "Total params: 0"));
  assert_non_null(strstr(text, "Total FLOPs: 18")); /* 6 + 6 + 6 elements */
  OK(weft_symbol_to_dot(sym, 3, names, ind_ptr, dims, 3, keys, values, &l));
  take(l, text, sizeof text);
  assert_non_null(strstr(text, "digraph \"abc\""));
  assert_non_null(strstr(text, "fontsize=\"9\""));
  assert_non_null(strstr(text, "label=\"3\"")); /* (2,3) without the batch axis */
  EXPECT_ERR(weft_symbol_to_dot(sym, 3, names, ind_ptr, dims, 1, bad_key, values, &l),
             WEFT_ERR_INVALID_ARGUMENT, "unknown option 'colour'");
  EXPECT_ERR(weft_symbol_summary(NULL, 0, NULL, NULL, NULL, &l), WEFT_ERR_INVALID_ARGUMENT, "sym");
  EXPECT_ERR(weft_symbol_summary(sym, 0, NULL, NULL, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT, "out");
  OK(weft_symbol_free(sym));
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_summary_and_dot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
