// Symbol JSON with MXNet's "subgraphs" (sym.optimize_for('MKLDNN')): a
// graph partitioned into _sg_mkldnn_conv (conv+bn+relu, conv+sum+relu) and
// _sg_mkldnn_fully_connected (FC+relu) nodes, written by hand in MXNet
// 1.9.1's layout, loads, infers, runs equal to the unpartitioned graph,
// and saves back to the same JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/json/json_test_util.h"
#include "core/pass/inference_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

const OpRegistry& Reg() { return Runtime::Global().ops(); }

std::string Var(const std::string& name) {
  return R"js({"op": "null", "name": ")js" + name + R"js(", "inputs": []})js";
}

// The unpartitioned float32 graph, in the order MXNet lists it.
std::string PlainJson() {
  return R"js({"nodes": [)js" + Var("data") + "," + Var("conv0_weight") + "," + Var("conv0_bias") +
         R"js(,
  {"op": "Convolution", "name": "conv0", "attrs": {"kernel": "(3, 3)",
         "num_filter" : "4",
         "pad" : "(1, 1)"
},
    "inputs" : [ [ 0, 0, 0 ], [ 1, 0, 0 ], [ 2, 0, 0 ] ]
},)js" + Var("bn0_gamma") +
         "," + Var("bn0_beta") + "," + Var("bn0_moving_mean") + "," + Var("bn0_moving_var") + R"js(,
  {"op": "BatchNorm", "name": "bn0", "attrs": {"eps": "1e-05", "fix_gamma": "False"},
   "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0], [7, 0, 0]]},
  {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"}, "inputs": [[8, 0, 0]]},)js" +
         Var("conv1_weight") + R"js(,
  {"op": "Convolution", "name": "conv1", "attrs": {"kernel": "(3, 3)", "no_bias": "True",
   "num_filter": "4", "pad": "(1, 1)"
}
, "inputs" : [ [ 9, 0, 0 ], [ 10, 0, 0 ] ]
},
  {"op": "elemwise_add", "name": "add0", "inputs": [[11, 0, 0], [9, 0, 0]]},
  {"op": "Activation", "name": "relu1", "attrs": {"act_type": "relu"}, "inputs": [[12, 0, 0]]},)js" +
         Var("fc0_weight") + "," + Var("fc0_bias") + R"js(,
  {"op": "FullyConnected", "name": "fc0", "attrs": {"num_hidden": "5"},
   "inputs": [[13, 0, 0], [14, 0, 0], [15, 0, 0]]},
  {"op": "Activation", "name": "relu2", "attrs": {"act_type": "relu"}, "inputs": [[16, 0, 0]]}],
 "arg_nodes": [0, 1, 2, 4, 5, 6, 7, 10, 14, 15], "heads": [[17, 0, 0]],
 "attrs": {"mxnet_version": ["int", 10901]}})js";
}

// A subgraph object: `nodes` (comma-separated), args, row_ptr, head.
std::string Sub(const std::string& nodes, const std::string& args, const std::string& row_ptr,
                const std::string& head) {
  return R"js({"nodes": [)js" + nodes + R"js(], "arg_nodes": )js" + args +
         R"js(, "node_row_ptr": )js" + row_ptr + R"js(, "heads": [[)js" + head + R"js(, 0, 0]]})js";
}

const char* kConvBnRelu = R"js({"op": "Convolution", "name": "conv0", "attrs": {"kernel": "(3, 3)",
           "num_filter" : "4", "pad" : "(1, 1)"
}
, "inputs" : [ [ 0, 0, 0 ], [ 1, 0, 0 ], [ 2, 0, 0 ] ]
})js";

// The same graph as optimize_for('MKLDNN') writes it: nodes 7, 9 and 12
// carry the layers; the sum of the second convolution reads the first's
// output, which its subgraph sees as a second variable.
std::string PartitionedJson(
    const std::string& conv0_attrs = R"js("with_act": "true", "with_bn": "true")js",
    const std::string& conv0_inputs =
        "[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], "
        "[6, 0, 0]") {
  const std::string sub0 = Sub(
      Var("data0") + "," + Var("conv0_weight0") + "," + Var("conv0_bias0") + "," + kConvBnRelu +
          "," + Var("bn0_gamma0") + "," + Var("bn0_beta0") + "," + Var("bn0_moving_mean0") + "," +
          Var("bn0_moving_var0") +
          R"js(, {"op": "BatchNorm", "name": "bn0", "attrs": {"eps": "1e-05", "fix_gamma": "False"},
   "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0], [7, 0, 0]]},
  {"op": "Activation", "name": "relu0", "attrs": {"act_type": "relu"}, "inputs": [[8, 0, 0]]})js",
      "[0, 1, 2, 4, 5, 6, 7]", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12]", "9");
  const std::string sub1 =
      Sub(Var("sg_mkldnn_conv_bn_act_0_output0") + "," + Var("conv1_weight0") +
              R"js(, {"op": "Convolution", "name": "conv1", "attrs": {"kernel": "(3, 3)",
   "no_bias": "True", "num_filter": "4", "pad": "(1, 1)"
}
, "inputs" : [ [ 0, 0, 0 ], [ 1, 0, 0 ] ]
},)js" + Var("sg_mkldnn_conv_bn_act_0_output1") +
              R"js(, {"op": "elemwise_add", "name": "add0", "inputs": [[2, 0, 0], [3, 0, 0]]},
  {"op": "Activation", "name": "relu1", "attrs": {"act_type": "relu"}, "inputs": [[4, 0, 0]]})js",
          "[0, 1, 3]", "[0, 1, 2, 3, 4, 5, 6]", "5");
  const std::string sub2 = Sub(
      Var("sg_mkldnn_conv_add_act_1_output0") + "," + Var("fc0_weight0") + "," + Var("fc0_bias0") +
          R"js(, {"op": "FullyConnected", "name": "fc0", "attrs": {"num_hidden": "5"},
   "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
  {"op": "Activation", "name": "relu2", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]})js",
      "[0, 1, 2]", "[0, 1, 2, 3, 4, 5]", "4");
  return R"js({"nodes": [)js" + Var("data") + "," + Var("conv0_weight") + "," + Var("conv0_bias") +
         "," + Var("bn0_gamma") + "," + Var("bn0_beta") + "," + Var("bn0_moving_mean") + "," +
         Var("bn0_moving_var") +
         R"js(,
  {"op": "_sg_mkldnn_conv", "name": "sg_mkldnn_conv_bn_act_0", "attrs": {)js" +
         conv0_attrs + R"js(}, "inputs": [)js" + conv0_inputs + R"js(], "subgraphs": [)js" + sub0 +
         "]}," + Var("conv1_weight") + R"js(,
  {"op": "_sg_mkldnn_conv", "name": "sg_mkldnn_conv_add_act_1", "attrs": {
   "with_postsum_act": "true", "with_sum": "true"}, "inputs": [[7, 0, 0], [8, 0, 0], [7, 0, 0]],
   "subgraphs": [)js" +
         sub1 + "]}," + Var("fc0_weight") + "," + Var("fc0_bias") + R"js(,
  {"op": "_sg_mkldnn_fully_connected", "name": "sg_mkldnn_fully_connected_eltwise_2",
   "attrs": {"with_eltwise": "True"}, "inputs": [[9, 0, 0], [10, 0, 0], [11, 0, 0]],
   "subgraphs": [)js" +
         sub2 + R"js(]}],
 "arg_nodes": [0, 1, 2, 3, 4, 5, 6, 8, 10, 11],
 "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
 "heads": [[12, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}})js";
}

const pass::ShapeMap kShapes = {{"data", Shape{2, 3, 6, 6}}};

std::unique_ptr<Executor> Bind(const Symbol& s, bool optimize) {
  return test::BindInference(s, kShapes, optimize);
}

// Copies `from`'s arrays into `to` by name.
void CopyByName(const Executor& from, Executor* to) {
  auto copy = [](const std::vector<std::string>& fn, const std::vector<NDArray>& fa,
                 const std::vector<std::string>& tn, const std::vector<NDArray>& ta) {
    ASSERT_EQ(fn.size(), tn.size());
    for (size_t i = 0; i < tn.size(); ++i) {
      const size_t j = static_cast<size_t>(std::find(fn.begin(), fn.end(), tn[i]) - fn.begin());
      ASSERT_LT(j, fn.size()) << tn[i];
      NDArray dst = ta[i];
      fa[j].CopyTo(&dst);
    }
  };
  copy(from.arg_names(), from.arg_arrays(), to->arg_names(), to->arg_arrays());
  copy(from.aux_names(), from.aux_arrays(), to->aux_names(), to->aux_arrays());
}

TEST(SymbolJsonSubgraph, LoadsListsAndInfersLikeThePlainGraph) {
  const Symbol plain = LoadJSON(PlainJson(), Reg()).symbol;
  const Symbol part = LoadJSON(PartitionedJson(), Reg()).symbol;
  EXPECT_EQ(part.ListArguments(), plain.ListArguments());
  EXPECT_EQ(part.ListAuxiliaryStates(),
            (std::vector<std::string>{"bn0_moving_mean", "bn0_moving_var"}));
  const IndexedGraph pg(Graph{part.outputs}), qg(Graph{plain.outputs});
  const pass::ShapeResult ps = pass::InferShape(pg, kShapes), qs = pass::InferShape(qg, kShapes);
  ASSERT_TRUE(ps.complete());
  EXPECT_EQ(ps.arg_shapes, qs.arg_shapes);
  EXPECT_EQ(ps.aux_shapes, qs.aux_shapes);
  EXPECT_EQ(ps.out_shapes, (std::vector<Shape>{Shape{2, 5}}));
  const pass::TypeResult pt = pass::InferType(pg, {{"data", DType::kFloat32}});
  ASSERT_TRUE(pt.complete());
  EXPECT_EQ(pt.out_types, (std::vector<DType>{DType::kFloat32}));
  // The fused node names MXNet's inputs.
  const Node& conv0 = pg.node(7);
  EXPECT_EQ(conv0.op()->InputNames(conv0.attrs.params),
            (std::vector<std::string>{"data", "weight", "bias", "gamma", "beta", "mean", "var"}));
}

TEST(SymbolJsonSubgraph, RunsEqualToThePlainGraph) {
  const Symbol plain = LoadJSON(PlainJson(), Reg()).symbol;
  const Symbol part = LoadJSON(PartitionedJson(), Reg()).symbol;
  auto ref = Bind(plain, false);
  test::FillRandom(ref.get(), 49);
  ref->Forward(false);
  for (bool optimize : {false, true}) {
    SCOPED_TRACE(optimize ? "inference passes" : "no passes");
    auto ex = Bind(part, optimize);
    CopyByName(*ref, ex.get());
    ex->Forward(false);
    const std::vector<double> a = test::Values(ex->outputs()[0]);
    const std::vector<double> b = test::Values(ref->outputs()[0]);
    ASSERT_EQ(a.size(), b.size());
    double worst = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      worst = std::max(worst, std::abs(a[i] - b[i]));
      norm = std::max(norm, std::abs(b[i]));
    }
    EXPECT_LE(worst, 1e-5);
    EXPECT_GT(norm, 1e-2);  // the comparison is not of zeros
  }
}

// `j` without node_row_ptr at any level: Weft counts a BatchNorm's visible
// outputs (1) where MXNet counts 3; MXNet's loader does not read the field.
nlohmann::json WithoutRowPtr(nlohmann::json j) {
  j.erase("node_row_ptr");
  for (auto& n : j["nodes"])
    if (n.contains("subgraphs"))
      for (auto& sub : n["subgraphs"]) sub = WithoutRowPtr(sub);
  return j;
}

TEST(SymbolJsonSubgraph, SavesAndReloadsTheSameJson) {
  const Symbol part = LoadJSON(PartitionedJson(), Reg()).symbol;
  const std::string saved = SaveJSON(part);
  EXPECT_EQ(WithoutRowPtr(nlohmann::json::parse(saved)),
            WithoutRowPtr(nlohmann::json::parse(PartitionedJson())));
  const Symbol again = LoadJSON(saved, Reg()).symbol;
  EXPECT_EQ(SaveJSON(again), saved);
}

TEST(SymbolJsonSubgraph, OneDnnNamesOfMXNet2) {
  std::string text = PartitionedJson();
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"\"_sg_mkldnn_conv\"", "\"_sg_onednn_conv\""},
        {"\"_sg_mkldnn_fully_connected\"", "\"_sg_onednn_fully_connected\""}})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
      text.replace(at, from.size(), to);
  const Symbol part = LoadJSON(text, Reg()).symbol;
  const IndexedGraph g(Graph{part.outputs});
  EXPECT_EQ(g.node(7).op()->name, "_sg_mkldnn_conv");
  EXPECT_TRUE(pass::InferShape(g, kShapes).complete());
}

TEST(SymbolJsonSubgraph, MalformedSubgraphsAreClearErrors) {
  struct Case {
    const char* what;
    std::string text;
    StatusCode code;
    std::vector<std::string> pieces;
  };
  const std::string good = PartitionedJson();
  auto edit = [&](const std::string& from, const std::string& to, std::string t = "") {
    if (t.empty()) t = good;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  const StatusCode kBad = StatusCode::kInvalidArgument;
  const std::vector<Case> cases = {
      {"quantized fully connected without its range inputs",
       edit(R"js("with_eltwise": "True")js", R"js("with_eltwise": "True", "quantized": "true")js"),
       kBad,
       {"sg_mkldnn_fully_connected_eltwise_2", "the operator takes 9", "min_weight"}},
      {"quantized conv without its range inputs",
       PartitionedJson(R"js("quantized": "true", "with_bn": "true", "with_act": "true")js"),
       kBad,
       {"sg_mkldnn_conv_bn_act_0", "has 7 inputs, the operator takes 9", "data_min"}},
      {"flags unlike the subgraph",
       PartitionedJson(R"js("with_act": "true")js"),
       kBad,
       {"sg_mkldnn_conv_bn_act_0", "Convolution -> BatchNorm -> Activation",
        "describe (Convolution -> Activation|LeakyReLU|clip)"}},
      {"too few inputs",
       PartitionedJson(R"js("with_act": "true", "with_bn": "true")js",
                       "[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0]"),
       kBad,
       {"sg_mkldnn_conv_bn_act_0", "has 6 inputs, the operator takes 7"}},
      {"num_args unlike the subgraph",
       PartitionedJson(R"js("with_act": "true", "with_bn": "true", "num_args": "6")js",
                       "[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0]"),
       kBad,
       {"sg_mkldnn_conv_bn_act_0", "reads 7 variables and num_args = 6"}},
      {"subgraphs not an array",
       R"js({"nodes": [{"op": "null", "name": "x", "inputs": []}, {"op": "_sg_mkldnn_conv",
       "name": "sg", "inputs": [[0, 0, 0]], "subgraphs": 7}], "arg_nodes": [0],
       "heads": [[1, 0, 0]]})js",
       kBad,
       {"node 1 'sg' field \"subgraphs\" must be an array, got number"}},
      {"subgraph without heads",
       edit(R"js(, "heads": [[9, 0, 0]])js", ""),
       kBad,
       {"node 7 'sg_mkldnn_conv_bn_act_0' subgraph 0: the subgraph has no \"heads\" field"}},
      {"unknown op inside",
       edit(R"js("op": "BatchNorm", "name": "bn0")js", R"js("op": "Frobnicate", "name": "bn0")js"),
       StatusCode::kNotFound,
       {"subgraph 0: ", "operator 'Frobnicate'", "'bn0'"}},
      {"dangling id inside",
       edit(R"js("inputs": [[8, 0, 0]]})js", R"js("inputs": [[80, 0, 0]]})js"),
       kBad,
       {"subgraph 0: node 9 'relu0' inputs[0] node id = 80 is out of range"}},
      {"subgraph op Weft lacks",
       edit(R"js("op": "_sg_mkldnn_fully_connected")js", R"js("op": "_TensorRT")js"),
       StatusCode::kNotImplemented,
       {"node 12 'sg_mkldnn_fully_connected_eltwise_2'", "'_TensorRT'", "subgraphs"}},
      {"control flow op with another op's attributes",
       edit(R"js("op": "_sg_mkldnn_fully_connected")js", R"js("op": "_foreach")js"),
       kBad,
       {"node 12 'sg_mkldnn_fully_connected_eltwise_2' (_foreach)", "with_eltwise"}},
      {"plain op with subgraphs",
       edit(R"js("attrs": {"with_eltwise": "True"})js", R"js("attrs": {"num_hidden": "5"})js",
            edit(R"js("op": "_sg_mkldnn_fully_connected")js", R"js("op": "FullyConnected")js")),
       kBad,
       {"sg_mkldnn_fully_connected_eltwise_2", "takes no subgraphs"}},
      {"variable with subgraphs",
       edit(R"js({"op": "null", "name": "fc0_bias", "inputs": []})js",
            R"js({"op": "null", "name": "fc0_bias", "inputs": [], "subgraphs": [)js" +
                Sub(Var("a"), "[0]", "[0, 1]", "0") + "]}"),
       kBad,
       {"node 11 'fc0_bias' is a variable", "subgraphs"}},
      {"broken chain",
       edit(R"js("inputs": [[2, 0, 0], [3, 0, 0]]})js", R"js("inputs": [[3, 0, 0], [2, 0, 0]]})js"),
       kBad,
       {"sg_mkldnn_conv_add_act_1",
        "input 0 of node 'add0' must be the output of the node before it"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    test::ExpectWeftError([&] { LoadJSON(c.text, Reg()); }, c.code, c.pieces);
  }
}

TEST(SymbolJsonSubgraph, SubgraphWithoutItsNodeFailsAtLoadWithNoSubgraph) {
  // An _sg_mkldnn_conv node that carries no subgraph at all.
  const std::string text = R"js({"nodes": [)js" + Var("data") + "," + Var("w") + R"js(,
    {"op": "_sg_mkldnn_conv", "name": "sg0", "attrs": {"num_args": "2"},
     "inputs": [[0, 0, 0], [1, 0, 0]]}], "arg_nodes": [0, 1], "heads": [[2, 0, 0]],
    "attrs": {"mxnet_version": ["int", 10901]}})js";
  test::ExpectWeftError([&] { LoadJSON(text, Reg()); }, StatusCode::kInvalidArgument,
                        {"node 'sg0' (_sg_mkldnn_conv)", "must carry one subgraph, has 0"});
}

// BERT's attention after optimize_for('MKLDNN'): _sg_mkldnn_selfatt_qk
// carrying the contrib op as its subgraph loads, runs as that op, and a
// subgraph that disagrees with its node is refused naming both.
TEST(SymbolJsonSubgraph, SelfAttentionQKRunsAsItsContribOp) {
  auto json = [](const std::string& sub_heads) {
    const std::string sub =
        Sub(Var("data0") + R"js(, {"op": "_contrib_interleaved_matmul_selfatt_qk", "name": "qk0",
             "attrs": {"heads": ")js" +
                sub_heads + R"js("}, "inputs": [[0, 0, 0]]})js",
            "[0]", "[0, 1, 2]", "1");
    return R"js({"nodes": [)js" + Var("data") + R"js(,
      {"op": "_sg_mkldnn_selfatt_qk", "name": "sg_mkldnn_selfatt_qk_0", "attrs": {"heads": "1"},
       "inputs": [[0, 0, 0]], "subgraphs": [)js" +
           sub + R"js(]}], "arg_nodes": [0],
      "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}})js";
  };
  const Symbol s = LoadJSON(json("1"), Reg()).symbol;
  NDArray qkv = test::Array({2, 1, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto ex =
      Executor::BindByName(&Runtime::Global(), s, Context::CPU(), {{"data", qkv}}, {}, {}, {});
  ex->Forward(false);
  const NDArray want =
      test::Run("_contrib_interleaved_matmul_selfatt_qk", {qkv}, {{"heads", "1"}})[0];
  EXPECT_EQ(test::Values(ex->outputs()[0]), test::Values(want));
  test::ExpectWeftError([&] { LoadJSON(json("2"), Reg()); }, StatusCode::kInvalidArgument,
                        {"sg_mkldnn_selfatt_qk_0", "heads 1", "has 2"});
}

}  // namespace
}  // namespace weft
