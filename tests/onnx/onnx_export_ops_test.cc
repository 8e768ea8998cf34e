// ONNX export of single operators: the structure that must come out
// (Reshape's special codes resolved, LSTM/GRU gate blocks reordered from a
// hand-computed packed vector, BatchNorm's fix_gamma, per-opset forms), each
// model through onnx::checker and strict shape inference; and the report of
// what cannot be exported.
#include <gtest/gtest.h>

#include "onnx/onnx_export_test_util.h"
#include "util/test_util.h"
#include "weft/runtime.h"

namespace weft {
namespace {

const OpRegistry& Reg() { return Runtime::Global().ops(); }

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

Symbol Op(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
          const std::string& name) {
  return Symbol::Apply(Reg(), op, in, p, name);
}

test::Exported Export(const Symbol& s, const pass::ShapeMap& shapes,
                      const std::map<std::string, NDArray>& args = {}, int opset = 13) {
  OnnxExportOptions o;
  o.opset = opset;
  o.input_shapes = shapes;
  return test::ExportChecked(s, args, {}, o);
}

// The constant shape input of the graph's only Reshape.
std::vector<double> ReshapeTarget(const Symbol& s, const Shape& in) {
  test::Exported e = Export(s, {{"data", in}});
  auto r = test::NodesOf(e.model, "Reshape");
  EXPECT_EQ(r.size(), 1u);
  return r.empty() ? std::vector<double>{} : test::InitValues(e.model, r[0]->input(1));
}

TEST(OnnxExportOps, ReshapeSpecialCodesAreResolved) {
  const Shape in{2, 3, 4};
  auto reshape = [&](const std::string& shape, bool reverse = false) {
    return ReshapeTarget(
        Op("Reshape", {Var("data")}, {{"shape", shape}, {"reverse", reverse ? "1" : "0"}}, "r"),
        in);
  };
  EXPECT_EQ(reshape("(0, -1)"), (std::vector<double>{2, 12}));
  EXPECT_EQ(reshape("(-3, -2)"), (std::vector<double>{6, 4}));
  EXPECT_EQ(reshape("(-4, 1, 2, -2)"), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(reshape("(-2, 1)"), (std::vector<double>{2, 3, 4, 1}));
  EXPECT_EQ(reshape("(-1, 0)", true), (std::vector<double>{6, 4}));
}

TEST(OnnxExportOps, DynamicBatchReshapeCopiesDimZero) {
  OnnxExportOptions o;
  o.dynamic_batch = true;
  o.input_shapes = {{"data", Shape{2, 3, 4}}};
  test::Exported e =
      test::ExportChecked(Op("Reshape", {Var("data")}, {{"shape", "(0, -1)"}}, "r"), {}, {}, o);
  auto r = test::NodesOf(e.model, "Reshape");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(test::InitValues(e.model, r[0]->input(1)), (std::vector<double>{0, 12}));
}

Symbol BatchNorm(bool fix_gamma) {
  return Op("BatchNorm", {Var("data"), Var("g"), Var("b"), Var("mm"), Var("mv")},
            {{"fix_gamma", fix_gamma ? "True" : "False"}, {"eps", "0.002"}}, "bn");
}

TEST(OnnxExportOps, BatchNormFixGammaGivesOnes) {
  const Shape x{2, 3, 4, 4};
  std::map<std::string, NDArray> p = {{"g", test::Array(Shape{3}, {2, 3, 4})},
                                      {"b", test::Array(Shape{3}, {0, 1, 2})},
                                      {"mm", test::Array(Shape{3}, {0.1, 0.2, 0.3})},
                                      {"mv", test::Array(Shape{3}, {1, 2, 3})}};
  for (bool fix : {true, false}) {
    SCOPED_TRACE(fix ? "fix_gamma" : "learned gamma");
    OnnxExportOptions o;
    o.input_shapes = {{"data", x}};
    std::map<std::string, NDArray> args = {{"g", p["g"]}, {"b", p["b"]}};
    std::map<std::string, NDArray> aux = {{"mm", p["mm"]}, {"mv", p["mv"]}};
    test::Exported e = test::ExportChecked(BatchNorm(fix), args, aux, o);
    auto bn = test::NodesOf(e.model, "BatchNormalization");
    ASSERT_EQ(bn.size(), 1u);
    const std::vector<double> want =
        fix ? std::vector<double>{1, 1, 1} : std::vector<double>{2, 3, 4};
    EXPECT_EQ(test::InitValues(e.model, bn[0]->input(1)), want);
    EXPECT_EQ(bn[0]->input(3), "mm");  // inference reads the moving statistics
    EXPECT_EQ(bn[0]->input(4), "mv");
    EXPECT_EQ(e.result.notes.size(), fix ? 1u : 0u);
  }
}

// LSTM, hidden 1, input 1, one layer: MXNet packs W_i2h (i, f, g, o) = 1..4,
// W_h2h = 5..8, b_i2h = 9..12, b_h2h = 13..16; ONNX wants (i, o, f, c).
TEST(OnnxExportOps, LstmGatesAreReordered) {
  std::vector<double> packed;
  for (int i = 1; i <= 16; ++i) packed.push_back(i);
  Symbol s = Op("RNN", {Var("data"), Var("p"), Var("h0"), Var("c0")},
                {{"mode", "lstm"}, {"state_size", "1"}, {"num_layers", "1"}}, "rnn");
  test::Exported e =
      Export(s, {{"data", Shape{5, 2, 1}}, {"h0", Shape{1, 2, 1}}, {"c0", Shape{1, 2, 1}}},
             {{"p", test::Array(Shape{16}, packed)}});
  auto lstm = test::NodesOf(e.model, "LSTM");
  ASSERT_EQ(lstm.size(), 1u);
  EXPECT_EQ(test::InitValues(e.model, lstm[0]->input(1)), (std::vector<double>{1, 4, 2, 3}));
  EXPECT_EQ(test::InitValues(e.model, lstm[0]->input(2)), (std::vector<double>{5, 8, 6, 7}));
  EXPECT_EQ(test::InitValues(e.model, lstm[0]->input(3)),
            (std::vector<double>{9, 12, 10, 11, 13, 16, 14, 15}));
  EXPECT_EQ(test::AttrInt(*lstm[0], "hidden_size"), 1);
}

// GRU, hidden 1, input 2, bidirectional: per direction W_i2h (r, z, n) rows
// of 2, W_h2h rows of 1; ONNX wants (z, r, h) with linear_before_reset.
TEST(OnnxExportOps, BidirectionalGruGatesAreReordered) {
  // fwd W 1..6, fwd R 7..9, bwd W 10..15, bwd R 16..18, then biases
  // fwd b_i2h 19..21, b_h2h 22..24, bwd b_i2h 25..27, b_h2h 28..30.
  std::vector<double> packed;
  for (int i = 1; i <= 30; ++i) packed.push_back(i);
  Symbol s =
      Op("RNN", {Var("data"), Var("p"), Var("h0")},
         {{"mode", "gru"}, {"state_size", "1"}, {"num_layers", "1"}, {"bidirectional", "True"}},
         "gru");
  test::Exported e = Export(s, {{"data", Shape{3, 1, 2}}, {"h0", Shape{2, 1, 1}}},
                            {{"p", test::Array(Shape{30}, packed)}});
  auto gru = test::NodesOf(e.model, "GRU");
  ASSERT_EQ(gru.size(), 1u);
  EXPECT_EQ(test::InitValues(e.model, gru[0]->input(1)),
            (std::vector<double>{3, 4, 1, 2, 5, 6, 12, 13, 10, 11, 14, 15}));
  EXPECT_EQ(test::InitValues(e.model, gru[0]->input(2)),
            (std::vector<double>{8, 7, 9, 17, 16, 18}));
  EXPECT_EQ(test::InitValues(e.model, gru[0]->input(3)),
            (std::vector<double>{20, 19, 21, 23, 22, 24, 26, 25, 27, 29, 28, 30}));
  EXPECT_EQ(test::AttrInt(*gru[0], "linear_before_reset"), 1);
}

TEST(OnnxExportOps, TwoLayerLstmChainsTwoNodes) {
  const int64_t h = 2, in = 3;
  Symbol s =
      Op("RNN", {Var("data"), Var("p"), Var("h0"), Var("c0")},
         {{"mode", "lstm"}, {"state_size", "2"}, {"num_layers", "2"}, {"state_outputs", "True"}},
         "rnn");
  // Layer 0 W (4h x in), R (4h x h); layer 1 W (4h x h), R; two biases of 4h per layer.
  const int64_t n = 4 * h * in + 4 * h * h + 4 * h * h + 4 * h * h + 2 * 2 * 4 * h;
  test::Exported e =
      Export(s, {{"data", Shape{4, 1, in}}, {"h0", Shape{2, 1, h}}, {"c0", Shape{2, 1, h}}},
             {{"p", test::RandomArray(Shape{n}, DType::kFloat32, -1, 1, 3)}});
  EXPECT_EQ(test::NodesOf(e.model, "LSTM").size(), 2u);
  EXPECT_EQ(e.model.graph().output_size(), 3);
}

TEST(OnnxExportOps, PerOpsetForms) {
  Symbol s = Op("clip", {Op("expand_dims", {Var("data")}, {{"axis", "1"}}, "e")},
                {{"a_min", "-1"}, {"a_max", "2"}}, "c");
  s = Op("sum", {s}, {{"axis", "(1,)"}}, "s");
  for (int opset : {11, 12, 13, 17}) {
    SCOPED_TRACE(opset);
    test::Exported e = Export(s, {{"data", Shape{2, 3}}}, {}, opset);
    auto clip = test::NodesOf(e.model, "Clip");
    ASSERT_EQ(clip.size(), 1u);
    EXPECT_EQ(clip[0]->input_size(), 3);  // min and max as inputs from opset 11
    auto un = test::NodesOf(e.model, "Unsqueeze");
    ASSERT_EQ(un.size(), 1u);
    EXPECT_EQ(un[0]->input_size(), opset >= 13 ? 2 : 1);
    auto rs = test::NodesOf(e.model, "ReduceSum");
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0]->input_size(), opset >= 13 ? 2 : 1);
  }
}

// GluonNLP's encoder-decoder attention: queries (Lq, B, heads*D), keys and
// values interleaved (Lk, B, heads*2*D); ONNX's shapes must come out as
// Weft's (B*heads, Lq, Lk) scores and (Lq, B, heads*D) result.
TEST(OnnxExportOps, EncDecAttentionShapesAgree) {
  Symbol q = Var("q"), kv = Var("kv");
  Symbol scores = Op("_contrib_interleaved_matmul_encdec_qk", {q, kv}, {{"heads", "2"}}, "qk");
  Symbol att = Op("softmax", {scores}, {}, "sm");
  Symbol out = Op("_contrib_interleaved_matmul_encdec_valatt", {kv, att}, {{"heads", "2"}}, "va");
  test::Exported e = Export(out, {{"q", Shape{3, 2, 8}}, {"kv", Shape{5, 2, 16}}});
  EXPECT_EQ(test::NodesOf(e.model, "MatMul").size(), 2u);
  const auto& dims = e.model.graph().output(0).type().tensor_type().shape();
  ASSERT_EQ(dims.dim_size(), 3);
  EXPECT_EQ(dims.dim(0).dim_value(), 3);
  EXPECT_EQ(dims.dim(2).dim_value(), 8);
}

// _npi_einsum is Einsum from opset 12 with its output term written out
// (implicit mode: the letters that appear once, sorted); ONNX broadcasts
// only '...' axes and has no Einsum before 12.
TEST(OnnxExportOps, EinsumWithItsOutputWrittenOut) {
  auto einsum = [](const std::vector<Symbol>& in, const std::string& sub, const std::string& name) {
    return Op("_npi_einsum", in, {{"subscripts", sub}, {"num_args", std::to_string(in.size())}},
              name);
  };
  Symbol s = einsum({Var("data"), Var("w")}, " kj , ji ", "mm");
  s = einsum({s, Var("v")}, "...i,...i->...", "dots");
  test::Exported e = Export(s, {{"data", Shape{3, 4}}, {"w", Shape{4, 5}}, {"v", Shape{5, 3}}});
  auto nodes = test::NodesOf(e.model, "Einsum");
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]->attribute(0).s(), "kj,ji->ik");
  EXPECT_EQ(nodes[1]->attribute(0).s(), "...i,...i->...");
  test::ExpectError(
      [&] {
        Export(s, {{"data", Shape{3, 4}}, {"w", Shape{4, 5}}, {"v", Shape{5, 3}}}, {}, 11);
      },
      StatusCode::kNotImplemented,
      {"node 'mm': Einsum needs opset 12 (exporting at opset 11)", "node 'dots'"});
  Symbol b = einsum({Var("data"), Var("w")}, "ij,jk->ik", "bc");
  test::ExpectError(
      [&] {
        Export(b, {{"data", Shape{3, 1}}, {"w", Shape{4, 5}}});
      },
      StatusCode::kNotImplemented,
      {"node 'bc': operand 0 broadcasts letter 'j' from extent 1 to 4"});
  Symbol r = einsum({Var("data"), Var("w")}, "...j,...j->...", "ranks");
  test::ExpectError(
      [&] {
        Export(r, {{"data", Shape{2, 3, 4}}, {"w", Shape{3, 4}}});
      },
      StatusCode::kNotImplemented, {"node 'ranks': operand 1's '...' stands for 1"});
}

TEST(OnnxExportOps, UnsupportedNodesAreAllListed) {
  Symbol a = Op("Pooling", {Var("data")},
                {{"kernel", "(3,3)"},
                 {"stride", "(2,2)"},
                 {"pool_type", "sum"},
                 {"pooling_convention", "full"}},
                "pool_sum");
  Symbol b =
      Op("_contrib_box_nms", {Op("Reshape", {a}, {{"shape", "(2, -1, 6)"}}, "r")}, {}, "nms");
  test::ExpectError(
      [&] {
        Export(Op("argmax", {b.GetOutput(1)}, {{"axis", "1"}}, "am"),
               {{"data", Shape{1, 3, 4, 4}}});
      },
      StatusCode::kNotImplemented,
      {"3 nodes cannot be exported",
       "op 'Pooling' node 'pool_sum': pool_type 'sum' with pooling_convention 'full'",
       "node 'nms': output 1 is read", "node 'am': no ONNX conversion"});
}

TEST(OnnxExportOps, BadOptionsAreErrors) {
  Symbol s = Op("relu", {Var("data")}, {}, "r");
  test::ExpectError(
      [&] {
        Export(s, {{"data", Shape{2}}}, {}, 10);
      },
      StatusCode::kInvalidArgument, {"opset 10", "11 to 17"});
  test::ExpectError([&] { Export(s, {}); }, StatusCode::kInvalidArgument, {"data", "not known"});
}

}  // namespace
}  // namespace weft
