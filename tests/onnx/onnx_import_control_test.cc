// ONNX If, Loop and Scan (onnx/import_ops_control.cc): what the importer
// refuses, by node name, on edited copies of the control-flow models of
// tests/data/onnx (scripts/make_onnx_import_models.py); and that an
// imported model's symbol saves to JSON and loads back.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

#include "util/test_util.h"
#include "weft/onnx_import.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

onnx::ModelProto Load(const std::string& name) {
  std::ifstream in(test::TestDataDir() + "/onnx/" + name + ".onnx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(ss.str())) << name;
  return m;
}

OnnxModel Import(const onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return ImportOnnx(bytes.data(), bytes.size(), "<edited>", "", &Runtime::Global());
}

onnx::NodeProto* NodeNamed(onnx::ModelProto* m, const std::string& name) {
  for (auto& n : *m->mutable_graph()->mutable_node())
    if (n.name() == name) return &n;
  ADD_FAILURE() << "no node " << name;
  return nullptr;
}

onnx::AttributeProto* Attr(onnx::NodeProto* n, const std::string& key) {
  for (auto& a : *n->mutable_attribute())
    if (a.name() == key) return &a;
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(key);
  return a;
}

TEST(OnnxImportControl, ScanReversedIsRefused) {
  onnx::ModelProto m = Load("ctrl_scan");
  onnx::AttributeProto* a = Attr(NodeNamed(&m, "scan"), "scan_input_directions");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(1);
  test::ExpectError([&] { Import(m); }, StatusCode::kNotImplemented,
                    {"'scan' (Scan)", "scan_input_directions", "axis 0 forward"});
}

TEST(OnnxImportControl, LoopWithoutTripCountIsRefused) {
  onnx::ModelProto m = Load("ctrl_loop");
  NodeNamed(&m, "loop_b")->set_input(0, "");
  test::ExpectError([&] { Import(m); }, StatusCode::kNotImplemented,
                    {"'loop_b' (Loop)", "no trip count M", "max_iterations"});
}

TEST(OnnxImportControl, LoopStoppingEarlyWithScanOutputsIsRefused) {
  onnx::ModelProto m = Load("ctrl_loop");
  // loop_a's condition becomes the data-dependent go0 of loop_b: its scan
  // outputs' length would depend on the data.
  auto* nodes = m.mutable_graph()->mutable_node();
  nodes->SwapElements(0, 1);
  nodes->SwapElements(1, 2);
  NodeNamed(&m, "loop_a")->set_input(1, "go0");
  test::ExpectError([&] { Import(m); }, StatusCode::kNotImplemented,
                    {"'loop_a' (Loop)", "scan outputs' length data-dependent"});
}

TEST(OnnxImportControl, IfWithBranchesOfOtherShapesIsRefused) {
  onnx::ModelProto m = Load("ctrl_if");
  onnx::GraphProto* else_g = Attr(NodeNamed(&m, "if_pos"), "else_branch")->mutable_g();
  onnx::NodeProto* sum = else_g->add_node();
  sum->set_op_type("ReduceSum");
  sum->add_input(else_g->output(0).name());
  sum->add_output("a_total");
  else_g->mutable_output(0)->set_name("a_total");
  else_g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  test::ExpectError([&] { Import(m); }, StatusCode::kNotImplemented,
                    {"'if_pos' (If)", "then_branch", "else_branch", "same shapes"});
}

TEST(OnnxImportControl, ImportedControlFlowSavesAndLoads) {
  for (const char* name : {"ctrl_if", "ctrl_loop", "ctrl_scan"}) {
    const OnnxModel model = Import(Load(name));
    const std::string json = SaveJSON(model.symbol);
    const Symbol again = LoadJSON(json, Runtime::Global().ops()).symbol;
    EXPECT_EQ(SaveJSON(again), json) << name;
    EXPECT_EQ(again.ListArguments(), model.symbol.ListArguments()) << name;
  }
}

}  // namespace
}  // namespace weft
