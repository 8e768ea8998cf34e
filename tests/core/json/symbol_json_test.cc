// Symbol JSON: the exact MXNet 1.x format, save/load round trips and the
// legacy generations (0.8 "param", 0.9 "attr") with MXNet's upgrades.
#include "weft/symbol_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/graph/graph_test_nn_ops.h"
#include "core/json/json_test_util.h"
#include "weft/graph_algorithm.h"

namespace weft {
namespace {

using nlohmann::json;
using Names = std::vector<std::string>;
const OpRegistry& Reg() { return test::ModelTestRegistry(); }

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }
Symbol Op(const std::string& op, const std::vector<Symbol>& args, const StringMap& params,
          const std::string& name) {
  return Symbol::Apply(Reg(), op, args, params, name);
}

// data -> fc1 -> relu1 -> bn1 -> fc2 (+ hints and hidden attributes).
Symbol SmallNet() {
  VariableHints h;
  h.shape = Shape{0, 20};
  h.dtype = DType::kFloat16;
  Symbol data = Symbol::CreateVariable("data", h);
  Symbol fc1 = Op("FullyConnected", {data}, {{"num_hidden", "8"}, {"lr_mult", "0.5"}}, "fc1");
  Symbol act = Op("Activation", {fc1}, {{"act_type", "relu"}}, "relu1");
  Symbol bn = Op("BatchNorm", {act}, {{"eps", "1e-05"}}, "bn1");
  return Op("FullyConnected", {bn[0]}, {{"num_hidden", "4"}, {"no_bias", "True"}}, "fc2");
}

TEST(SymbolJsonTest, SaveWritesTheMXNet1Format) {
  Symbol data = Var("data");
  Symbol fc = Op("FullyConnected", {data}, {{"num_hidden", "8"}}, "fc1");
  Symbol out = Symbol::Group({Op("Activation", {fc}, {{"act_type", "relu"}}, "relu1"), fc});
  std::string text = SaveJSON(out);
  json expected = json::parse(R"JS({
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "null", "name": "fc1_weight", "attrs": {"num_hidden": "8"}, "inputs": []},
      {"op": "null", "name": "fc1_bias", "attrs": {"num_hidden": "8"}, "inputs": []},
      {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "8"},
       "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
      {"op": "Activation", "name": "relu1", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]}
    ],
    "arg_nodes": [0, 1, 2],
    "node_row_ptr": [0, 1, 2, 3, 4, 5],
    "heads": [[4, 0, 0], [3, 0, 0]],
    "attrs": {"mxnet_version": ["int", 10901]}
  })JS");
  EXPECT_EQ(json::parse(text), expected) << text;
  // MXNet's key order: op, name, attrs, inputs; nodes, arg_nodes, node_row_ptr, heads, attrs.
  size_t op = text.find("\"op\": \"FullyConnected\"");
  ASSERT_NE(op, std::string::npos);
  EXPECT_LT(text.find("\"name\"", op), text.find("\"attrs\"", op));
  EXPECT_LT(text.find("\"attrs\"", op), text.find("\"inputs\"", op));
  EXPECT_LT(text.find("\"arg_nodes\""), text.find("\"node_row_ptr\""));
  EXPECT_LT(text.find("\"node_row_ptr\""), text.find("\"heads\""));
  EXPECT_NE(text.find("\n  \"nodes\": ["), std::string::npos);  // 2-space indentation
  EXPECT_EQ(json::parse(SaveJSON(out, 10300))["attrs"]["mxnet_version"],
            json::parse(R"JS(["int", 10300])JS"));
}

TEST(SymbolJsonTest, MultiOutputNodesAndAuxStatesInTheRowPointers) {
  Symbol data = Var("data");
  Symbol bn = Op("BatchNorm", {data}, {}, "bn");
  Symbol split = Op("SliceChannel", {bn[0]}, {{"num_outputs", "3"}}, "split");
  json j = json::parse(SaveJSON(Symbol::Group({split[2], bn[1]})));
  // data, gamma, beta, moving_mean, moving_var, bn (3 outputs), split (3 outputs).
  EXPECT_EQ(j["node_row_ptr"], json::parse("[0, 1, 2, 3, 4, 5, 8, 11]"));
  EXPECT_EQ(j["arg_nodes"], json::parse("[0, 1, 2, 3, 4]"));  // aux variables included
  EXPECT_EQ(j["heads"], json::parse("[[6, 2, 0], [5, 1, 0]]"));
  EXPECT_EQ(j["nodes"][6]["inputs"], json::parse("[[5, 0, 0]]"));
}

TEST(SymbolJsonTest, SaveThenLoadIsIdentical) {
  Symbol net = SmallNet();
  std::string first = SaveJSON(net);
  LoadedSymbol back = LoadJSON(first, Reg());
  EXPECT_EQ(back.generation, JsonGeneration::kMXNet1);
  EXPECT_EQ(back.mxnet_version, kMXNetVersion);
  EXPECT_TRUE(back.has_version);
  EXPECT_FALSE(back.upgraded);
  EXPECT_EQ(SaveJSON(back.symbol), first);
  EXPECT_EQ(back.symbol.ListArguments(), net.ListArguments());
  EXPECT_EQ(back.symbol.ListAuxiliaryStates(), (Names{"bn1_moving_mean", "bn1_moving_var"}));
  EXPECT_EQ(back.symbol.ListOutputs(), net.ListOutputs());
  EXPECT_EQ(back.symbol.AttrDict(), net.AttrDict());
  EXPECT_EQ(back.symbol.AttrDict()["data"]["__shape__"], "(0,20)");
  EXPECT_EQ(back.symbol.AttrDict()["fc1_weight"]["__lr_mult__"], "0.5");
  // Parameters are parsed again on load.
  const Node& fc2 = *back.symbol.outputs[0].node;
  EXPECT_EQ(fc2.attrs.params.GetInt("num_hidden"), 4);
  EXPECT_TRUE(fc2.attrs.params.GetBool("no_bias"));
  EXPECT_EQ(fc2.inputs.size(), 2u);
}

// A name or attribute that is not UTF-8 cannot be written as JSON: a clear
// error naming the node and the field, not the JSON library's exception.
TEST(SymbolJsonTest, SaveRefusesTextThatIsNotUtf8) {
  auto message = [](const Symbol& s) {
    try {
      SaveJSON(s);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
      return std::string(e.what());
    }
    ADD_FAILURE() << "SaveJSON accepted text that is not UTF-8";
    return std::string();
  };
  Symbol bad_name = Op("Activation", {Var("data")}, {{"act_type", "relu"}}, "relu\xff");
  EXPECT_NE(message(bad_name).find("node 1's name is not valid UTF-8"), std::string::npos)
      << message(bad_name);
  Symbol bad_attr = Op("Activation", {Var("data")}, {{"act_type", "relu"}}, "relu1");
  bad_attr.outputs[0].node->attrs.dict["__note__"] = "caf\xe9";
  EXPECT_NE(message(bad_attr).find("node 1 (\"relu1\")'s attribute '__note__' is not valid"),
            std::string::npos)
      << message(bad_attr);
  EXPECT_NO_THROW(SaveJSON(Op("Activation", {Var("d\xc3\xa9")}, {{"act_type", "relu"}}, "r")));
}

TEST(SymbolJsonTest, LoadThenSaveReproducesAModernFile) {
  // Compact, keys in another order, a shared input, a version, a control dep.
  const std::string text = R"JS({"attrs": {"mxnet_version": ["int", 10600]},
    "heads": [[3, 0, 0], [4, 0, 0]],
    "node_row_ptr": [0, 1, 2, 3, 4, 5],
    "arg_nodes": [0, 2],
    "nodes": [
      {"inputs": [], "name": "a", "op": "null", "attrs": {"__shape__": "(2,3)", "__lr_mult__": "2"}},
      {"op": "elemwise_mul", "name": "sq", "inputs": [[0, 0, 0], [0, 0, 0]]},
      {"name": "b", "op": "null", "inputs": []},
      {"op": "elemwise_add", "name": "s", "attrs": {"__ctx_group__": "g1"}, "inputs": [[1, 0, 0], [2, 0, 1]]},
      {"op": "_plus_scalar", "name": "p", "attrs": {"scalar": "0.5"}, "inputs": [[3, 0, 0]],
       "control_deps": [1]}
    ]})JS";
  LoadedSymbol s = LoadJSON(text, Reg());
  EXPECT_EQ(s.mxnet_version, 10600);
  EXPECT_FALSE(s.upgraded);
  EXPECT_EQ(json::parse(SaveJSON(s.symbol, s.mxnet_version)), json::parse(text));
  EXPECT_EQ(s.symbol.outputs[0].node->inputs[1].version, 1u);
}

// The 0.8 generation: "param" + "attr" node keys, 2-element entries,
// backward_source_id, no node_row_ptr and no graph attrs; BatchNorm saved
// without its auxiliary states.
const char* kMXNet08 = R"JS({
  "nodes": [
    {"op": "null", "param": {}, "name": "data", "inputs": [], "backward_source_id": -1,
     "attr": {"ctx_group": "stage1", "lr_mult": "0.2"}},
    {"op": "null", "param": {}, "name": "fc1_weight", "inputs": [], "backward_source_id": -1,
     "attr": {"ctx_group": "stage1", "wd_mult": "0.3", "weight_lr_mult": "1.2"}},
    {"op": "null", "param": {}, "name": "fc1_bias", "inputs": [], "backward_source_id": -1},
    {"op": "FullyConnected", "param": {"no_bias": "False", "num_hidden": "128"}, "name": "fc1",
     "inputs": [[0, 0], [1, 0], [2, 0]], "backward_source_id": -1,
     "attr": {"ctx_group": "stage1", "wd_mult": "0.3", "weight_lr_mult": "1.2"}},
    {"op": "null", "param": {}, "name": "bn_gamma", "inputs": [], "backward_source_id": -1},
    {"op": "null", "param": {}, "name": "bn_beta", "inputs": [], "backward_source_id": -1},
    {"op": "BatchNorm", "param": {"eps": "0.001", "fix_gamma": "True"}, "name": "bn",
     "inputs": [[3, 0], [4, 0], [5, 0]], "backward_source_id": 3, "attr": {"ctx_group": "stage2"}}
  ],
  "arg_nodes": [0, 1, 2, 4, 5],
  "heads": [[6, 0]]
})JS";

TEST(SymbolJsonTest, LoadsTheMXNet08GenerationWithUpgrades) {
  LoadedSymbol s = LoadJSON(kMXNet08, Reg());
  EXPECT_EQ(s.generation, JsonGeneration::kMXNet08);
  EXPECT_STREQ(JsonGenerationName(s.generation), "0.8");
  EXPECT_EQ(s.mxnet_version, 800);
  EXPECT_FALSE(s.has_version);
  EXPECT_TRUE(s.upgraded);
  std::map<std::string, StringMap> d = s.symbol.AttrDict();
  // Hidden keys become __key__ on the node itself.
  EXPECT_EQ(d["data"], (StringMap{{"__ctx_group__", "stage1"}, {"__lr_mult__", "0.2"}}));
  EXPECT_EQ(d["fc1"], (StringMap{{"__ctx_group__", "stage1"},
                                 {"__wd_mult__", "0.3"},
                                 {"no_bias", "False"},
                                 {"num_hidden", "128"}}));
  // weight_lr_mult moved from fc1 onto its weight variable; on the variable
  // itself (no inputs to move it to) it stays as it is.
  EXPECT_EQ(d["fc1_weight"]["__lr_mult__"], "1.2");
  EXPECT_EQ(d["fc1_weight"]["weight_lr_mult"], "1.2");
  EXPECT_EQ(d["fc1_weight"]["__wd_mult__"], "0.3");
  EXPECT_EQ(d["fc1_bias"].count("__lr_mult__"), 0u);
  // Missing auxiliary states added as "<node>_<input>" with the node's attributes.
  EXPECT_EQ(s.symbol.ListAuxiliaryStates(), (Names{"bn_moving_mean", "bn_moving_var"}));
  EXPECT_EQ(d["bn_moving_mean"]["__ctx_group__"], "stage2");
  EXPECT_EQ(d["bn_moving_var"]["fix_gamma"], "True");
  EXPECT_EQ(s.symbol.ListArguments(),
            (Names{"data", "fc1_weight", "fc1_bias", "bn_gamma", "bn_beta"}));
  // Saved again in the 1.x format, which loads back identically.
  std::string saved = SaveJSON(s.symbol);
  json j = json::parse(saved);
  EXPECT_EQ(j["nodes"][6]["name"], "bn_moving_mean");
  EXPECT_EQ(j["nodes"][8]["inputs"], json::parse("[[3,0,0],[4,0,0],[5,0,0],[6,0,0],[7,0,0]]"));
  EXPECT_EQ(j["nodes"][8].count("param"), 0u);
  LoadedSymbol again = LoadJSON(saved, Reg());
  EXPECT_EQ(again.generation, JsonGeneration::kMXNet1);
  EXPECT_FALSE(again.upgraded);
  EXPECT_EQ(SaveJSON(again.symbol), saved);
}

TEST(SymbolJsonTest, LoadsTheMXNet09Generation) {
  const std::string text = R"JS({"nodes": [
      {"op": "null", "name": "x", "inputs": []},
      {"op": "null", "name": "w", "attr": {"lr_mult": "3", "mood": "calm"}, "inputs": []},
      {"op": "FullyConnected", "name": "fc", "attr": {"num_hidden": "2", "no_bias": "True",
       "ctx_group": "dev1", "weight_wd_mult": "0"}, "inputs": [[0, 0, 0], [1, 0, 0]]},
      {"op": "BatchNorm", "name": "bn", "attr": {}, "inputs": [[2, 0, 0], [1, 0, 0], [1, 0, 0]]}],
    "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3, 6], "heads": [[3, 0, 0]],
    "attrs": {"mxnet_version": ["int", 903]}})JS";
  // 0.9.x files store every input: a missing one is an arity error, not an upgrade.
  test::ExpectWeftError([&] { LoadJSON(text, Reg()); }, StatusCode::kInvalidArgument,
                        {"node 3 'bn' (BatchNorm)", "has 3 inputs", "takes 5", "moving_mean"});
  std::string fixed = text;
  const std::string three = "[[2, 0, 0], [1, 0, 0], [1, 0, 0]]";
  fixed.replace(fixed.find(three), three.size(),
                "[[2, 0, 0], [1, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]]");
  LoadedSymbol s = LoadJSON(fixed, Reg());
  EXPECT_EQ(s.generation, JsonGeneration::kMXNet09);
  EXPECT_EQ(s.mxnet_version, 903);
  std::map<std::string, StringMap> d = s.symbol.AttrDict();
  EXPECT_EQ(d["w"], (StringMap{{"__lr_mult__", "3"}, {"__wd_mult__", "0"}, {"mood", "calm"}}));
  EXPECT_EQ(d["fc"],
            (StringMap{{"__ctx_group__", "dev1"}, {"no_bias", "True"}, {"num_hidden", "2"}}));
  EXPECT_EQ(s.symbol.ListAuxiliaryStates(), (Names{"x"}));  // x feeds moving_mean/var
}

TEST(SymbolJsonTest, HiddenKeysOfCurrentFilesAreNotRewritten) {
  // A current file is parsed as written: a bare lr_mult is no parameter.
  const std::string text = R"JS({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "Activation", "name": "act", "attrs": {"act_type": "relu", "lr_mult": "2"},
       "inputs": [[0, 0, 0]]}], "arg_nodes": [0], "heads": [[1, 0, 0]],
      "attrs": {"mxnet_version": ["int", 10901]}})JS";
  test::ExpectWeftError([&] { LoadJSON(text, Reg()); }, StatusCode::kInvalidArgument,
                        {"node 1 'act' (Activation)", "lr_mult"});
  std::string older = text;
  older.replace(older.find("10901"), 5, "10600");
  LoadedSymbol s = LoadJSON(older, Reg());
  EXPECT_EQ(s.symbol.GetAttr("__lr_mult__").value(), "2");
  EXPECT_TRUE(s.upgraded);
}

TEST(SymbolJsonTest, MatchesMXNetsSave000800Test) {
  // MXNet's test_load_000800, built with the symbol API: the loaded legacy
  // file must carry the same hidden attributes and list the same inputs.
  Symbol sym1;
  {
    NameScope names;
    Symbol act1;
    {
      AttrScope stage1(StringMap{{"ctx_group", "stage1"}});
      VariableHints lr02, lr12;
      lr02.lr_mult = 0.2;
      lr12.lr_mult = 1.2;
      Symbol data = Symbol::CreateVariable("data", lr02);
      Symbol weight = Symbol::CreateVariable("fc1_weight", lr12);
      Symbol fc1 =
          Symbol::Apply(Reg(), "FullyConnected", {data},
                        {{"num_hidden", "128"}, {"wd_mult", "0.3"}}, "fc1", {{"weight", weight}});
      act1 = Op("Activation", {fc1}, {{"act_type", "relu"}}, "relu1");
    }
    AttrScope stage2(StringMap{{"ctx_group", "stage2"}});
    Symbol fc2 = Op("FullyConnected", {act1}, {{"num_hidden", "64"}, {"lr_mult", "0.01"}}, "fc2");
    Symbol act2 = Op("Activation", {fc2}, {{"act_type", "relu"}}, "relu2");
    Symbol fc3 = Op("FullyConnected", {act2}, {{"num_hidden", "10"}}, "fc3");
    Symbol bn = Symbol::Apply(Reg(), "BatchNorm", {fc3}, {}, "batchnorm0");
    sym1 = Op("SoftmaxOutput", {bn[0]}, {}, "softmax");
  }
  std::string text;
  if (!test::ReadTextFile(test::ModelDir() + "/apache__save_000800.json", &text))
    GTEST_SKIP() << "shared test data not found at '" << test::ModelDir() << "'";
  LoadedSymbol sym2 = LoadJSON(text, Reg());
  std::map<std::string, StringMap> attr1 = sym1.AttrDict(), attr2 = sym2.symbol.AttrDict();
  for (const auto& [node, attrs] : attr1) {
    ASSERT_TRUE(attr2.count(node)) << node;
    for (const auto& [key, value] : attrs) {
      if (key.size() < 4 || key.compare(0, 2, "__") != 0) continue;
      EXPECT_EQ(attr2[node][key], value) << node << " " << key;
    }
  }
  EXPECT_EQ(sym2.symbol.ListArguments(), sym1.ListArguments());
  EXPECT_EQ(sym2.symbol.ListAuxiliaryStates(), sym1.ListAuxiliaryStates());
  EXPECT_EQ(sym2.symbol.ListOutputs(), sym1.ListOutputs());
}

TEST(SymbolJsonTest, UnknownOperatorsAreAllNamedWithTheirNodes) {
  const std::string text = R"JS({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "Convolution9", "name": "c1", "inputs": [[0, 0, 0]]},
      {"op": "Convolution9", "name": "c2", "inputs": [[1, 0, 0]]},
      {"op": "Warp", "name": "w", "inputs": [[2, 0, 0]]}], "arg_nodes": [0], "heads": [[3, 0, 0]]})JS";
  test::ExpectWeftError(
      [&] { LoadJSON(text, Reg()); }, StatusCode::kNotFound,
      {"not registered", "operator 'Convolution9' (used by node 1 'c1', node 2 'c2')",
       "operator 'Warp' (used by node 3 'w')"});
}

TEST(SymbolJsonTest, FilesAreSavedAndLoaded) {
  std::string path =
      ::testing::TempDir() + "weft_symbol_json_test_" + std::to_string(getpid()) + ".json";
  Symbol net = SmallNet();
  SaveJSONFile(net, path);
  LoadedSymbol s = LoadJSONFile(path, Reg());
  EXPECT_EQ(SaveJSON(s.symbol), SaveJSON(net));
  std::remove(path.c_str());
  test::ExpectWeftError([&] { LoadJSONFile(path, Reg()); }, StatusCode::kIO, {path});
  test::ExpectWeftError([&] { SaveJSONFile(net, "/nonexistent-dir/x.json"); }, StatusCode::kIO,
                        {"/nonexistent-dir/x.json"});
  // Errors from the content are prefixed with the path.
  SaveJSONFile(net, path);
  OpRegistry empty;
  test::ExpectWeftError([&] { LoadJSONFile(path, empty); }, StatusCode::kNotFound,
                        {path, "FullyConnected"});
  std::remove(path.c_str());
}

TEST(SymbolJsonTest, DeepChainsLoadAndSaveWithoutRecursion) {
  std::string text = R"JS({"nodes": [{"op": "null", "name": "x", "inputs": []})JS";
  const int kDepth = 50000;
  for (int i = 1; i <= kDepth; ++i)
    text += ",{\"op\":\"identity\",\"name\":\"n" + std::to_string(i) + "\",\"inputs\":[[" +
            std::to_string(i - 1) + ",0,0]]}";
  text += "], \"arg_nodes\": [0], \"heads\": [[" + std::to_string(kDepth) + ", 0, 0]]}";
  LoadedSymbol s = LoadJSON(text, Reg());
  EXPECT_EQ(s.symbol.ListArguments(), Names{"x"});
  EXPECT_EQ(LoadJSON(SaveJSON(s.symbol), Reg()).symbol.GetInternals().num_outputs(), kDepth + 1u);
}

}  // namespace
}  // namespace weft
