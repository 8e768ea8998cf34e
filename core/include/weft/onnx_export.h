// ONNX export: a Weft/MXNet symbol and its parameters written as an ONNX
// ModelProto (the converter MXNet's mx2onnx is, without Python MXNet).
//
// What is exported: the inference graph. Arguments and auxiliary states
// found in the parameters become initializers; the other arguments are the
// graph inputs (their shapes from `input_shapes` or the variables' __shape__
// hints; the labels of loss outputs are dropped); the symbol's outputs are
// the graph outputs, each with the shape Weft infers. Loss layers export as
// what they compute in inference (SoftmaxOutput as Softmax), Dropout as the
// identity. Every node is converted or the export fails: the error lists
// every node that has no ONNX form (op, node name, reason), and no file is
// written. Conversions that change what a node computes in training only
// are listed in ExportResult::notes. The operators and their ONNX forms are
// in docs/onnx.md (## Export). Stateless; thread-safe for distinct outputs.
#ifndef WEFT_ONNX_EXPORT_H_
#define WEFT_ONNX_EXPORT_H_

#include <map>
#include <string>
#include <vector>

#include "weft/ndarray.h"
#include "weft/pass.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;

struct OnnxExportOptions {
  // The default opset of the model; 11 to 17 (opset-dependent forms such as
  // Clip's bounds and Squeeze/ReduceSum's axes follow it).
  int opset = 13;
  // Dim 0 of every graph input and output becomes the dim_param "batch".
  bool dynamic_batch = false;
  // Shapes of the data inputs by name (others from __shape__ hints).
  pass::ShapeMap input_shapes;
  // Runs the nodes folded into constants at export (MultiBoxPrior's
  // anchors, operators on parameters only). Null: such nodes are reported
  // as not exportable.
  Runtime* runtime = nullptr;
};

// One line of the report: a node (op and name) and what happened to it.
struct OnnxExportIssue {
  std::string op, node, reason;
};

struct OnnxExportResult {
  std::string model;                         // the serialized ModelProto
  std::vector<OnnxExportIssue> notes;        // exported with a change worth knowing
  std::vector<std::string> inputs, outputs;  // ONNX graph input/output names
  size_t num_nodes = 0;                      // ONNX nodes written
};

// The opsets ExportOnnx accepts.
constexpr int kOnnxExportMinOpset = 11;
constexpr int kOnnxExportMaxOpset = 17;

// Converts `sym` with `args` and `aux` (names without "arg:"/"aux:").
// Errors: kInvalidArgument for an opset outside [11, 17] or an input with no
// known shape (naming it); kNotImplemented listing every node that cannot be
// exported, one per line, "op 'Pooling' node 'pool1': pool_type 'lp'";
// kShape/kDType when inference fails.
OnnxExportResult ExportOnnx(const Symbol& sym, const std::map<std::string, NDArray>& args,
                            const std::map<std::string, NDArray>& aux,
                            const OnnxExportOptions& opts);

// ExportOnnx, then the model written to `path` (kIO naming it on failure).
OnnxExportResult ExportOnnxFile(const Symbol& sym, const std::map<std::string, NDArray>& args,
                                const std::map<std::string, NDArray>& aux,
                                const OnnxExportOptions& opts, const std::string& path);

// The report as text, one issue per line: "op 'X' node 'y': reason".
std::string FormatOnnxIssue(const OnnxExportIssue& issue);

}  // namespace weft

#endif  // WEFT_ONNX_EXPORT_H_
