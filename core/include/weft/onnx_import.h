// ONNX import: an ONNX model (opsets 7-18 of the default domain) as a Weft
// symbol and its parameters, built from Weft's MXNet operators.
//
// The model is read with Debian's libonnx (generated ModelProto classes,
// onnx::checker, ONNX's own shape inference); initializers come from
// raw_data, the typed fields or external data files (confined to the
// model's folder). Graph inputs that are not initializers become the
// symbol's data variables with their ONNX shapes (a dim_param or unset
// extent is Weft's unknown extent, 0). Shape, ConstantOfShape and the other
// shape-computing nodes are evaluated at import over static shapes. The
// initializers the graph uses become arguments, except those an operator
// mutates (BatchNorm's running mean and variance), which are auxiliary
// states, as MXNet splits them. Every failure is a weft::Error naming the
// file and, where it applies, the node, operator and input; an unsupported
// model lists every unsupported node in one error. Stateless; thread-safe
// for distinct calls.
#ifndef WEFT_ONNX_IMPORT_H_
#define WEFT_ONNX_IMPORT_H_

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "weft/ndarray.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;

struct OnnxImportOptions {
  // Shapes that replace graph inputs' ONNX shapes (e.g. a fixed batch for a
  // model with a dynamic one, so that its shape computations fold). A name
  // that is an initializer is ignored; any other unknown name is an error.
  std::map<std::string, Shape> input_shapes;
  // Import the decompositions exporters write for LayerNorm, the erf GELU
  // and dense layers (MatMul + Add) as those single operators (onnx/
  // import_fuse.h); false keeps every ONNX node as its own operator.
  bool fuse = true;
};

struct OnnxModel {
  Symbol symbol;                                      // outputs in the graph's output order
  std::map<std::string, NDArray> args;                // parameters read by the graph
  std::map<std::string, NDArray> aux;                 // parameters an operator mutates
  std::vector<std::pair<std::string, Shape>> inputs;  // data inputs, in order
  int opset = 0;                                      // the default domain's opset
  std::string producer;                               // producer_name and version
  int fused = 0;                                      // decompositions imported as one op
};

// The operators (ONNX op_type) the importer converts, sorted.
std::vector<std::string> OnnxSupportedOps();

// Reads and imports the model at `path`; external data files are looked up
// in its folder. Arrays are allocated on cpu(0) of `rt` (not null), whose
// registry resolves the operators. Errors: kIO (the file), kInvalidArgument
// (malformed model, unknown opset or domain, a missing initializer, an
// external data path outside the folder), kNotImplemented (the list of
// unsupported nodes, or an unsupported attribute value naming its node).
OnnxModel ImportOnnxFile(const std::string& path, Runtime* rt,
                         const OnnxImportOptions& options = {});

// The same from a serialized model in memory; `what` names it in errors and
// `model_dir` is the folder for external data ("" refuses external data).
OnnxModel ImportOnnx(const void* data, size_t size, const std::string& what,
                     const std::string& model_dir, Runtime* rt,
                     const OnnxImportOptions& options = {});

// True when `path` names an ONNX file (ends in ".onnx", any case).
bool IsOnnxPath(const std::string& path);

}  // namespace weft

#endif  // WEFT_ONNX_IMPORT_H_
