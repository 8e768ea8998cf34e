// Helpers of the ONNX export tests.
#include "onnx/onnx_export_test_util.h"

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "util/test_util.h"
#include "weft/graph.h"
#include "weft/pass.h"
#include "weft/runtime.h"

namespace weft {
namespace test {

Exported ExportChecked(const Symbol& sym, const std::map<std::string, NDArray>& args,
                       const std::map<std::string, NDArray>& aux, OnnxExportOptions opts) {
  opts.runtime = &Runtime::Global();
  Exported e;
  e.result = ExportOnnx(sym, args, aux, opts);
  EXPECT_TRUE(e.model.ParseFromString(e.result.model));
  try {
    onnx::checker::check_model(e.model);
  } catch (const std::exception& ex) {
    ADD_FAILURE() << "onnx::checker (opset " << opts.opset << "): " << ex.what();
  }
  try {
    onnx::ModelProto inferred = e.model;
    onnx::ShapeInferenceOptions strict(true, 1, true);
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& ex) {
    ADD_FAILURE() << "ONNX shape inference (opset " << opts.opset << "): " << ex.what();
  }
  return e;
}

void RandomParams(const Symbol& sym, const pass::ShapeMap& data,
                  std::map<std::string, NDArray>* args, std::map<std::string, NDArray>* aux) {
  IndexedGraph g(sym.outputs);
  pass::ShapeResult s = pass::InferShape(g, data);
  unsigned seed = 1;
  const std::vector<std::string> arg_names = sym.ListArguments();
  for (size_t i = 0; i < arg_names.size(); ++i) {
    const std::string& n = arg_names[i];
    if (data.count(n) || n.find("label") != std::string::npos) continue;
    ASSERT_TRUE(s.arg_shapes[i].is_known()) << n;
    (*args)[n] = RandomArray(s.arg_shapes[i], DType::kFloat32, -0.5, 0.5, seed++);
  }
  const std::vector<std::string> aux_names = sym.ListAuxiliaryStates();
  for (size_t i = 0; i < aux_names.size(); ++i) {
    const bool var = aux_names[i].find("var") != std::string::npos;
    (*aux)[aux_names[i]] =
        RandomArray(s.aux_shapes[i], DType::kFloat32, var ? 0.5 : -0.5, var ? 1.5 : 0.5, seed++);
  }
}

std::vector<const onnx::NodeProto*> NodesOf(const onnx::ModelProto& m, const std::string& op_type) {
  std::vector<const onnx::NodeProto*> out;
  for (const auto& n : m.graph().node())
    if (n.op_type() == op_type) out.push_back(&n);
  return out;
}

bool HasInit(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer())
    if (t.name() == name) return true;
  return false;
}

std::vector<double> InitValues(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() != name) continue;
    std::vector<double> v;
    if (t.data_type() == onnx::TensorProto::FLOAT) {
      if (!t.raw_data().empty()) {
        const float* f = reinterpret_cast<const float*>(t.raw_data().data());
        v.assign(f, f + t.raw_data().size() / sizeof(float));
      } else {
        v.assign(t.float_data().begin(), t.float_data().end());
      }
    } else if (t.data_type() == onnx::TensorProto::INT64) {
      v.assign(t.int64_data().begin(), t.int64_data().end());
    } else {
      ADD_FAILURE() << "initializer " << name << " has data type " << t.data_type();
    }
    return v;
  }
  ADD_FAILURE() << "no initializer " << name;
  return {};
}

namespace {
const onnx::AttributeProto* Attr(const onnx::NodeProto& n, const std::string& key) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return &a;
  ADD_FAILURE() << "node " << n.name() << " has no attribute " << key;
  return nullptr;
}
}  // namespace

int64_t AttrInt(const onnx::NodeProto& n, const std::string& key) {
  const onnx::AttributeProto* a = Attr(n, key);
  return a ? a->i() : -1;
}

std::vector<int64_t> AttrInts(const onnx::NodeProto& n, const std::string& key) {
  const onnx::AttributeProto* a = Attr(n, key);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

}  // namespace test
}  // namespace weft
