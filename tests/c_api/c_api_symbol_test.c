/*
 * The symbol C ABI: construction, composition, structure, listing,
 * attributes, string lists and handle checks (NULL arguments, freed handles,
 * double frees, handles of another type, bad ops and parameters).
 * Pure C99 against libweft.so (CMocka). Each test ends by asserting that
 * the number of live handles is back to its value at the start.
 */
#include "c_api_symbol_util.h"

static void test_variable(void** state) {
  WeftSymbolHandle* x;
  WeftStringList* l = NULL;
  size_t n = 0;
  (void)state;
  x = var("x");
  OK(weft_symbol_num_outputs(x, &n));
  assert_int_equal(n, 1);
  expect_arguments(x, "x");
  expect_outputs(x, "x");
  OK(weft_symbol_list_auxiliary_states(x, &l));
  expect_list(l, "");
  OK(weft_symbol_list_inputs(x, &l));
  expect_list(l, "x");
  OK(weft_symbol_get_name(x, &l));
  expect_list(l, "x");
  OK(weft_symbol_free(x));

  EXPECT_ERR(weft_symbol_create_variable(NULL, &x), WEFT_ERR_INVALID_ARGUMENT, "'name'", "NULL");
  EXPECT_ERR(weft_symbol_create_variable("", &x), WEFT_ERR_INVALID_ARGUMENT, "'name'");
  EXPECT_ERR(weft_symbol_create_variable("x", NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  assert_no_leaks();
}

static void test_string_list(void** state) {
  WeftSymbolHandle* g;
  WeftSymbolHandle* parts[2];
  WeftStringList* l = NULL;
  size_t n = 0;
  const char* s = NULL;
  (void)state;
  parts[0] = var("p");
  parts[1] = var("q");
  OK(weft_symbol_group(parts, 2, &g));
  OK(weft_symbol_list_outputs(g, &l));
  OK(weft_string_list_size(l, &n));
  assert_int_equal(n, 2);
  OK(weft_string_list_get(l, 1, &s));
  assert_string_equal(s, "q");
  /* The string stays valid across other calls until the list is freed. */
  expect_arguments(g, "p,q");
  assert_string_equal(s, "q");
  EXPECT_ERR(weft_string_list_get(l, 2, &s), WEFT_ERR_INVALID_ARGUMENT, "'index' is 2",
             "has 2 entries");
  EXPECT_ERR(weft_string_list_get(l, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out_str'");
  EXPECT_ERR(weft_string_list_size(l, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_string_list_size(NULL, &n), WEFT_ERR_INVALID_ARGUMENT, "'list'");
  /* A symbol handle is not a string list. */
  EXPECT_ERR(weft_string_list_size((const WeftStringList*)g, &n), WEFT_ERR_INVALID_HANDLE,
             "WeftSymbolHandle handle, expected a WeftStringList");
  OK(weft_string_list_free(l));
  EXPECT_ERR(weft_string_list_size(l, &n), WEFT_ERR_INVALID_HANDLE, "freed or invalid",
             "WeftStringList");
  EXPECT_ERR(weft_string_list_free(l), WEFT_ERR_INVALID_HANDLE, "freed or invalid");
  OK(weft_string_list_free(NULL));
  OK(weft_symbol_free(parts[0]));
  OK(weft_symbol_free(parts[1]));
  OK(weft_symbol_free(g));
  assert_no_leaks();
}

static void test_atomic_compose_positional(void** state) {
  const char* keys[] = {"a", "b", "c"};
  const char* vals[] = {"1", "2", "3.5"};
  WeftSymbolHandle *x, *q;
  WeftStringList *l = NULL, *k = NULL, *v = NULL;
  (void)state;
  x = var("x");
  OK(weft_symbol_create_atomic("quadratic", keys, vals, 3, &q));
  OK(weft_symbol_compose(q, "q1", 1, NULL, &x));
  expect_arguments(q, "x");
  expect_outputs(q, "q1_output");
  OK(weft_symbol_get_name(q, &l));
  expect_list(l, "q1");
  OK(weft_symbol_list_attr(q, 0, &k, &v));
  expect_list(k, "a,b,c");
  expect_list(v, "1,2,3.5");
  OK(weft_symbol_free(x));
  OK(weft_symbol_free(q));
  assert_no_leaks();
}

static void test_compose_keyword_and_auto_names(void** state) {
  const char* kw[] = {"rhs"};
  const char* mixed[] = {NULL, "rhs"};
  WeftSymbolHandle *x, *y, *s, *t;
  WeftSymbolHandle* args2[2];
  WeftStringList* l = NULL;
  const char* name = NULL;
  (void)state;
  x = var("x");
  y = var("y");
  /* Only rhs given: lhs becomes the automatic variable add1_lhs. */
  OK(weft_symbol_create_atomic("elemwise_add", NULL, NULL, 0, &s));
  OK(weft_symbol_compose(s, "add1", 1, kw, &y));
  expect_arguments(s, "add1_lhs,y");
  OK(weft_symbol_free(s));
  /* Positional then keyword (keys[i] == NULL = positional). */
  args2[0] = x;
  args2[1] = y;
  OK(weft_symbol_create_atomic("_plus", NULL, NULL, 0, &s));
  OK(weft_symbol_compose(s, "", 2, mixed, args2));
  expect_arguments(s, "x,y");
  /* Automatic name from the op name as requested, lowercased. */
  OK(weft_symbol_get_name(s, &l));
  OK(weft_string_list_get(l, 0, &name));
  assert_true(strncmp(name, "_plus", 5) == 0);
  OK(weft_string_list_free(l));
  /* Composing a graph by variable name replaces that variable (on a copy). */
  OK(weft_symbol_copy(s, &t));
  {
    const char* key[] = {"y"};
    WeftSymbolHandle* z = var("z");
    OK(weft_symbol_compose(t, NULL, 1, key, &z));
    expect_arguments(t, "x,z");
    expect_arguments(s, "x,y");
    OK(weft_symbol_free(z));
  }
  OK(weft_symbol_free(t));
  OK(weft_symbol_free(s));
  OK(weft_symbol_free(x));
  OK(weft_symbol_free(y));
  assert_no_leaks();
}

static void test_compose_errors(void** state) {
  const char* bad_key[] = {"nope"};
  const char* dup_keys[] = {"lhs", "lhs"};
  const char* kw_then_pos[] = {"lhs", NULL};
  WeftSymbolHandle *x, *y, *s, *g, *freed;
  WeftSymbolHandle* args3[3];
  WeftSymbolHandle* pair[2];
  WeftNDArray* arr = NULL;
  int64_t shape[1] = {2};
  (void)state;
  x = var("x");
  y = var("y");
  pair[0] = x;
  pair[1] = y;
  OK(weft_symbol_group(pair, 2, &g));
  OK(weft_symbol_create_atomic("elemwise_add", NULL, NULL, 0, &s));
  EXPECT_ERR(weft_symbol_compose(s, "e", 1, bad_key, &x), WEFT_ERR_INVALID_ARGUMENT,
             "no input named 'nope'", "lhs", "rhs");
  args3[0] = x;
  args3[1] = y;
  args3[2] = x;
  EXPECT_ERR(weft_symbol_compose(s, "e", 3, NULL, args3), WEFT_ERR_INVALID_ARGUMENT,
             "too many positional arguments", "given 3", "takes 2");
  EXPECT_ERR(weft_symbol_compose(s, "e", 1, NULL, &g), WEFT_ERR_INVALID_ARGUMENT, "argument 0",
             "lhs");
  EXPECT_ERR(weft_symbol_compose(s, "e", 2, dup_keys, pair), WEFT_ERR_INVALID_ARGUMENT,
             "'lhs' is given twice");
  EXPECT_ERR(weft_symbol_compose(s, "e", 2, kw_then_pos, pair), WEFT_ERR_INVALID_ARGUMENT,
             "keys[1]", "positional");
  EXPECT_ERR(weft_symbol_compose(s, "e", 2, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT, "'args'",
             "NULL");
  EXPECT_ERR(weft_symbol_compose(NULL, "e", 0, NULL, NULL), WEFT_ERR_INVALID_ARGUMENT, "'sym'");
  freed = var("f");
  OK(weft_symbol_free(freed));
  EXPECT_ERR(weft_symbol_compose(s, "e", 1, NULL, &freed), WEFT_ERR_INVALID_HANDLE, "args[0]",
             "freed or invalid WeftSymbolHandle");
  OK(weft_ndarray_create(shape, 1, WEFT_FLOAT32, WEFT_CPU, 0, &arr));
  EXPECT_ERR(weft_symbol_compose(s, "e", 1, NULL, (WeftSymbolHandle**)&arr),
             WEFT_ERR_INVALID_HANDLE, "args[0]", "WeftNDArray handle, expected a WeftSymbolHandle");
  OK(weft_ndarray_free(arr));
  /* After all those failures, s is still the uncomposed atomic symbol. */
  OK(weft_symbol_compose(s, "e", 2, NULL, pair));
  expect_arguments(s, "x,y");
  /* A composed graph takes no name. */
  EXPECT_ERR(weft_symbol_compose(s, "again", 1, NULL, &x), WEFT_ERR_INVALID_ARGUMENT, "name");
  expect_arguments(s, "x,y");
  OK(weft_symbol_free(s));
  OK(weft_symbol_free(g));
  OK(weft_symbol_free(x));
  OK(weft_symbol_free(y));
  assert_no_leaks();
}

static void test_create_atomic_errors(void** state) {
  const char* k1[] = {"a"};
  const char* bad_val[] = {"not_a_number"};
  const char* unknown_key[] = {"zeta"};
  const char* null_key[] = {NULL};
  const char* null_val[] = {NULL};
  const char* dup_k[] = {"a", "a"};
  const char* dup_v[] = {"1", "2"};
  WeftSymbolHandle* s = NULL;
  (void)state;
  EXPECT_ERR(weft_symbol_create_atomic("NoSuchOp", NULL, NULL, 0, &s), WEFT_ERR_NOT_FOUND,
             "NoSuchOp");
  EXPECT_ERR(weft_symbol_create_atomic("quadratic", k1, bad_val, 1, &s), WEFT_ERR_INVALID_ARGUMENT,
             "quadratic", "'a'", "not_a_number");
  EXPECT_ERR(weft_symbol_create_atomic("quadratic", unknown_key, k1, 1, &s),
             WEFT_ERR_INVALID_ARGUMENT, "quadratic", "zeta");
  EXPECT_ERR(weft_symbol_create_atomic("quadratic", null_key, k1, 1, &s), WEFT_ERR_INVALID_ARGUMENT,
             "keys[0]");
  EXPECT_ERR(weft_symbol_create_atomic("quadratic", k1, null_val, 1, &s), WEFT_ERR_INVALID_ARGUMENT,
             "vals[0]", "'a'", "quadratic");
  EXPECT_ERR(weft_symbol_create_atomic("quadratic", dup_k, dup_v, 2, &s), WEFT_ERR_INVALID_ARGUMENT,
             "'a' is given twice");
  EXPECT_ERR(weft_symbol_create_atomic("quadratic", NULL, NULL, 1, &s), WEFT_ERR_INVALID_ARGUMENT,
             "'keys'", "NULL");
  EXPECT_ERR(weft_symbol_create_atomic(NULL, NULL, NULL, 0, &s), WEFT_ERR_INVALID_ARGUMENT, "'op'");
  EXPECT_ERR(weft_symbol_create_atomic("quadratic", NULL, NULL, 0, NULL), WEFT_ERR_INVALID_ARGUMENT,
             "'out'");
  assert_null(s);
  assert_no_leaks();
}

static void test_group_output_internals_children(void** state) {
  WeftSymbolHandle *x, *q, *r, *g, *o, *internals, *children;
  WeftSymbolHandle* pair[2];
  size_t n = 0;
  (void)state;
  x = var("x");
  q = apply("relu", "q", &x, 1);
  r = apply("sigmoid", "r", &q, 1);
  pair[0] = q;
  pair[1] = r;
  OK(weft_symbol_group(pair, 2, &g));
  OK(weft_symbol_num_outputs(g, &n));
  assert_int_equal(n, 2);
  expect_outputs(g, "q_output,r_output");
  expect_arguments(g, "x");
  OK(weft_symbol_get_output(g, 1, &o));
  expect_outputs(o, "r_output");
  OK(weft_symbol_free(o));
  EXPECT_ERR(weft_symbol_get_output(g, 2, &o), WEFT_ERR_INVALID_ARGUMENT, "'index' is 2",
             "2 output(s)", "q_output, r_output");
  EXPECT_ERR(weft_symbol_get_output(g, 0, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  OK(weft_symbol_get_internals(r, &internals));
  expect_outputs(internals, "x,q_output,r_output");
  OK(weft_symbol_free(internals));
  OK(weft_symbol_get_children(r, &children));
  expect_outputs(children, "q_output");
  OK(weft_symbol_free(children));
  OK(weft_symbol_get_children(x, &children));
  OK(weft_symbol_num_outputs(children, &n));
  assert_int_equal(n, 0);
  OK(weft_symbol_free(children));
  EXPECT_ERR(weft_symbol_group(NULL, 1, &o), WEFT_ERR_INVALID_ARGUMENT, "'symbols'");
  EXPECT_ERR(weft_symbol_group(pair, 2, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_symbol_get_internals(r, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_symbol_get_children(NULL, &o), WEFT_ERR_INVALID_ARGUMENT, "'sym'");
  EXPECT_ERR(weft_symbol_num_outputs(r, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  OK(weft_symbol_free(g));
  OK(weft_symbol_free(r));
  OK(weft_symbol_free(q));
  OK(weft_symbol_free(x));
  assert_no_leaks();
}

static void test_copy_is_deep(void** state) {
  WeftSymbolHandle *x, *q, *c;
  WeftStringList* l = NULL;
  (void)state;
  x = var("x");
  q = apply("relu", "q", &x, 1);
  OK(weft_symbol_copy(q, &c));
  OK(weft_symbol_set_attr(c, "ctx_group", "copied"));
  OK(weft_symbol_get_attr(q, "ctx_group", &l));
  expect_list(l, "");
  OK(weft_symbol_get_attr(c, "ctx_group", &l));
  expect_list(l, "copied");
  /* An op node takes only parameters and hidden keys. */
  EXPECT_ERR(weft_symbol_set_attr(c, "mood", "x"), WEFT_ERR_INVALID_ARGUMENT, "relu", "'mood'");
  expect_arguments(c, "x");
  EXPECT_ERR(weft_symbol_copy(q, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  OK(weft_symbol_free(c));
  OK(weft_symbol_free(q));
  OK(weft_symbol_free(x));
  assert_no_leaks();
}

static void test_attributes(void** state) {
  WeftSymbolHandle *x, *q, *g;
  WeftSymbolHandle* pair[2];
  WeftStringList *l = NULL, *k = NULL, *v = NULL;
  (void)state;
  x = var("x");
  OK(weft_symbol_set_attr(x, "lr_mult", "0.5"));
  OK(weft_symbol_set_attr(x, "note", "hi"));
  OK(weft_symbol_get_attr(x, "lr_mult", &l));
  expect_list(l, "0.5");
  OK(weft_symbol_get_attr(x, "__lr_mult__", &l));
  expect_list(l, "0.5");
  OK(weft_symbol_get_attr(x, "absent", &l));
  expect_list(l, "");
  OK(weft_symbol_list_attr(x, 0, &k, &v));
  expect_list(k, "__lr_mult__,note");
  expect_list(v, "0.5,hi");
  q = apply("relu", "q", &x, 1);
  OK(weft_symbol_set_attr(q, "ctx_group", "dev1"));
  OK(weft_symbol_list_attr(q, 1, &k, &v));
  expect_list(k, "q$__ctx_group__,x$__lr_mult__,x$note");
  expect_list(v, "dev1,0.5,hi");
  pair[0] = x;
  pair[1] = q;
  OK(weft_symbol_group(pair, 2, &g));
  EXPECT_ERR(weft_symbol_get_attr(g, "note", &l), WEFT_ERR_INVALID_ARGUMENT, "GetAttr");
  EXPECT_ERR(weft_symbol_set_attr(g, "note", "x"), WEFT_ERR_INVALID_ARGUMENT, "SetAttr");
  EXPECT_ERR(weft_symbol_list_attr(g, 0, &k, &v), WEFT_ERR_INVALID_ARGUMENT, "ListAttrShallow");
  OK(weft_symbol_get_name(g, &l));
  expect_list(l, "");
  OK(weft_symbol_list_attr(g, 1, &k, &v));
  expect_list(k, "q$__ctx_group__,x$__lr_mult__,x$note");
  OK(weft_string_list_free(v));
  EXPECT_ERR(weft_symbol_set_attr(x, NULL, "v"), WEFT_ERR_INVALID_ARGUMENT, "'key'");
  EXPECT_ERR(weft_symbol_set_attr(x, "k", NULL), WEFT_ERR_INVALID_ARGUMENT, "'value'");
  EXPECT_ERR(weft_symbol_set_attr(x, "", "v"), WEFT_ERR_INVALID_ARGUMENT, "empty");
  EXPECT_ERR(weft_symbol_get_attr(x, NULL, &l), WEFT_ERR_INVALID_ARGUMENT, "'key'");
  EXPECT_ERR(weft_symbol_get_attr(x, "k", NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  EXPECT_ERR(weft_symbol_list_attr(x, 0, NULL, &v), WEFT_ERR_INVALID_ARGUMENT, "'out_keys'");
  EXPECT_ERR(weft_symbol_list_attr(x, 0, &k, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out_values'");
  EXPECT_ERR(weft_symbol_get_name(x, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'");
  OK(weft_symbol_free(g));
  OK(weft_symbol_free(q));
  OK(weft_symbol_free(x));
  assert_no_leaks();
}

static void test_freed_and_foreign_handles(void** state) {
  WeftSymbolHandle *x, *out = NULL;
  WeftStringList* l = NULL;
  WeftNDArray* arr = NULL;
  WeftShapeResult* r = NULL;
  int64_t shape[1] = {3};
  size_t n = 0;
  (void)state;
  x = var("x");
  OK(weft_symbol_free(x));
  EXPECT_ERR(weft_symbol_free(x), WEFT_ERR_INVALID_HANDLE, "'sym'",
             "freed or invalid WeftSymbolHandle");
  EXPECT_ERR(weft_symbol_num_outputs(x, &n), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_list_arguments(x, &l), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_list_outputs(x, &l), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_list_auxiliary_states(x, &l), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_list_inputs(x, &l), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_get_name(x, &l), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_get_attr(x, "k", &l), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_set_attr(x, "k", "v"), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_copy(x, &out), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_get_output(x, 0, &out), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_get_internals(x, &out), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_get_children(x, &out), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_to_json(x, &l), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_save_file(x, "/tmp/never_written.json"), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_json_info(x, NULL, NULL, NULL, NULL), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_infer_shape_partial(x, 0, NULL, NULL, NULL, &r), WEFT_ERR_INVALID_HANDLE,
             "'sym'");
  EXPECT_ERR(weft_symbol_group(&x, 1, &out), WEFT_ERR_INVALID_HANDLE, "symbols[0]");
  assert_null(out);
  assert_null(l);

  /* An NDArray handle is not a symbol, and vice versa. */
  OK(weft_ndarray_create(shape, 1, WEFT_FLOAT32, WEFT_CPU, 0, &arr));
  EXPECT_ERR(weft_symbol_free((WeftSymbolHandle*)arr), WEFT_ERR_INVALID_HANDLE,
             "WeftNDArray handle, expected a WeftSymbolHandle handle");
  EXPECT_ERR(weft_shape_result_free((WeftShapeResult*)arr), WEFT_ERR_INVALID_HANDLE,
             "WeftNDArray handle, expected a WeftShapeResult handle");
  OK(weft_ndarray_free(arr));
  x = var("x");
  EXPECT_ERR(weft_ndarray_free((WeftNDArray*)x), WEFT_ERR_INVALID_HANDLE, "WeftNDArray");
  EXPECT_ERR(weft_type_result_free((WeftTypeResult*)x), WEFT_ERR_INVALID_HANDLE,
             "WeftSymbolHandle handle, expected a WeftTypeResult handle");
  /* A real pointer is no handle at all. */
  EXPECT_ERR(weft_symbol_free((WeftSymbolHandle*)&n), WEFT_ERR_INVALID_HANDLE,
             "freed or invalid WeftSymbolHandle");
  OK(weft_symbol_free(x));
  OK(weft_symbol_free(NULL));
  assert_no_leaks();
}

static void test_null_outputs_and_arguments(void** state) {
  WeftSymbolHandle *x, *q, *out = NULL;
  WeftSymbolHandle* with_null[2];
  WeftTypeResult* t = NULL;
  WeftShapeResult* r = NULL;
  WeftStringList* l = NULL;
  (void)state;
  x = var("x");
  q = apply("relu", "q", &x, 1);
  /* Every listing needs somewhere to put its list. */
  EXPECT_ERR(weft_symbol_list_arguments(q, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'", "NULL");
  EXPECT_ERR(weft_symbol_list_outputs(q, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'", "NULL");
  EXPECT_ERR(weft_symbol_list_auxiliary_states(q, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'",
             "NULL");
  EXPECT_ERR(weft_symbol_list_inputs(q, NULL), WEFT_ERR_INVALID_ARGUMENT, "'out'", "NULL");
  EXPECT_ERR(weft_symbol_list_arguments(NULL, &l), WEFT_ERR_INVALID_ARGUMENT, "'sym'", "NULL");
  EXPECT_ERR(weft_symbol_get_attr(NULL, "k", &l), WEFT_ERR_INVALID_ARGUMENT, "'sym'", "NULL");
  EXPECT_ERR(weft_symbol_set_attr(NULL, "k", "v"), WEFT_ERR_INVALID_ARGUMENT, "'sym'", "NULL");
  EXPECT_ERR(weft_symbol_copy(NULL, &out), WEFT_ERR_INVALID_ARGUMENT, "'sym'", "NULL");
  EXPECT_ERR(weft_symbol_get_output(NULL, 0, &out), WEFT_ERR_INVALID_ARGUMENT, "'sym'", "NULL");
  EXPECT_ERR(weft_symbol_to_json(NULL, &l), WEFT_ERR_INVALID_ARGUMENT, "'sym'", "NULL");
  EXPECT_ERR(weft_symbol_infer_type(NULL, 0, NULL, NULL, &t), WEFT_ERR_INVALID_ARGUMENT, "'sym'",
             "NULL");
  /* A NULL entry inside an array of handles is named by its index. */
  with_null[0] = x;
  with_null[1] = NULL;
  EXPECT_ERR(weft_symbol_group(with_null, 2, &out), WEFT_ERR_INVALID_ARGUMENT, "symbols[1]");
  assert_null(out);
  assert_null(l);
  assert_null(t);
  OK(weft_symbol_free(q));
  OK(weft_symbol_free(x));
  /* A freed handle is refused by type inference and JSON export too. */
  EXPECT_ERR(weft_symbol_infer_type_partial(x, 0, NULL, NULL, &t), WEFT_ERR_INVALID_HANDLE, "'sym'",
             "freed or invalid WeftSymbolHandle");
  EXPECT_ERR(weft_symbol_infer_shape(x, 0, NULL, NULL, NULL, &r), WEFT_ERR_INVALID_HANDLE, "'sym'");
  EXPECT_ERR(weft_symbol_json_info(x, NULL, NULL, NULL, NULL), WEFT_ERR_INVALID_HANDLE, "'sym'");
  assert_null(r);
  assert_null(t);
  assert_no_leaks();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      TEST(test_variable),
      TEST(test_string_list),
      TEST(test_atomic_compose_positional),
      TEST(test_compose_keyword_and_auto_names),
      TEST(test_compose_errors),
      TEST(test_create_atomic_errors),
      TEST(test_group_output_internals_children),
      TEST(test_copy_is_deep),
      TEST(test_attributes),
      TEST(test_freed_and_foreign_handles),
      TEST(test_null_outputs_and_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
