// See nms_head_util.h.
#include "core/onnx/nms_head_util.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "util/test_util.h"

namespace weft {
namespace test {

OnnxModel ImportThresholdedNmsHead(Runtime* rt) {
  const std::string path = TestDataDir() + "/onnx/nms_head.onnx";
  std::ifstream f(path, std::ios::binary);
  std::stringstream bytes;
  bytes << f.rdbuf();
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(bytes.str())) << path;
  onnx::GraphProto* g = model.mutable_graph();
  onnx::TensorProto* t = g->add_initializer();
  t->set_name("test_score_threshold");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(1);
  t->add_float_data(kNmsScoreThreshold);
  int patched = 0;
  for (onnx::NodeProto& n : *g->mutable_node()) {
    if (n.op_type() != "NonMaxSuppression") continue;
    EXPECT_EQ(n.input_size(), 4) << "the exporter's NonMaxSuppression takes no score threshold";
    n.add_input("test_score_threshold");
    ++patched;
  }
  EXPECT_EQ(patched, 1);
  std::string out;
  model.SerializeToString(&out);
  return ImportOnnx(out.data(), out.size(), "nms_head.onnx with a score threshold", "", rt);
}

std::vector<float> FeaturesScoringNothing(const OnnxModel& m) {
  const std::vector<double> w = Values(m.args.at("score.weight"));  // (1, 8)
  const double b = Values(m.args.at("score.bias"))[0];
  double l1 = 0;
  for (double v : w) l1 += std::fabs(v);
  const double k = (10 + std::fabs(b)) / l1;  // logit = -k * l1 + b <= -10
  std::vector<float> feats;
  for (int row = 0; row < 16; ++row)
    for (double v : w) feats.push_back(static_cast<float>(v > 0 ? -k : k));
  return feats;
}

}  // namespace test
}  // namespace weft
