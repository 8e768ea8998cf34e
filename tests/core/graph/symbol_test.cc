// Symbol construction, naming, composition, listing and copying (MXNet semantics).
#include "weft/runtime.h"
#include "weft/symbol.h"

#include <gtest/gtest.h>

#include "core/graph/graph_test_ops.h"
#include "util/test_util.h"
#include "weft/graph_algorithm.h"

namespace weft {
namespace {

using Names = std::vector<std::string>;
const OpRegistry& Reg() { return test::TestRegistry(); }

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }
Symbol FC(const Symbol& data, int hidden, const std::string& name = "") {
  return Symbol::Apply(Reg(), "FullyConnected", {data}, {{"num_hidden", std::to_string(hidden)}},
                       name);
}

using test::ExpectError;

TEST(SymbolTest, VariableStoresHintsAsHiddenAttributes) {
  VariableHints h;
  h.shape = Shape{2, 0};
  h.dtype = DType::kFloat16;
  h.init = "[\"zero\", {}]";
  h.lr_mult = 0.5;
  h.wd_mult = 2;
  h.attrs = {{"ctx_group", "dev1"}, {"mood", "calm"}};
  Symbol v = Symbol::CreateVariable("w", h);
  StringMap a = v.ListAttrShallow();
  EXPECT_EQ(a["__shape__"], "(2,0)");
  EXPECT_EQ(a["__dtype__"], "2");
  EXPECT_EQ(a["__init__"], "[\"zero\", {}]");
  EXPECT_EQ(a["__lr_mult__"], "0.5");
  EXPECT_EQ(a["__wd_mult__"], "2");
  EXPECT_EQ(a["__ctx_group__"], "dev1");
  EXPECT_EQ(a["mood"], "calm");
  EXPECT_EQ(v.ListArguments(), Names{"w"});
  EXPECT_EQ(v.ListOutputs(), Names{"w"});
  EXPECT_EQ(*v.GetName(), "w");
  ExpectError([] { Symbol::CreateVariable(""); }, StatusCode::kInvalidArgument, {"name"});
}

TEST(SymbolTest, AutomaticNamesAndArgumentVariables) {
  NameScope scope;
  Symbol data = Var("data");
  Symbol a = FC(data, 10), b = FC(a, 5);
  EXPECT_EQ(*a.GetName(), "fullyconnected0");
  EXPECT_EQ(*b.GetName(), "fullyconnected1");
  EXPECT_EQ(b.ListArguments(), (Names{"data", "fullyconnected0_weight", "fullyconnected0_bias",
                                      "fullyconnected1_weight", "fullyconnected1_bias"}));
  Symbol c = FC(data, 3, "fc1");
  EXPECT_EQ(c.ListArguments(), (Names{"data", "fc1_weight", "fc1_bias"}));
  EXPECT_EQ(c.ListOutputs(), Names{"fc1_output"});
  // The hint is the op name as requested, lowercased; each hint counts alone.
  Symbol s = Symbol::Apply(Reg(), "_PlusScalar", {data}, {{"scalar", "1"}});
  EXPECT_EQ(*s.GetName(), "_plusscalar0");
  EXPECT_EQ(*FC(data, 3).GetName(), "fullyconnected2");
}

TEST(SymbolTest, NameScopeRestartsCountersAndPrefixes) {
  NameScope outer;
  Symbol data = Var("data");
  EXPECT_EQ(*FC(data, 2).GetName(), "fullyconnected0");
  {
    NameScope inner("net_");
    EXPECT_EQ(*FC(data, 2).GetName(), "net_fullyconnected0");
    Symbol named = FC(data, 2, "fc");
    EXPECT_EQ(*named.GetName(), "net_fc");
    EXPECT_EQ(named.ListArguments(), (Names{"data", "net_fc_weight", "net_fc_bias"}));
  }
  EXPECT_EQ(*FC(data, 2).GetName(), "fullyconnected1");
}

TEST(SymbolTest, AutomaticVariablesCopyTheNodeAttributes) {
  Symbol fc = Symbol::Apply(Reg(), "FullyConnected", {Var("data")},
                            {{"num_hidden", "4"}, {"lr_mult", "0.1"}}, "fc2");
  EXPECT_EQ(fc.GetAttr("lr_mult").value(), "0.1");
  std::map<std::string, StringMap> d = fc.AttrDict();
  EXPECT_EQ(d["fc2"]["__lr_mult__"], "0.1");
  EXPECT_EQ(d["fc2_weight"]["__lr_mult__"], "0.1");
  EXPECT_EQ(d["fc2_weight"]["num_hidden"], "4");
  EXPECT_EQ(d["fc2_bias"]["__lr_mult__"], "0.1");
  EXPECT_EQ(d.count("data"), 0u);
  ExpectError(
      [] {
        Symbol::CreateAtomic(Reg(), "FullyConnected",
                             {{"num_hidden", "4"}, {"weight_lr_mult", "2"}});
      },
      StatusCode::kInvalidArgument, {"weight_lr_mult", "lr_mult=2", "'weight'"});
}

TEST(SymbolTest, ComposeByKeyword) {
  Symbol w = Var("shared_w");
  Symbol fc = Symbol::Apply(Reg(), "FullyConnected", {Var("x")}, {{"num_hidden", "4"}}, "fc",
                            {{"weight", w}});
  EXPECT_EQ(fc.ListArguments(), (Names{"x", "shared_w", "fc_bias"}));
  Symbol fc2 =
      Symbol::CreateAtomic(Reg(), "FullyConnected", {{"num_hidden", "4"}, {"no_bias", "true"}});
  fc2.Compose({}, {{"data", Var("y")}}, "nb");
  EXPECT_EQ(fc2.ListArguments(), (Names{"y", "nb_weight"}));
  Symbol lone = Symbol::Apply(Reg(), "FullyConnected", {}, {{"num_hidden", "2"}}, "lone");
  EXPECT_EQ(lone.ListArguments(), (Names{"lone_data", "lone_weight", "lone_bias"}));
}

TEST(SymbolTest, ComposeErrorsNameOpNodeAndInput) {
  Symbol x = Var("x");
  ExpectError(
      [&] {
        Symbol::Apply(Reg(), "FullyConnected", {x}, {{"num_hidden", "2"}}, "fc", {{"wieght", x}});
      },
      StatusCode::kInvalidArgument, {"FullyConnected", "'fc'", "wieght", "data, weight, bias"});
  ExpectError(
      [&] {
        Symbol::Apply(Reg(), "FullyConnected", {x, x, x, x}, {{"num_hidden", "2"}}, "fc");
      },
      StatusCode::kInvalidArgument, {"too many positional", "given 4", "takes 3"});
  ExpectError(
      [&] {
        Symbol::Apply(Reg(), "FullyConnected", {x}, {{"num_hidden", "2"}}, "fc", {{"data", x}});
      },
      StatusCode::kInvalidArgument, {"'data'", "both positionally and by keyword"});
  Symbol two = Symbol::Group({x, Var("y")});
  ExpectError(
      [&] {
        Symbol::Apply(Reg(), "Activation", {two}, {{"act_type", "relu"}}, "act");
      },
      StatusCode::kInvalidArgument,
      {"Activation", "'act'", "'data'", "single-output", "2 outputs"});
  ExpectError([&] { Symbol::CreateAtomic(Reg(), "NoSuchOp"); }, StatusCode::kNotFound,
              {"NoSuchOp"});
  ExpectError(
      [&] {
        Symbol::CreateAtomic(Reg(), "FullyConnected", {{"num_hidden", "x"}});
      },
      StatusCode::kInvalidArgument, {"num_hidden"});
}

TEST(SymbolTest, ListArgumentsAuxiliaryStatesAndOutputsInTopoOrder) {
  Symbol data = Var("data");
  Symbol fc1 = FC(data, 8, "fc1");
  Symbol bn = Symbol::Apply(Reg(), "BatchNorm", {fc1}, {}, "bn1");
  Symbol fc2 = FC(bn[0], 4, "fc2");
  Symbol out = Symbol::Apply(Reg(), "SoftmaxOutput", {fc2}, {}, "softmax");
  EXPECT_EQ(out.ListArguments(), (Names{"data", "fc1_weight", "fc1_bias", "bn1_gamma", "bn1_beta",
                                        "fc2_weight", "fc2_bias", "softmax_label"}));
  EXPECT_EQ(out.ListAuxiliaryStates(), (Names{"bn1_moving_mean", "bn1_moving_var"}));
  EXPECT_EQ(out.ListInputs(),
            (Names{"data", "fc1_weight", "fc1_bias", "bn1_gamma", "bn1_beta", "bn1_moving_mean",
                   "bn1_moving_var", "fc2_weight", "fc2_bias", "softmax_label"}));
  EXPECT_EQ(out.ListOutputs(), Names{"softmax_output"});
  EXPECT_EQ(bn.ListOutputs(), (Names{"bn1_output", "bn1_mean", "bn1_var"}));
}

TEST(SymbolTest, GroupAndGetOutput) {
  Symbol data = Var("data");
  Symbol fc1 = FC(data, 8, "fc1"), fc2 = FC(data, 4, "fc2");
  Symbol g = Symbol::Group({fc1, fc2});
  EXPECT_EQ(g.ListOutputs(), (Names{"fc1_output", "fc2_output"}));
  EXPECT_EQ(g.ListArguments(), (Names{"data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"}));
  EXPECT_FALSE(g.GetName().has_value());
  EXPECT_EQ(g.GetOutput(1).ListOutputs(), Names{"fc2_output"});
  EXPECT_EQ(g[0].ListArguments(), (Names{"data", "fc1_weight", "fc1_bias"}));
  ExpectError([&] { g.GetOutput(2); }, StatusCode::kInvalidArgument, {"2", "2 outputs"});
  Symbol split = Symbol::Apply(Reg(), "SliceChannel", {data}, {{"num_outputs", "3"}}, "split");
  EXPECT_EQ(split.ListOutputs(), (Names{"split_output0", "split_output1", "split_output2"}));
  EXPECT_EQ(*split.GetName(), "split");  // all outputs come from one node
}

TEST(SymbolTest, InternalsListEveryOutputAndCanBeComposedFurther) {
  Symbol data = Var("data");
  Symbol net =
      FC(Symbol::Apply(Reg(), "Activation", {FC(data, 8, "fc1")}, {{"act_type", "relu"}}, "relu1"),
         2, "fc2");
  Symbol in = net.GetInternals();
  EXPECT_EQ(in.ListOutputs(), (Names{"data", "fc1_weight", "fc1_bias", "fc1_output", "relu1_output",
                                     "fc2_weight", "fc2_bias", "fc2_output"}));
  Symbol relu = in[4];
  EXPECT_EQ(relu.ListArguments(), (Names{"data", "fc1_weight", "fc1_bias"}));
  Symbol head = FC(relu, 3, "head");
  EXPECT_EQ(head.ListArguments(),
            (Names{"data", "fc1_weight", "fc1_bias", "head_weight", "head_bias"}));
  Symbol bn = Symbol::Apply(Reg(), "BatchNorm", {data}, {}, "bn");
  EXPECT_EQ(bn.GetInternals().ListOutputs(),
            (Names{"data", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var", "bn_output",
                   "bn_mean", "bn_var"}));
}

TEST(SymbolTest, ChildrenAreTheInputsOfTheOutputNodes) {
  Symbol data = Var("data");
  Symbol fc = FC(data, 8, "fc1");
  EXPECT_EQ(fc.GetChildren().ListOutputs(), (Names{"data", "fc1_weight", "fc1_bias"}));
  Symbol act = Symbol::Apply(Reg(), "Activation", {fc}, {{"act_type", "relu"}}, "relu");
  EXPECT_EQ(act.GetChildren().ListOutputs(), Names{"fc1_output"});
  EXPECT_EQ(data.GetChildren().num_outputs(), 0u);
  Symbol split = Symbol::Apply(Reg(), "SliceChannel", {data}, {{"num_outputs", "2"}}, "s");
  EXPECT_EQ(split.GetChildren().ListOutputs(), Names{"data"});  // one node, listed once
}

TEST(SymbolTest, CopyIsDeepAndIndependent) {
  Symbol a = Var("a");
  Symbol sq = Symbol::Apply(Reg(), "elemwise_mul", {a, a}, {}, "sq");
  Symbol c = sq.Copy();
  EXPECT_NE(c.outputs[0].node.get(), sq.outputs[0].node.get());
  EXPECT_EQ(c.ListArguments(), Names{"a"});  // the shared input stays shared
  EXPECT_EQ(c.outputs[0].node->inputs[0].node.get(), c.outputs[0].node->inputs[1].node.get());
  EXPECT_NE(c.outputs[0].node->inputs[0].node.get(), a.outputs[0].node.get());
  c.SetAttr("ctx_group", "dev9");
  c.GetChildren()[0].SetAttr("lr_mult", "3");
  EXPECT_FALSE(sq.GetAttr("ctx_group").has_value());
  EXPECT_FALSE(a.GetAttr("lr_mult").has_value());
  EXPECT_EQ(c.GetChildren()[0].GetAttr("lr_mult").value(), "3");
}

TEST(SymbolTest, ComposeNonAtomicReplacesVariablesOnACopy) {
  Symbol net = FC(Var("data"), 4, "fc");
  Symbol other = FC(Var("x"), 6, "pre");
  Symbol k = net;
  k.Compose({}, {{"data", other}});
  EXPECT_EQ(k.ListArguments(), (Names{"x", "pre_weight", "pre_bias", "fc_weight", "fc_bias"}));
  EXPECT_EQ(net.ListArguments(), (Names{"data", "fc_weight", "fc_bias"}));  // unchanged
  Symbol p = net;
  Symbol w = Var("w2");
  p.Compose({other, w});  // positional: data, fc_weight in ListInputs order
  EXPECT_EQ(p.ListArguments(), (Names{"x", "pre_weight", "pre_bias", "w2", "fc_bias"}));
  ExpectError(
      [&] {
        Symbol q = net;
        q.Compose({}, {{"nope", w}});
      },
      StatusCode::kInvalidArgument, {"nope", "data, fc_weight, fc_bias"});
  ExpectError(
      [&] {
        Symbol q = net;
        q.Compose({}, {}, "name");
      },
      StatusCode::kInvalidArgument, {"atomic"});
  ExpectError(
      [&] {
        Symbol q = net;
        q.Compose({w, w, w, w});
      },
      StatusCode::kInvalidArgument, {"too many"});
}

TEST(SymbolTest, AttributeGetSetAndListing) {
  Symbol data = Var("data");
  Symbol fc = FC(data, 8, "fc1");
  fc.SetAttr("lr_mult", "0.1");
  fc.SetAttr("__mood__", "ok");
  EXPECT_EQ(fc.GetAttr("lr_mult").value(), "0.1");
  EXPECT_EQ(fc.GetAttr("__lr_mult__").value(), "0.1");
  EXPECT_EQ(fc.GetAttr("num_hidden").value(), "8");
  EXPECT_FALSE(fc.GetAttr("missing").has_value());
  StringMap shallow = fc.ListAttrShallow();
  EXPECT_EQ(shallow.size(), 3u);
  EXPECT_EQ(shallow["__mood__"], "ok");
  StringMap all = fc.ListAttr();
  EXPECT_EQ(all["fc1$__lr_mult__"], "0.1");
  EXPECT_EQ(all["fc1_weight$num_hidden"], "8");
  EXPECT_EQ(all.count("data$num_hidden"), 0u);
  // A bad parameter value is rejected and leaves the node unchanged.
  ExpectError([&] { fc.SetAttr("num_hidden", "many"); }, StatusCode::kInvalidArgument,
              {"num_hidden", "many"});
  EXPECT_EQ(fc.GetAttr("num_hidden").value(), "8");
  fc.SetAttr("num_hidden", "16");
  EXPECT_EQ(fc.outputs[0].node->attrs.params.GetInt("num_hidden"), 16);
  Symbol g = Symbol::Group({fc, data});
  ExpectError([&] { g.SetAttr("a", "b"); }, StatusCode::kInvalidArgument, {"2 outputs"});
  ExpectError([&] { g.GetAttr("a"); }, StatusCode::kInvalidArgument, {"one node"});
}

TEST(SymbolTest, AttrScopeAppliesToNodesCreatedInside) {
  NameScope names;
  Symbol a = Var("a"), b = Var("b"), c = Var("c"), net;
  {
    AttrScope dev1(StringMap{{"ctx_group", "dev1"}});
    Symbol d = Var("d");
    net = a * d;
    EXPECT_EQ(d.GetAttr("ctx_group").value(), "dev1");
    {
      AttrScope nested({{"lr_mult", "0.5"}, {"group", "4"}});
      Symbol e = Var("e");
      EXPECT_EQ(e.ListAttrShallow(),
                (StringMap{{"__ctx_group__", "dev1"}, {"__lr_mult__", "0.5"}, {"group", "4"}}));
      Symbol f = Symbol::Apply(Reg(), "Activation", {e}, {{"act_type", "relu"}}, "act");
      // Op nodes take only hidden (__key__) scope attributes.
      EXPECT_EQ(
          f.ListAttrShallow(),
          (StringMap{{"__ctx_group__", "dev1"}, {"__lr_mult__", "0.5"}, {"act_type", "relu"}}));
    }
    EXPECT_EQ(AttrScope::Current(), (StringMap{{"__ctx_group__", "dev1"}}));
  }
  {
    AttrScope dev2(StringMap{{"ctx_group", "dev2"}});
    net = net + c;
  }
  EXPECT_TRUE(AttrScope::Current().empty());
  std::map<std::string, StringMap> d = net.AttrDict();
  EXPECT_EQ(d["_mul0"]["__ctx_group__"], "dev1");
  EXPECT_EQ(d["_plus0"]["__ctx_group__"], "dev2");
  EXPECT_EQ(d.count("a"), 0u);
  Symbol v = Symbol::CreateVariable(
      "z", VariableHints{Shape(), DType::kUnknown, "", {}, {}, {{"ctx_group", "own"}}});
  EXPECT_EQ(v.GetAttr("ctx_group").value(), "own");
}

TEST(SymbolTest, ArithmeticOperatorsMapToElementwiseOps) {
  NameScope names;
  Symbol a = Var("a"), b = Var("b");
  auto op_of = [](const Symbol& s) { return s.outputs[0].node->op()->name; };
  auto scalar_of = [](const Symbol& s) { return s.outputs[0].node->attrs.dict.at("scalar"); };
  EXPECT_EQ(op_of(a + b), "elemwise_add");
  EXPECT_EQ(op_of(a - b), "elemwise_sub");
  EXPECT_EQ(op_of(a * b), "elemwise_mul");
  EXPECT_EQ(op_of(a / b), "elemwise_div");
  Symbol s1 = a + 2.0f, s2 = 2.0f * a, s3 = 2.0 - a, s4 = 1 / a, s5 = a - 0.1f, s6 = a / 4,
         s7 = 3 + a;
  EXPECT_EQ(op_of(s1), "_plus_scalar");
  EXPECT_EQ(scalar_of(s1), "2");
  EXPECT_EQ(op_of(s2), "_mul_scalar");
  EXPECT_EQ(op_of(s3), "_rminus_scalar");
  EXPECT_EQ(op_of(s4), "_rdiv_scalar");
  EXPECT_EQ(op_of(s5), "_minus_scalar");
  EXPECT_EQ(scalar_of(s5), "0.1");
  EXPECT_EQ(op_of(s6), "_div_scalar");
  EXPECT_EQ(scalar_of(s6), "4");
  EXPECT_EQ(op_of(s7), "_plus_scalar");
  EXPECT_EQ(*(a + b).GetName(), "_plus1");  // the first a + b above was _plus0
  EXPECT_EQ(*s1.GetName(), "_plusscalar0");
  EXPECT_EQ(((a + b) * (a - 1.5)).ListArguments(), (Names{"a", "b"}));
}

TEST(SymbolTest, FormatScalarIsShortestRoundTrip) {
  EXPECT_EQ(FormatScalar(2), "2");
  EXPECT_EQ(FormatScalar(0.1f), "0.1");
  EXPECT_EQ(FormatScalar(0.1), "0.1");
  EXPECT_EQ(FormatScalar(127.5), "127.5");
  EXPECT_EQ(FormatScalar(-1e-5), "-1e-05");
  EXPECT_EQ(FormatScalar(1.0 / 3), "0.3333333333333333");
}

TEST(SymbolTest, VariadicOpGetsItsArgumentCount) {
  Symbol a = Var("a"), b = Var("b"), c = Var("c");
  Symbol s = Symbol::Apply(Runtime::Global().ops(), "ElementWiseSum", {a, b, c}, {}, "sum");
  EXPECT_EQ(s.GetAttr("num_args").value(), "3");
  EXPECT_EQ(s.ListArguments(), (Names{"a", "b", "c"}));
  Symbol t = Symbol::Apply(Runtime::Global().ops(), "add_n", {a}, {}, "", {{"arg1", b}});
  EXPECT_EQ(t.ListArguments(), (Names{"a", "b"}));
}

TEST(SymbolTest, DeepGraphsBuildListAndFreeWithoutRecursion) {
  Symbol x = Var("x");
  Symbol net = x;
  for (int i = 0; i < 200000; ++i)
    net = Symbol::Apply(Reg(), "identity", {net}, {}, "id" + std::to_string(i));
  EXPECT_EQ(net.ListArguments(), Names{"x"});
  EXPECT_EQ(net.GetInternals().num_outputs(), 200001u);
  net = Symbol();  // drops 200000 nodes iteratively
  SUCCEED();
}

}  // namespace
}  // namespace weft
