// Import-time fusion of the decompositions exporters write for operators
// Weft runs as one kernel (onnx_import.h's ImportOnnx runs it after the
// checker and ONNX's shape inference, before the converters):
//   ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div [Mul gamma] [Add beta]
//     -> LayerNorm over the last axis (PyTorch's export below opset 17),
//   Div(x, sqrt 2) or Mul(x, 1/sqrt 2) / Erf / Add 1 / Mul x / Mul 0.5
//     -> the erf GELU (LeakyReLU act_type gelu),
//   MatMul(x, W) + b, W a 2-D and b a 1-D initializer
//     -> FullyConnected(flatten=False) with its bias.
// A group fuses only when none of its intermediate values is read elsewhere
// or is a graph output. Fused nodes carry the domain kFusedDomain and are
// converted by AddFusedConverters' map alone: a model cannot name them.
#ifndef WEFT_ONNX_IMPORT_FUSE_H_
#define WEFT_ONNX_IMPORT_FUSE_H_

#include <onnx/onnx_pb.h>

#include <map>
#include <string>

#include "import_context.h"

namespace weft {
namespace onnx_import {

inline constexpr const char* kFusedDomain = "ai.weft.import_fused";

// Rewrites `g` in place; `consts` holds the initializers (Constant nodes'
// values are read from `g`). Returns the number of groups fused.
int FuseDecompositions(onnx::GraphProto* g, const std::map<std::string, ConstTensor>& consts,
                       const std::string& model_dir, const std::string& what);

// Converters of the fused nodes, by op type.
void AddFusedConverters(ConverterMap* m);

}  // namespace onnx_import
}  // namespace weft

#endif  // WEFT_ONNX_IMPORT_FUSE_H_
