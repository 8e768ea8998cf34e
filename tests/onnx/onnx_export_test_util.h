// Helpers of the ONNX export tests: export with the global runtime, then
// ONNX's own checks (onnx::checker, strict shape inference), and lookups in
// the resulting ModelProto.
#ifndef WEFT_TESTS_ONNX_ONNX_EXPORT_TEST_UTIL_H_
#define WEFT_TESTS_ONNX_ONNX_EXPORT_TEST_UTIL_H_

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "weft/onnx_export.h"
#include "weft/symbol.h"

namespace weft {
namespace test {

struct Exported {
  onnx::ModelProto model;
  OnnxExportResult result;
};

// ExportOnnx on the global runtime, then onnx::checker::check_model and
// strict shape inference (declared output shapes must agree with ONNX's);
// a failed check is a test failure (the message names the model's opset).
Exported ExportChecked(const Symbol& sym, const std::map<std::string, NDArray>& args,
                       const std::map<std::string, NDArray>& aux, OnnxExportOptions opts);

// Random parameters for every argument other than `data_names` (and labels
// no node reads in inference), shapes from inference on `data`; moving
// variances positive.
void RandomParams(const Symbol& sym, const pass::ShapeMap& data,
                  std::map<std::string, NDArray>* args, std::map<std::string, NDArray>* aux);

// The nodes of `op_type`.
std::vector<const onnx::NodeProto*> NodesOf(const onnx::ModelProto& m, const std::string& op_type);
// The initializer named `name` as floats (float or int64 data), or fails.
std::vector<double> InitValues(const onnx::ModelProto& m, const std::string& name);
bool HasInit(const onnx::ModelProto& m, const std::string& name);
// An attribute's int / ints (fails when absent).
int64_t AttrInt(const onnx::NodeProto& n, const std::string& key);
std::vector<int64_t> AttrInts(const onnx::NodeProto& n, const std::string& key);

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_ONNX_ONNX_EXPORT_TEST_UTIL_H_
