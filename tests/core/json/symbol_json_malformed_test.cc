// Malformed symbol JSON: every defect is a weft::Error naming the node and
// the field (never a crash, never another exception type).
#include <gtest/gtest.h>

#include "core/graph/graph_test_nn_ops.h"
#include "core/json/json_test_util.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

struct Case {
  const char* what;
  std::string text;
  StatusCode code;
  std::vector<std::string> pieces;
};

// A document with the given "nodes" and "heads" (arg_nodes empty).
std::string Doc(const std::string& nodes, const std::string& heads = "[[0, 0, 0]]",
                const std::string& extra = "") {
  return "{\"nodes\": [" + nodes + "], \"arg_nodes\": [], \"heads\": " + heads + extra + "}";
}
const std::string kX = R"({"op": "null", "name": "x", "inputs": []})";
const StatusCode kBad = StatusCode::kInvalidArgument;
const std::string kVersion = R"(, "attrs": {"mxnet_version": ["int", 10901]})";

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string msg = test::ExpectWeftError([&] { LoadJSON(c.text, test::ModelTestRegistry()); },
                                            c.code, c.pieces);
    EXPECT_EQ(msg.rfind("symbol JSON: ", 0), 0u) << msg;
  }
}

TEST(SymbolJsonMalformedTest, SyntaxAndDocumentStructure) {
  RunCases({
      {"empty", "", kBad, {"not valid JSON"}},
      {"truncated", "{\"nodes\": [", kBad, {"not valid JSON"}},
      {"trailing garbage", Doc(kX) + "x", kBad, {"not valid JSON"}},
      {"array document", "[]", kBad, {"document must be an object", "array"}},
      {"no nodes", R"({"arg_nodes": [], "heads": []})", kBad, {"no \"nodes\" field"}},
      {"no heads", R"({"nodes": [], "arg_nodes": []})", kBad, {"no \"heads\" field"}},
      {"no arg_nodes", R"({"nodes": [], "heads": []})", kBad, {"no \"arg_nodes\" field"}},
      {"nodes not array",
       R"({"nodes": {}, "arg_nodes": [], "heads": []})",
       kBad,
       {"\"nodes\" must be an array"}},
      {"unknown top-level field",
       Doc(kX, "[[0, 0, 0]]", ", \"extra\": 1"),
       kBad,
       {"top-level field \"extra\""}},
      {"graph attrs not object",
       Doc(kX, "[[0, 0, 0]]", ", \"attrs\": []"),
       kBad,
       {"\"attrs\" must be an object"}},
      {"graph attr not a pair",
       Doc(kX, "[[0, 0, 0]]", ", \"attrs\": {\"mxnet_version\": 10901}"),
       kBad,
       {"graph attribute 'mxnet_version'", "[type, value]"}},
      {"version not an int",
       Doc(kX, "[[0, 0, 0]]", ", \"attrs\": {\"mxnet_version\": [\"int\", \"1\"]}"),
       kBad,
       {"mxnet_version must be [\"int\", version]"}},
      {"negative version",
       Doc(kX, "[[0, 0, 0]]", ", \"attrs\": {\"mxnet_version\": [\"int\", -5]}"),
       kBad,
       {"mxnet_version"}},
      {"row_ptr length",
       Doc(kX, "[[0, 0, 0]]", ", \"node_row_ptr\": [0]"),
       kBad,
       {"node_row_ptr must have 2"}},
      {"row_ptr decreasing",
       Doc(kX + "," + kX, "[[0, 0, 0]]", ", \"node_row_ptr\": [0, 2, 1]"),
       kBad,
       {"node_row_ptr must not decrease"}},
      {"row_ptr type",
       Doc(kX, "[[0, 0, 0]]", ", \"node_row_ptr\": \"0\""),
       kBad,
       {"node_row_ptr must be an array"}},
  });
}

TEST(SymbolJsonMalformedTest, NodeFieldsOfTheWrongType) {
  RunCases({
      {"node not object", Doc("7"), kBad, {"node 0 must be an object", "number"}},
      {"no op", Doc(R"({"name": "x", "inputs": []})"), kBad, {"node 0 has no \"op\" field"}},
      {"no name", Doc(R"({"op": "null", "inputs": []})"), kBad, {"node 0 has no \"name\" field"}},
      {"no inputs",
       Doc(R"({"op": "null", "name": "x"})"),
       kBad,
       {"node 0 'x' has no \"inputs\" field"}},
      {"op not string",
       Doc(R"({"op": 3, "name": "x", "inputs": []})"),
       kBad,
       {"node 0", "\"op\" must be a string"}},
      {"name not string",
       Doc(R"({"op": "null", "name": [], "inputs": []})"),
       kBad,
       {"node 0", "\"name\" must be a string"}},
      {"inputs not array",
       Doc(R"({"op": "null", "name": "x", "inputs": {}})"),
       kBad,
       {"node 0 'x' inputs must be an array"}},
      {"attrs not object",
       Doc(R"({"op": "null", "name": "x", "inputs": [], "attrs": "a=b"})"),
       kBad,
       {"node 0 'x' field \"attrs\" must be an object"}},
      {"attr value not string",
       Doc(R"({"op": "null", "name": "x", "inputs": [], "attr": {"lr_mult": 2}})"),
       kBad,
       {"node 0 'x' field \"attr\" key 'lr_mult' must have a string value"}},
      {"param not object",
       Doc(R"({"op": "null", "name": "x", "inputs": [], "param": null})"),
       kBad,
       {"node 0 'x' field \"param\""}},
      {"unknown node field",
       Doc(R"({"op": "null", "name": "x", "inputs": [], "colour": "red"})"),
       kBad,
       {"node 0: unknown field \"colour\""}},
      {"subgraphs on a variable",
       Doc(R"({"op": "null", "name": "x", "inputs": [],
               "subgraphs": [{"nodes": [], "arg_nodes": [], "heads": []}]})"),
       kBad,
       {"node 0", "subgraphs"}},
      {"backward_source_id type",
       Doc(R"({"op": "null", "name": "x", "inputs": [], "backward_source_id": "1"})"),
       kBad,
       {"node 0 'x'", "backward_source_id"}},
      {"control_deps type",
       Doc(R"({"op": "null", "name": "x", "inputs": [], "control_deps": 0})"),
       kBad,
       {"node 0 'x' control_deps must be an array"}},
      {"arg_nodes type",
       R"({"nodes": [], "arg_nodes": {}, "heads": []})",
       kBad,
       {"arg_nodes must be an array"}},
  });
}

TEST(SymbolJsonMalformedTest, EntriesAndIndices) {
  const std::string op1 = R"(, {"op": "identity", "name": "id", "inputs": [)";
  RunCases({
      {"entry not array",
       Doc(kX + op1 + "0]}", "[[1, 0, 0]]"),
       kBad,
       {"node 1 'id' inputs[0] must be an array"}},
      {"entry of one",
       Doc(kX + op1 + "[0]]}", "[[1, 0, 0]]"),
       kBad,
       {"inputs[0] must have 2 or 3 elements, got 1"}},
      {"entry of four",
       Doc(kX + op1 + "[0, 0, 0, 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"2 or 3 elements, got 4"}},
      {"negative node id",
       Doc(kX + op1 + "[-1, 0, 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"node 1 'id' inputs[0] node id = -1 is out of range"}},
      {"dangling node id",
       Doc(kX + op1 + "[2, 0, 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"node 1 'id' inputs[0] node id = 2 is out of range (must be below 2)"}},
      {"huge node id",
       Doc(kX + op1 + "[18446744073709551615, 0, 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"node id = 18446744073709551615 is out of range"}},
      {"fractional node id",
       Doc(kX + op1 + "[0.5, 0, 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"inputs[0] node id must be a non-negative integer, got number"}},
      {"string index",
       Doc(kX + op1 + "[0, \"0\", 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"output index must be"}},
      {"negative version",
       Doc(kX + op1 + "[0, 0, -1]]}", "[[1, 0, 0]]"),
       kBad,
       {"inputs[0] version = -1"}},
      {"huge output index",
       Doc(kX + op1 + "[0, 4294967295, 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"output index = 4294967295 is out of range"}},
      {"output index past the outputs",
       Doc(kX + op1 + "[0, 1, 0]]}", "[[1, 0, 0]]"),
       kBad,
       {"node 1 'id' (identity) input 0 reads output 1 of node 0 'x', which has 1 outputs"}},
      {"dangling head", Doc(kX, "[[1, 0, 0]]"), kBad, {"heads[0] node id = 1 is out of range"}},
      {"head index past the outputs",
       Doc(kX, "[[0, 3, 0]]"),
       kBad,
       {"heads[0] reads output 3 of node 0 'x', which has 1 outputs"}},
      {"heads not array", Doc(kX, "{}"), kBad, {"heads must be an array"}},
      {"dangling control dep",
       Doc(R"({"op": "null", "name": "x", "inputs": [], "control_deps": [4]})"),
       kBad,
       {"node 0 'x' control_deps[0] = 4 is out of range"}},
      {"dangling arg_nodes",
       R"({"nodes": [], "arg_nodes": [0], "heads": []})",
       kBad,
       {"arg_nodes[0] = 0"}},
      {"arg_nodes lists an op",
       R"({"nodes": [)" + kX + op1 + R"([0, 0, 0]]}], "arg_nodes": [1], "heads": []})",
       kBad,
       {"arg_nodes lists node 1 'id', which is not a variable"}},
  });
}

TEST(SymbolJsonMalformedTest, GraphStructure) {
  RunCases({
      {"two-node cycle",
       Doc(R"({"op": "identity", "name": "a", "inputs": [[1, 0, 0]]}, {"op": "identity", "name": "b", "inputs": [[0, 0, 0]]})"),
       kBad,
       {"cycle", "node '"}},
      {"self loop",
       Doc(R"({"op": "identity", "name": "me", "inputs": [[0, 0, 0]]})"),
       kBad,
       {"cycle through node 'me'"}},
      {"cycle off the heads",
       Doc(kX +
           R"(, {"op": "identity", "name": "a", "inputs": [[2, 0, 0]]}, {"op": "identity", "name": "b", "inputs": [[1, 0, 0]]})"),
       kBad,
       {"cycle"}},
      {"cycle via control deps",
       Doc(R"({"op": "_zeros", "name": "z", "attrs": {"shape": "[1]"}, "inputs": [], "control_deps": [1]},
              {"op": "identity", "name": "i", "inputs": [[0, 0, 0]]})"),
       kBad,
       {"cycle"}},
      {"variable with inputs",
       Doc(kX + R"(, {"op": "null", "name": "v", "inputs": [[0, 0, 0]]})"),
       kBad,
       {"node 1 'v' is a variable (op \"null\") but has inputs"}},
      // (files before 0.9.0 get missing trailing inputs added as variables instead)
      {"too few inputs",
       Doc(kX + R"(, {"op": "elemwise_add", "name": "add", "inputs": [[0, 0, 0]]})", "[[1, 0, 0]]",
           kVersion),
       kBad,
       {"node 1 'add' (elemwise_add) has 1 inputs, the operator takes 2 (lhs, rhs)"}},
      {"too many inputs",
       Doc(kX + R"(, {"op": "identity", "name": "id", "inputs": [[0, 0, 0], [0, 0, 0]]})",
           "[[1, 0, 0]]"),
       kBad,
       {"node 1 'id' (identity) has 2 inputs, the operator takes 1"}},
      {"too few inputs in an old file",
       Doc(kX +
               R"(, {"op": "ElementWiseSum", "name": "s", "param": {"num_args": "1000"}, "inputs": [[0, 0]]})",
           "[[1, 0]]"),
       kBad,
       {"node 1 's' (ElementWiseSum) has 1 inputs, the operator takes 1000"}},
  });
}

TEST(SymbolJsonMalformedTest, BadParameters) {
  auto node = [](const std::string& op, const std::string& attrs,
                 const std::string& inputs = "[[0, 0, 0]]") {
    return Doc(kX + ", {\"op\": \"" + op + "\", \"name\": \"n\", \"attrs\": " + attrs +
                   ", \"inputs\": " + inputs + "}",
               "[[1, 0, 0]]");
  };
  RunCases({
      {"bad float",
       node("_plus_scalar", R"({"scalar": "abc"})"),
       kBad,
       {"node 1 'n' (_plus_scalar)", "scalar", "abc"}},
      {"unknown key",
       node("_plus_scalar", R"({"scalar": "1", "colour": "red"})"),
       kBad,
       {"node 1 'n'", "colour"}},
      {"missing required",
       node("FullyConnected", "{}", "[[0, 0, 0], [0, 0, 0], [0, 0, 0]]"),
       kBad,
       {"node 1 'n' (FullyConnected)", "num_hidden"}},
      {"bad enum",
       node("Activation", R"({"act_type": "swish"})"),
       kBad,
       {"node 1 'n' (Activation)", "swish"}},
      {"bad bool",
       node("FullyConnected", R"({"num_hidden": "2", "no_bias": "maybe"})",
            "[[0, 0, 0], [0, 0, 0]]"),
       kBad,
       {"node 1 'n'", "no_bias", "maybe"}},
      {"huge int",
       node("FullyConnected", R"({"num_hidden": "99999999999999999999999"})",
            "[[0,0,0],[0,0,0],[0,0,0]]"),
       kBad,
       {"node 1 'n'", "num_hidden"}},
      {"output count out of range",
       node("SliceChannel", R"({"num_outputs": "100000"})"),
       kBad,
       {"node 1 'n' (SliceChannel)", "num_outputs"}},
      {"zero outputs",
       node("SliceChannel", R"({"num_outputs": "0"})"),
       kBad,
       {"node 1 'n'", "num_outputs"}},
      {"huge variadic count",
       node("ElementWiseSum", R"({"num_args": "1000000"})"),
       kBad,
       {"node 1 'n' (ElementWiseSum) has 1 inputs, the operator takes 1000000"}},
      {"variadic count out of range",
       node("ElementWiseSum", R"({"num_args": "-3"})"),
       kBad,
       {"node 1 'n'", "num_args"}},
      {"bad shape",
       node("_zeros", R"({"shape": "[2,x]"})", "[]"),
       kBad,
       {"node 1 'n' (_zeros)", "shape"}},
  });
}

// The built-in SliceChannel (no range on num_outputs, unlike the test
// registry's): the count out of range names the parameter that gave it.
TEST(SymbolJsonMalformedTest, OutputCountNamesTheParameterThatGaveIt) {
  const std::string text =
      Doc(kX + R"(, {"op": "SliceChannel", "name": "n", "attrs": {"num_outputs": "100000"},)"
               R"( "inputs": [[0, 0, 0]]})",
          "[[1, 0, 0]]");
  test::ExpectWeftError(
      [&] { LoadJSON(text, Runtime::Global().ops()); }, kBad,
      {"node 1 'n' (SliceChannel)", "num_outputs=100000", "100000 outputs", "at most 65536"});
}

TEST(SymbolJsonMalformedTest, VariableNames) {
  // Two layers named "fc": their weights are two variables named fc_weight.
  const std::string fc_twice = Doc(kX + R"(, {"op": "null", "name": "fc_weight", "inputs": []},
      {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2", "no_bias": "True"},
       "inputs": [[0, 0, 0], [1, 0, 0]]},
      {"op": "null", "name": "fc_weight", "inputs": []},
      {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2", "no_bias": "True"},
       "inputs": [[2, 0, 0], [3, 0, 0]]})",
                                   "[[4, 0, 0]]", kVersion);
  RunCases({
      {"duplicate argument names",
       fc_twice,
       kBad,
       {"two variables are named 'fc_weight'", "node 1 'fc_weight'", "node 3 'fc_weight'"}},
      {"empty variable name",
       Doc(R"({"op": "null", "name": "", "inputs": []})"),
       kBad,
       {"node 0 is a variable", "empty name"}},
      {"NUL in a name",
       Doc(R"({"op": "null", "name": "a\u0000b", "inputs": []})"),
       kBad,
       {"node 0", "NUL", "offset 1"}},
  });
}

}  // namespace
}  // namespace weft
