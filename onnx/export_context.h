// The state of one ONNX export (onnx/export_*.cc only): the GraphProto
// being built, unique names, constants, the parameters' host values, and the
// view of one Weft node a converter turns into ONNX nodes. Converters are
// plain functions in one table per operator family (export_ops_*.cc),
// listed by FindConverter (export_converters.cc). A converter that cannot
// express a node throws Unsupported; the graph walk (export_graph.cc)
// collects every such node and fails with the whole list. Not thread-safe:
// one Context per export.
#ifndef WEFT_ONNX_EXPORT_CONTEXT_H_
#define WEFT_ONNX_EXPORT_CONTEXT_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "weft/dtype.h"
#include "weft/ndarray.h"
#include "weft/node.h"
#include "weft/op.h"
#include "weft/onnx_export.h"
#include "weft/shape.h"

namespace weft {
namespace onnx_export {

// Thrown by a converter for a node it cannot express; `reason` names the
// parameter and value ("pool_type 'lp'").
struct Unsupported {
  std::string reason;
};
[[noreturn]] void ThrowUnsupported(const std::string& reason);

// ONNX's element type of `t`; Unsupported for a type ONNX lacks.
int OnnxElemType(DType t);

// One Weft node as a converter sees it.
struct ExportNode {
  const Node* node = nullptr;
  std::vector<std::string> inputs;  // ONNX value names, one per Weft input
  std::vector<Shape> in_shapes;
  std::vector<DType> in_types;
  std::vector<std::string> outputs;  // ONNX value names to produce
  std::vector<Shape> out_shapes;
  std::vector<DType> out_types;
  std::vector<bool> out_used;  // whether a node or the graph's outputs read it

  const std::string& name() const { return node->attrs.name; }
  const std::string& op() const { return node->attrs.op->name; }
  const ParamValues& params() const { return node->attrs.params; }
};

// For converters of output 0 only: Unsupported when a node or the graph
// reads another output.
void OnlyFirstOutput(const ExportNode& n);

class Context {
 public:
  Context(onnx::GraphProto* graph, const OnnxExportOptions& opts) : graph_(graph), opts_(opts) {}

  int opset() const { return opts_.opset; }
  const OnnxExportOptions& options() const { return opts_; }

  // A name no value or node of the model has yet, from `base`.
  std::string Fresh(const std::string& base);
  // Reserves `name` (a graph input or a Weft output name).
  void Reserve(const std::string& name) { used_.insert(name); }

  // Appends a node; its name is a fresh one from `name`.
  onnx::NodeProto* Add(const std::string& op_type, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs, const std::string& name);
  // Add with one fresh output named from `name`; returns that output.
  std::string Add1(const std::string& op_type, const std::vector<std::string>& inputs,
                   const std::string& name);

  // Constants as initializers with fresh names from `name`.
  std::string ConstInts(const std::string& name, const std::vector<int64_t>& values,
                        bool scalar = false);
  std::string ConstFloats(const std::string& name, const std::vector<float>& values,
                          const std::vector<int64_t>& dims);
  // A scalar constant of element type `t` (float types, int32, int64).
  std::string ConstScalar(const std::string& name, double value, DType t);
  // An initializer from an array's host copy, named exactly `name`.
  void AddArray(const std::string& name, const NDArray& array);

  // A constant computed at export: an initializer `name` that Param finds.
  void AddConstant(const std::string& name, const NDArray& array) {
    params_[name] = array;
    AddArray(name, array);
  }
  // The parameter (or constant) an input reads, or null when it is neither.
  const NDArray* Param(const std::string& onnx_name) const;
  void SetParams(std::map<std::string, NDArray> params) { params_ = std::move(params); }

  // The report's notes.
  void Note(const ExportNode& n, const std::string& text);
  std::vector<OnnxExportIssue>& notes() { return notes_; }

  onnx::GraphProto* graph() { return graph_; }

 private:
  onnx::GraphProto* graph_;
  const OnnxExportOptions& opts_;
  std::set<std::string> used_;
  std::map<std::string, NDArray> params_;
  std::vector<OnnxExportIssue> notes_;
};

// Attribute setters on a NodeProto.
void SetInt(onnx::NodeProto* n, const std::string& key, int64_t v);
void SetFloat(onnx::NodeProto* n, const std::string& key, float v);
void SetString(onnx::NodeProto* n, const std::string& key, const std::string& v);
void SetInts(onnx::NodeProto* n, const std::string& key, const std::vector<int64_t>& v);
void SetFloats(onnx::NodeProto* n, const std::string& key, const std::vector<float>& v);

// A shape parameter's extents as int64s.
std::vector<int64_t> Dims(const Shape& s);
// Host float32 values of `a` (any float or integer dtype converted).
std::vector<float> HostFloats(const NDArray& a);

// The per-opset forms shared by converters.
// Unsqueeze/Squeeze `x` on `axes` (attribute before opset 13, input from
// 13) into `out` (fresh when empty); returns the output.
std::string Unsqueeze(Context& cx, const std::string& x, const std::vector<int64_t>& axes,
                      const std::string& name, const std::string& out = "");
std::string Squeeze(Context& cx, const std::string& x, const std::vector<int64_t>& axes,
                    const std::string& name, const std::string& out = "");
// `x` sliced to [begin, end) on `axis`.
std::string SliceRange(Context& cx, const std::string& x, int64_t begin, int64_t end, int64_t axis,
                       const std::string& name);
// `x` cast to ONNX element type `to`.
std::string CastTo(Context& cx, const std::string& x, int to, const std::string& name);
// Reshape `x` to the constant `shape` into `out` (fresh when empty).
std::string ReshapeTo(Context& cx, const std::string& x, const std::vector<int64_t>& shape,
                      const std::string& name, const std::string& out = "");
// Split along `axis` into `outs` of `sizes` (attribute before 13, input from 13).
void SplitInto(Context& cx, const std::string& x, int64_t axis, const std::vector<int64_t>& sizes,
               const std::vector<std::string>& outs, const std::string& name);
// A reduction (ReduceSum/ReduceMean/ReduceMax/...) with the opset's axes form
// (ReduceSum takes axes as an input from 13, the others from 18).
onnx::NodeProto* Reduce(Context& cx, const std::string& op_type, const std::string& x,
                        const std::vector<int64_t>& axes, bool keepdims, const std::string& out,
                        const std::string& name);

// A converter turns one Weft node into ONNX nodes writing n.outputs.
using Converter = void (*)(Context& cx, const ExportNode& n);
using ConverterTable = std::map<std::string, Converter>;

// The families' tables (export_ops_*.cc) and the merged lookup.
void AddNNConverters(ConverterTable* t);
void AddTensorConverters(ConverterTable* t);
void AddElemwiseConverters(ConverterTable* t);
void AddIndexConverters(ConverterTable* t);
void AddAttentionConverters(ConverterTable* t);
void AddRnnConverters(ConverterTable* t);
void AddVisionConverters(ConverterTable* t);
void AddBoxNmsConverters(ConverterTable* t);
void AddMultiBoxConverters(ConverterTable* t);
// The converter of `op` (by its name or an alias), or null.
Converter FindConverter(const OpDef& op);
// Every operator with a converter (canonical names).
std::vector<std::string> ExportableOps();

}  // namespace onnx_export
}  // namespace weft

#endif  // WEFT_ONNX_EXPORT_CONTEXT_H_
