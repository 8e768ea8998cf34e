// InferShape over the library's own operators (Runtime::Global()), one case
// per rule that MXNet 1.x documents for its operators: parameters inferred
// from data (Convolution, Deconvolution, BatchNorm, Embedding, LeakyReLU,
// FullyConnected without flatten), output sizes (Pooling conventions,
// Reshape's special codes, transpose, SliceChannel, UpSampling) and inputs
// filled backwards from what they feed (Concat, SoftmaxOutput's label).
// infer_shape_test.cc covers the pass itself with test-only operators.
#include <gtest/gtest.h>

#include "core/json/json_test_util.h"
#include "weft/pass.h"
#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace {

using Names = std::vector<std::string>;
using Shapes = std::vector<Shape>;

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name, VariableHints{}); }
Symbol Op(const std::string& op, const std::vector<Symbol>& args, const StringMap& params,
          const std::string& name) {
  return Symbol::Apply(Runtime::Global().ops(), op, args, params, name);
}
pass::ShapeResult Infer(const Symbol& s, const pass::ShapeMap& in) {
  return pass::InferShape(IndexedGraph(s.outputs), in);
}
// The output shape of `op` applied to one variable "x" of shape `x`.
Shape Out1(const std::string& op, const StringMap& params, const Shape& x) {
  pass::ShapeResult r = Infer(Op(op, {Var("x")}, params, "o"), {{"x", x}});
  EXPECT_TRUE(r.complete()) << op;
  return r.out_shapes.at(0);
}

TEST(InferShapeMXNetTest, ConvolutionInfersWeightBiasAndOutput) {
  Symbol conv = Op("Convolution", {Var("data")},
                   {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}}, "conv");
  EXPECT_EQ(conv.ListArguments(), (Names{"data", "conv_weight", "conv_bias"}));
  pass::ShapeResult r = Infer(conv, {{"data", Shape{2, 3, 8, 8}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 3, 8, 8}, {4, 3, 3, 3}, {4}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{2, 4, 8, 8}}));
  // out = floor((in + 2*pad - dilate*(k-1) - 1) / stride) + 1
  EXPECT_EQ(Out1("Convolution", {{"kernel", "(3,3)"}, {"num_filter", "2"}, {"stride", "(2,2)"}},
                 Shape{1, 1, 8, 8}),
            (Shape{1, 2, 3, 3}));
  EXPECT_EQ(Out1("Convolution", {{"kernel", "(3,3)"}, {"num_filter", "2"}, {"dilate", "(2,2)"}},
                 Shape{1, 1, 9, 9}),
            (Shape{1, 2, 5, 5}));
  // Grouped: weight (num_filter, C / num_group, kh, kw).
  Symbol g =
      Op("Convolution", {Var("data")},
         {{"kernel", "(3,3)"}, {"num_filter", "6"}, {"num_group", "2"}, {"no_bias", "True"}}, "g");
  pass::ShapeResult gr = Infer(g, {{"data", Shape{1, 4, 5, 5}}});
  EXPECT_EQ(gr.arg_shapes, (Shapes{{1, 4, 5, 5}, {6, 2, 3, 3}}));
  EXPECT_EQ(gr.out_shapes, (Shapes{Shape{1, 6, 3, 3}}));
}

TEST(InferShapeMXNetTest, DeconvolutionInfersWeightAndOutput) {
  // weight (C, num_filter / num_group, kh, kw); out = (in - 1) * stride - 2*pad + k + adj.
  Symbol d = Op("Deconvolution", {Var("data")},
                {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"stride", "(2,2)"}}, "deconv");
  EXPECT_EQ(d.ListArguments(), (Names{"data", "deconv_weight"}));  // no_bias defaults to True
  pass::ShapeResult r = Infer(d, {{"data", Shape{1, 2, 3, 3}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{1, 2, 3, 3}, {2, 4, 3, 3}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{1, 4, 7, 7}}));
  EXPECT_EQ(Out1("Deconvolution",
                 {{"kernel", "(3,3)"}, {"num_filter", "4"}, {"stride", "(2,2)"}, {"adj", "(1,1)"}},
                 Shape{1, 2, 3, 3}),
            (Shape{1, 4, 8, 8}));
}

TEST(InferShapeMXNetTest, PoolingConventionsAndGlobalPool) {
  const Shape x{1, 3, 5, 5};
  StringMap p{{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}};
  EXPECT_EQ(Out1("Pooling", p, x), (Shape{1, 3, 2, 2}));  // valid: floor
  p["pooling_convention"] = "full";
  EXPECT_EQ(Out1("Pooling", p, x), (Shape{1, 3, 3, 3}));  // full: ceil
  EXPECT_EQ(
      Out1("Pooling", {{"kernel", "(3,3)"}, {"global_pool", "True"}, {"pool_type", "avg"}}, x),
      (Shape{1, 3, 1, 1}));
}

TEST(InferShapeMXNetTest, BatchNormParametersAndAuxiliaryStatesFromTheChannelAxis) {
  Symbol bn = Op("BatchNorm", {Var("data")}, {}, "bn1");
  EXPECT_EQ(bn.ListArguments(), (Names{"data", "bn1_gamma", "bn1_beta"}));
  EXPECT_EQ(bn.ListAuxiliaryStates(), (Names{"bn1_moving_mean", "bn1_moving_var"}));
  pass::ShapeResult r = Infer(bn, {{"data", Shape{2, 3, 4, 4}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 3, 4, 4}, {3}, {3}}));
  EXPECT_EQ(r.aux_shapes, (Shapes{{3}, {3}}));
  EXPECT_EQ(r.out_shapes[0], (Shape{2, 3, 4, 4}));
  // axis = -1: the channels are last.
  pass::ShapeResult last =
      Infer(Op("BatchNorm", {Var("data")}, {{"axis", "-1"}}, "bn2"), {{"data", Shape{2, 4, 5}}});
  EXPECT_EQ(last.aux_shapes, (Shapes{{5}, {5}}));
}

TEST(InferShapeMXNetTest, FullyConnectedWithoutFlattenKeepsLeadingAxes) {
  Symbol fc =
      Op("FullyConnected", {Var("data")}, {{"num_hidden", "4"}, {"flatten", "False"}}, "fc");
  pass::ShapeResult r = Infer(fc, {{"data", Shape{2, 3, 5}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 3, 5}, {4, 5}, {4}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{2, 3, 4}}));
}

TEST(InferShapeMXNetTest, EmbeddingWeightIsInputDimByOutputDim) {
  Symbol e = Op("Embedding", {Var("data")}, {{"input_dim", "10"}, {"output_dim", "6"}}, "embed");
  EXPECT_EQ(e.ListArguments(), (Names{"data", "embed_weight"}));
  pass::ShapeResult r = Infer(e, {{"data", Shape{4, 5}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{4, 5}, {10, 6}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{4, 5, 6}}));
}

TEST(InferShapeMXNetTest, PReLUGammaHasOneSlopePerChannel) {
  Symbol p = Op("LeakyReLU", {Var("data")}, {{"act_type", "prelu"}}, "prelu");
  EXPECT_EQ(p.ListArguments(), (Names{"data", "prelu_gamma"}));
  pass::ShapeResult r = Infer(p, {{"data", Shape{2, 3, 4}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 3, 4}, {3}}));
}

TEST(InferShapeMXNetTest, ReshapeSpecialCodesAsDocumented) {
  // The examples of MXNet's Reshape documentation, input (2,3,4).
  const Shape x{2, 3, 4};
  auto reshape = [&](const std::string& shape, const Shape& in, bool reverse = false) {
    return Out1("Reshape", {{"shape", shape}, {"reverse", reverse ? "True" : "False"}}, in);
  };
  EXPECT_EQ(reshape("(4,0,2)", x), (Shape{4, 3, 2}));  // 0 copies
  EXPECT_EQ(reshape("(2,0,0)", x), (Shape{2, 3, 4}));
  EXPECT_EQ(reshape("(6,1,-1)", x), (Shape{6, 1, 4}));  // -1 infers
  EXPECT_EQ(reshape("(3,-1,8)", x), (Shape{3, 1, 8}));
  EXPECT_EQ(reshape("(-1,)", x), (Shape{24}));
  EXPECT_EQ(reshape("(-2,)", x), (Shape{2, 3, 4}));  // -2 copies the rest
  EXPECT_EQ(reshape("(2,-2)", x), (Shape{2, 3, 4}));
  EXPECT_EQ(reshape("(-2,1,1)", x), (Shape{2, 3, 4, 1, 1}));
  EXPECT_EQ(reshape("(-3,4)", x), (Shape{6, 4}));  // -3 merges two
  EXPECT_EQ(reshape("(-3,-3)", Shape{2, 3, 4, 5}), (Shape{6, 20}));
  EXPECT_EQ(reshape("(0,-3)", x), (Shape{2, 12}));
  EXPECT_EQ(reshape("(-3,-2)", x), (Shape{6, 4}));
  EXPECT_EQ(reshape("(-4,1,2,-2)", x), (Shape{1, 2, 3, 4}));  // -4 splits one
  EXPECT_EQ(reshape("(2,-4,-1,3,-2)", x), (Shape{2, 1, 3, 4}));
  EXPECT_EQ(reshape("(-1,0)", Shape{10, 5, 4}, true), (Shape{50, 4}));  // reverse
  test::ExpectWeftError([&] { reshape("(5,-1)", x); }, StatusCode::kShape, {"Reshape", "(2,3,4)"});
}

TEST(InferShapeMXNetTest, FlattenTransposeExpandDimsAndSliceAxis) {
  EXPECT_EQ(Out1("Flatten", {}, Shape{2, 3, 4, 5}), (Shape{2, 60}));
  EXPECT_EQ(Out1("transpose", {}, Shape{2, 3, 4}), (Shape{4, 3, 2}));  // no axes: reversed
  EXPECT_EQ(Out1("transpose", {{"axes", "(1,0,2)"}}, Shape{2, 3, 4}), (Shape{3, 2, 4}));
  EXPECT_EQ(Out1("expand_dims", {{"axis", "1"}}, Shape{2, 3}), (Shape{2, 1, 3}));
  EXPECT_EQ(Out1("slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "None"}}, Shape{2, 5}),
            (Shape{2, 4}));
  EXPECT_EQ(Out1("slice_axis", {{"axis", "-1"}, {"begin", "-3"}, {"end", "-1"}}, Shape{2, 5}),
            (Shape{2, 2}));
}

TEST(InferShapeMXNetTest, SliceChannelSplitsAndSqueezes) {
  Symbol s = Op("SliceChannel", {Var("x")}, {{"num_outputs", "3"}, {"axis", "1"}}, "split");
  EXPECT_EQ(Infer(s, {{"x", Shape{2, 6, 4}}}).out_shapes,
            (Shapes{{2, 2, 4}, {2, 2, 4}, {2, 2, 4}}));
  Symbol q = Op("SliceChannel", {Var("x")},
                {{"num_outputs", "3"}, {"axis", "1"}, {"squeeze_axis", "True"}}, "sq");
  EXPECT_EQ(Infer(q, {{"x", Shape{2, 3, 4}}}).out_shapes, (Shapes{{2, 4}, {2, 4}, {2, 4}}));
  test::ExpectWeftError(
      [&] {
        Infer(s, {{"x", Shape{2, 5, 4}}});
      },
      StatusCode::kShape, {"SliceChannel"});
}

TEST(InferShapeMXNetTest, ConcatFillsTheOneUnknownInputFromItsOutput) {
  Symbol a = Var("a"), b = Var("b");
  Symbol c = Op("Concat", {a, b}, {{"num_args", "2"}, {"dim", "1"}}, "concat");
  EXPECT_EQ(Infer(c, {{"a", Shape{2, 3}}, {"b", Shape{2, 4}}}).out_shapes, (Shapes{Shape{2, 7}}));
  // The sum with a known (2,7) fixes the Concat output; b is what remains.
  Symbol sum = Op("elemwise_add", {c, Var("z")}, {}, "sum");
  pass::ShapeResult r = Infer(sum, {{"a", Shape{2, 3}}, {"z", Shape{2, 7}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{2, 3}, {2, 4}, {2, 7}}));
}

TEST(InferShapeMXNetTest, SoftmaxOutputInfersItsLabel) {
  Symbol s = Op("SoftmaxOutput", {Var("data")}, {}, "softmax");
  EXPECT_EQ(s.ListArguments(), (Names{"data", "softmax_label"}));
  pass::ShapeResult r = Infer(s, {{"data", Shape{4, 10}}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_shapes, (Shapes{{4, 10}, {4}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{4, 10}}));
  // multi_output: one label per position, (N, d1, ...).
  pass::ShapeResult m = Infer(Op("SoftmaxOutput", {Var("data")}, {{"multi_output", "True"}}, "sm"),
                              {{"data", Shape{4, 10, 3}}});
  EXPECT_EQ(m.arg_shapes, (Shapes{{4, 10, 3}, {4, 3}}));
}

TEST(InferShapeMXNetTest, UpSamplingNearestScalesTheSpatialAxes) {
  Symbol u = Op("UpSampling", {Var("x")},
                {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}}, "up");
  EXPECT_EQ(Infer(u, {{"x", Shape{1, 3, 4, 5}}}).out_shapes, (Shapes{Shape{1, 3, 8, 10}}));
}

TEST(InferShapeMXNetTest, AConvNetInfersEveryParameterFromTheDataShape) {
  // conv -> bn -> relu -> pool -> flatten -> fc -> softmax, as in MXNet's examples.
  Symbol x = Var("data");
  Symbol conv =
      Op("Convolution", {x}, {{"kernel", "(3,3)"}, {"num_filter", "8"}, {"pad", "(1,1)"}}, "conv1");
  Symbol bn = Op("BatchNorm", {conv}, {}, "bn1");
  Symbol act = Op("Activation", {bn[0]}, {{"act_type", "relu"}}, "relu1");
  Symbol pool = Op("Pooling", {act},
                   {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}}, "pool1");
  Symbol fc =
      Op("FullyConnected", {Op("Flatten", {pool}, {}, "flat")}, {{"num_hidden", "10"}}, "fc1");
  Symbol net = Op("SoftmaxOutput", {fc}, {}, "softmax");
  pass::ShapeResult r = Infer(net, {{"data", Shape{4, 3, 16, 16}}});
  EXPECT_TRUE(r.complete()) << r.unknown_names.size();
  EXPECT_EQ(net.ListArguments(), (Names{"data", "conv1_weight", "conv1_bias", "bn1_gamma",
                                        "bn1_beta", "fc1_weight", "fc1_bias", "softmax_label"}));
  EXPECT_EQ(r.arg_shapes,
            (Shapes{{4, 3, 16, 16}, {8, 3, 3, 3}, {8}, {8}, {8}, {10, 512}, {10}, {4}}));
  EXPECT_EQ(r.aux_shapes, (Shapes{{8}, {8}}));
  EXPECT_EQ(r.out_shapes, (Shapes{Shape{4, 10}}));
}

}  // namespace
}  // namespace weft
