// Internals of the ONNX importer (onnx_import.h): the values of the graph
// being walked (a Symbol for a runtime tensor, a host constant for an
// initializer or a folded shape computation), the converters' registry, and
// attribute helpers. One ImportContext per import; not thread-safe.
#ifndef WEFT_ONNX_IMPORT_CONTEXT_H_
#define WEFT_ONNX_IMPORT_CONTEXT_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "weft/ndarray.h"
#include "weft/op.h"
#include "weft/symbol.h"

namespace weft {
class Runtime;
namespace onnx_import {

// A host tensor: integer element types keep int64 values (`ints`), the
// others double values (`reals`); `type` is the ONNX element type.
struct ConstTensor {
  std::vector<int64_t> dims;
  int32_t type = onnx::TensorProto::FLOAT;
  std::vector<double> reals;
  std::vector<int64_t> ints;

  bool is_int() const;
  size_t size() const;  // element count
  double real(size_t k) const { return is_int() ? static_cast<double>(ints[k]) : reals[k]; }
  int64_t integer(size_t k) const;  // reals are truncated toward zero, clamped
  std::vector<int64_t> AsInts() const;
  Shape shape() const { return Shape(dims); }
};

// Element type of an ONNX type code as a Weft dtype (bool as uint8);
// throws kDType naming `what` for types Weft lacks.
DType WeftDType(int32_t onnx_type, const std::string& what);
bool IsIntType(int32_t onnx_type);

// Reads an initializer or Constant value; external data is resolved in
// `model_dir` (and must stay inside it). Errors name `what`.
ConstTensor ReadTensor(const onnx::TensorProto& t, const std::string& model_dir,
                       const std::string& what);

class ImportContext {
 public:
  ImportContext(Runtime* rt, int opset, std::string what);

  Runtime* rt;
  const OpRegistry& reg;
  const int opset;
  const std::string what;                 // the file, for errors
  const onnx::NodeProto* node = nullptr;  // the node being converted
  std::string node_name;                  // its Weft name

  bool Has(const std::string& name) const;
  bool IsConst(const std::string& name) const { return consts_.count(name) != 0; }
  // The constant `name` (Error naming the node and `role` when it is not one).
  const ConstTensor& Const(const std::string& name, const std::string& role) const;
  // The symbol of `name`; a constant becomes a float32 parameter variable.
  Symbol Sym(const std::string& name);
  // The static shape of `name` (unknown extents 0; unknown rank when
  // neither ONNX's shape inference nor Weft's over the graph so far knows it).
  Shape ShapeOf(const std::string& name) const;
  // As ShapeOf, but every extent must be known (Error naming `role`).
  Shape KnownShape(const std::string& name, const std::string& role) const;

  void SetSym(const std::string& name, const Symbol& s) { syms_[name] = s; }
  void SetConst(const std::string& name, ConstTensor t) { consts_[name] = std::move(t); }
  void SetShape(const std::string& name, const Shape& s) { shapes_[name] = s; }

  // Applies Weft operator `op` as a node named "<node_name><suffix>".
  Symbol Op(const std::string& op, const std::vector<Symbol>& args, const StringMap& params = {},
            const std::string& suffix = "");
  // A new parameter "<node_name><suffix>" holding `t` (a derived weight;
  // "<node_name><suffix>1", 2, ... when the model already has that name).
  Symbol NewParam(const std::string& suffix, ConstTensor t);
  // The first output of `s` (operators such as BatchNorm have hidden ones).
  static Symbol First(const Symbol& s) { return s.num_outputs() > 1 ? s[0] : s; }
  // Sets the node's output `i` to `s`.
  void SetOut(int i, const Symbol& s) { SetSym(node->output(i), s); }

  // Fails with kNotImplemented naming the node and `detail`.
  [[noreturn]] void Unsupported(const std::string& detail) const;
  // Fails with kInvalidArgument naming the node and `detail`.
  [[noreturn]] void Invalid(const std::string& detail) const;

  std::map<std::string, NDArray> params;  // the constants used as tensors
  // Weft node names taken so far in the whole model (nested graphs too).
  std::set<std::string>* node_names = nullptr;

 private:
  std::map<std::string, Symbol> syms_;
  std::map<std::string, ConstTensor> consts_;
  // Shapes: ONNX's inference, completed lazily by Weft's (ShapeOf).
  mutable std::map<std::string, Shape> shapes_;
  mutable std::set<std::string> weft_inferred_;
};

// Attribute helpers on the node being converted.
const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, const std::string& key);
int64_t AttrInt(const onnx::NodeProto& n, const std::string& key, int64_t def);
float AttrFloat(const onnx::NodeProto& n, const std::string& key, float def);
std::string AttrString(const onnx::NodeProto& n, const std::string& key, const std::string& def);
std::vector<int64_t> AttrInts(const onnx::NodeProto& n, const std::string& key,
                              const std::vector<int64_t>& def = {});
// Input `i` when present and non-empty.
bool HasInput(const onnx::NodeProto& n, int i);

// An axes list given as the attribute `key` (older opsets) or as the
// constant input `index` (newer ones; absent: empty).
std::vector<int64_t> AxesArg(ImportContext& c, const std::string& key, int index);

// "(1,2,3)" for a Weft tuple parameter.
std::string Tuple(const std::vector<int64_t>& v);
// Normalises a possibly negative axis against `rank` (Error when out of range).
int64_t NormAxis(const ImportContext& c, int64_t axis, int64_t rank);

// A converter turns the current node (c.node) into Weft nodes, setting its
// outputs with SetSym / SetConst.
using Converter = void (*)(ImportContext& c);
using ConverterMap = std::map<std::string, Converter>;
void AddNNConverters(ConverterMap* m);
void AddMathConverters(ConverterMap* m);
void AddShapeConverters(ConverterMap* m);
void AddRnnConverters(ConverterMap* m);
void AddVisionConverters(ConverterMap* m);
void AddControlFlowConverters(ConverterMap* m);

// Converts the nodes of `g` in order into `c` (folding what FoldNode can,
// the rest by their converters), as the import does for the model's graph;
// the control-flow converters call it for their nested graphs.
void ConvertNodes(ImportContext& c, const onnx::GraphProto& g);
// The static shape an ONNX type gives (unknown extents 0; unknown rank when
// the type has no shape).
Shape ShapeOfType(const onnx::TypeProto& t);

// Evaluates the current node at import when every input is a constant (or,
// for Shape/Size, when the input's shape is static); returns false when
// it cannot (the converter then runs).
bool FoldNode(ImportContext& c);
// Op types FoldNode can evaluate (only these may have no converter).
const std::set<std::string>& FoldableOps();

}  // namespace onnx_import
}  // namespace weft

#endif  // WEFT_ONNX_IMPORT_CONTEXT_H_
