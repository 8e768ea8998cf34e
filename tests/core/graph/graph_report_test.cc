// weft/graph_report.h: ResNet-18's summary gives torchvision's parameter
// count and the right output shape and FLOPs per layer; the DOT picture's
// options (weights hidden or shown, shapes on edges, memory blocks).
#include <gtest/gtest.h>

#include "util/bench_models.h"
#include "util/test_util.h"
#include "weft/graph_report.h"

namespace weft {
namespace {

const LayerSummary& Layer(const SymbolSummary& s, const std::string& name) {
  for (const auto& l : s.layers)
    if (l.name == name) return l;
  ADD_FAILURE() << "no layer " << name;
  return s.layers.at(0);
}

TEST(GraphReport, ResNet18SummaryMatchesTorchvision) {
  const SymbolSummary s = Summarize(test::bench::ResNet18(),
                                    {{"data", Shape{1, 3, 224, 224}}, {"softmax_label", Shape{1}}});
  EXPECT_EQ(s.total_params, 11689512);  // torchvision.models.resnet18().parameters()
  // Running mean and var of every BatchNorm: 64 + 4 x 64 + 5 x (128 + 256 + 512) channels.
  EXPECT_EQ(s.aux_elements, 2 * (64 + 4 * 64 + 5 * (128 + 256 + 512)));
  EXPECT_EQ(s.layers.at(0).name, "data");
  EXPECT_EQ(Layer(s, "conv0").out_shape, (Shape{1, 64, 112, 112}));
  EXPECT_EQ(Layer(s, "conv0").params, 64 * 3 * 7 * 7);
  EXPECT_EQ(Layer(s, "conv0").flops, 2LL * 64 * 112 * 112 * 3 * 7 * 7);
  EXPECT_EQ(Layer(s, "pool0").out_shape, (Shape{1, 64, 56, 56}));
  EXPECT_EQ(Layer(s, "stage2_unit1_sc").out_shape, (Shape{1, 128, 28, 28}));
  EXPECT_EQ(Layer(s, "stage4_unit2_relu2").out_shape, (Shape{1, 512, 7, 7}));
  EXPECT_EQ(Layer(s, "fc1").out_shape, (Shape{1, 1000}));
  EXPECT_EQ(Layer(s, "fc1").params, 512 * 1000 + 1000);
  EXPECT_EQ(Layer(s, "fc1").flops, 2LL * 1000 * 512 + 1000);
  EXPECT_EQ(Layer(s, "stage1_unit1_add").previous,
            (std::vector<std::string>{"stage1_unit1_bn2", "pool0"}));
  EXPECT_EQ(Layer(s, "conv0").activation_bytes, 64 * 112 * 112 * 4);
  const std::string text = FormatSummary(s);
  for (const char* want : {"Layer (type)", "conv0(Convolution)", "64x112x112",
                           "Total params: 11689512", "stage1_unit1_bn2"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(GraphReport, DotOptions) {
  const Symbol mlp = test::bench::Mlp();
  const pass::ShapeMap shapes{{"data", Shape{8, 784}}, {"softmax_label", Shape{8}}};
  DotOptions o;
  std::string dot = ToDot(mlp, shapes, o);
  EXPECT_EQ(dot.rfind("digraph \"plot\" {", 0), 0u) << dot;
  EXPECT_NE(dot.find("FullyConnected\\nfc1"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("fc1_weight"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"512\""), std::string::npos) << dot;  // fc1's output, per sample
  o.hide_weights = false;
  o.shapes = false;
  o.memory = true;
  o.node_attrs["fontsize"] = "10";
  dot = ToDot(mlp, shapes, o);
  EXPECT_NE(dot.find("fc1_weight"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("label=\"512\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("block 0"), std::string::npos) << dot;
  EXPECT_NE(dot.find("fontsize=\"10\""), std::string::npos) << dot;
  // The memory plan needs every shape.
  test::ExpectError([&] { ToDot(mlp, {}, o); }, StatusCode::kShape, {});
}

}  // namespace
}  // namespace weft
