#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "weft/param.h"
#include "weft/status.h"

namespace weft {
namespace {

std::vector<ParamDecl> Decls() {
  std::vector<ParamDecl> d(8);
  d[0].name = "num_hidden";
  d[0].type = ParamType::kInt;
  d[0].required = true;
  d[0].lo = 1;
  d[0].hi = 1e9;
  d[1].name = "eps";
  d[1].type = ParamType::kFloat;
  d[1].default_value = "1e-05";
  d[2].name = "no_bias";
  d[2].type = ParamType::kBool;
  d[2].default_value = "False";
  d[3].name = "kernel";
  d[3].type = ParamType::kShape;
  d[3].default_value = "(1, 1)";
  d[4].name = "act_type";
  d[4].type = ParamType::kEnum;
  d[4].default_value = "relu";
  d[4].choices = {"relu", "sigmoid", "tanh"};
  d[5].name = "axis";
  d[5].type = ParamType::kInt;
  d[5].default_value = "None";
  d[5].optional = true;
  d[6].name = "dtype";
  d[6].type = ParamType::kDType;
  d[6].default_value = "float32";
  d[7].name = "ctx";
  d[7].type = ParamType::kContext;
  d[7].default_value = "cpu(0)";
  return d;
}

// Parses and returns the error (fails the test when parsing succeeds).
Error ParseError(const StringMap& kw) {
  static const std::vector<ParamDecl> decls = Decls();
  try {
    ParseParams("MyOp", &decls, kw);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a parse error";
  return Error(StatusCode::kOk, "");
}

void ExpectMentions(const Error& e, std::initializer_list<const char*> words) {
  EXPECT_EQ(e.code(), StatusCode::kInvalidArgument) << e.what();
  for (const char* w : words)
    EXPECT_NE(std::string(e.what()).find(w), std::string::npos) << w << " in: " << e.what();
}

TEST(Params, ParsesMXNetConventionsAndDefaults) {
  const auto decls = Decls();
  ParamValues p = ParseParams("MyOp", &decls,
                              {{"num_hidden", "128"},
                               {"no_bias", "True"},
                               {"kernel", "(3, 3)"},
                               {"act_type", "tanh"},
                               {"dtype", "float64"},
                               {"ctx", "gpu(1)"}});
  EXPECT_EQ(p.GetInt("num_hidden"), 128);
  EXPECT_DOUBLE_EQ(p.GetFloat("eps"), 1e-5);
  EXPECT_TRUE(p.GetBool("no_bias"));
  EXPECT_EQ(p.GetShape("kernel"), Shape({3, 3}));
  EXPECT_EQ(p.GetString("act_type"), "tanh");
  EXPECT_EQ(p.Get("act_type").i, 2);
  EXPECT_TRUE(p.IsNone("axis"));
  EXPECT_EQ(p.GetDType("dtype"), DType::kFloat64);
  EXPECT_EQ(p.GetContext("ctx"), Context::GPU(1));
}

TEST(Params, BooleansAcceptAllSpellings) {
  const auto decls = Decls();
  for (auto [text, want] : std::vector<std::pair<std::string, bool>>{{"True", true},
                                                                     {"true", true},
                                                                     {"1", true},
                                                                     {"False", false},
                                                                     {"false", false},
                                                                     {"0", false}}) {
    auto p = ParseParams("MyOp", &decls, {{"num_hidden", "1"}, {"no_bias", text}});
    EXPECT_EQ(p.GetBool("no_bias"), want) << text;
  }
}

TEST(Params, OptionalAcceptsNoneAndValues) {
  const auto decls = Decls();
  auto p = ParseParams("MyOp", &decls, {{"num_hidden", "1"}, {"axis", "-1"}});
  EXPECT_FALSE(p.IsNone("axis"));
  EXPECT_EQ(p.GetInt("axis"), -1);
}

TEST(Params, HiddenKeysAreSkipped) {
  const auto decls = Decls();
  EXPECT_NO_THROW(ParseParams("MyOp", &decls, {{"num_hidden", "1"}, {"__lr_mult__", "2"}}));
}

TEST(Params, UnknownKeyNamesOpKeyValueAndChoices) {
  ExpectMentions(ParseError({{"num_hidden", "1"}, {"num_hiden", "5"}}),
                 {"MyOp", "num_hiden", "'5'", "num_hidden", "eps"});
}

TEST(Params, MissingRequired) { ExpectMentions(ParseError({}), {"MyOp", "num_hidden", "missing"}); }

TEST(Params, BadInt) {
  ExpectMentions(ParseError({{"num_hidden", "12x"}}), {"MyOp", "num_hidden", "12x", "integer"});
}

TEST(Params, IntOutOfRange) {
  ExpectMentions(ParseError({{"num_hidden", "0"}}), {"num_hidden", "range"});
}

TEST(Params, BadFloat) {
  ExpectMentions(ParseError({{"num_hidden", "1"}, {"eps", "tiny"}}),
                 {"MyOp", "eps", "tiny", "number"});
}

TEST(Params, BadBool) {
  ExpectMentions(ParseError({{"num_hidden", "1"}, {"no_bias", "yes"}}),
                 {"no_bias", "yes", "boolean"});
}

TEST(Params, BadShape) {
  ExpectMentions(ParseError({{"num_hidden", "1"}, {"kernel", "(3,,3)"}}),
                 {"kernel", "(3,,3)", "tuple"});
}

TEST(Params, BadEnumListsChoices) {
  ExpectMentions(ParseError({{"num_hidden", "1"}, {"act_type", "gelu"}}),
                 {"act_type", "gelu", "'relu'", "'sigmoid'", "'tanh'"});
}

TEST(Params, NoneForNonOptional) {
  ExpectMentions(ParseError({{"num_hidden", "None"}}), {"num_hidden", "None"});
}

TEST(Params, BadDTypeAndContext) {
  ExpectMentions(ParseError({{"num_hidden", "1"}, {"dtype", "float8"}}), {"dtype", "float8"});
  ExpectMentions(ParseError({{"num_hidden", "1"}, {"ctx", "tpu(0)"}}), {"ctx", "tpu(0)"});
}

TEST(Params, IntegralFloatTextIsAnInt) {
  const auto decls = Decls();
  EXPECT_EQ(ParseParams("MyOp", &decls, {{"num_hidden", "3.0"}}).GetInt("num_hidden"), 3);
  ExpectMentions(ParseError({{"num_hidden", "3.5"}}), {"num_hidden", "3.5"});
}

TEST(Params, UndeclaredGetterIsInternalError) {
  const auto decls = Decls();
  auto p = ParseParams("MyOp", &decls, {{"num_hidden", "1"}});
  try {
    p.GetInt("nope");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInternal);
  }
}

// A struct decoded from the parameters, counting its decodes.
std::atomic<int> g_decodes{0};
struct Hidden {
  int64_t n = 0;
  bool bias = true;
  static Hidden Decode(const ParamValues& p) {
    ++g_decodes;
    return {p.GetInt("num_hidden"), !p.GetBool("no_bias")};
  }
};
struct Eps {
  double eps = 0;
  static Eps Decode(const ParamValues& p) { return {p.GetFloat("eps")}; }
};

TEST(ParamValues, DecodedOncePerParseSharedByCopiesAndThreads) {
  const auto decls = Decls();
  const ParamValues p = ParseParams("op", &decls, {{"num_hidden", "7"}, {"no_bias", "True"}});
  g_decodes = 0;
  std::vector<std::thread> threads;
  std::vector<const Hidden*> seen(8, nullptr);
  for (size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      const ParamValues copy = p;  // copies share the decoded struct
      seen[t] = &copy.Decoded<Hidden>();
    });
  for (auto& t : threads) t.join();
  // Threads racing on the first call may each decode; one result is kept.
  const int first = g_decodes.load();
  EXPECT_GE(first, 1);
  for (const Hidden* h : seen) EXPECT_EQ(h, &p.Decoded<Hidden>());
  EXPECT_EQ(p.Decoded<Hidden>().n, 7);
  EXPECT_FALSE(p.Decoded<Hidden>().bias);
  EXPECT_EQ(g_decodes.load(), first);            // later calls read the kept struct
  EXPECT_DOUBLE_EQ(p.Decoded<Eps>().eps, 1e-5);  // another struct, its own entry
  // Another parse decodes again (its values may differ).
  const ParamValues q = ParseParams("op", &decls, {{"num_hidden", "9"}});
  EXPECT_EQ(q.Decoded<Hidden>().n, 9);
  EXPECT_TRUE(q.Decoded<Hidden>().bias);
  EXPECT_EQ(g_decodes.load(), first + 1);
  EXPECT_TRUE(p.Has("eps"));
  EXPECT_FALSE(p.Has("no_such"));
}

}  // namespace
}  // namespace weft
