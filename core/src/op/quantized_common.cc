#include "quantized_common.h"

#include "elemwise_common.h"

namespace weft {
namespace op {

std::vector<std::string> RangedOutputNames() { return {"output", "min_output", "max_output"}; }

std::vector<ParamDecl> CalibParams() {
  return {Optional(FloatParam("min_calib_range", "None",
                              "Calibrated minimum of the float data (None: from the data).")),
          Optional(FloatParam("max_calib_range", "None",
                              "Calibrated maximum of the float data (None: from the data)."))};
}

ParamDecl QuantOutTypeParam(const std::string& def) {
  return EnumParam("out_type", def, {"auto", "int8", "uint8"},
                   "Output dtype; auto: uint8 when min_calib_range >= 0, else int8.");
}

bool HasCalib(const ParamValues& p) {
  return !p.IsNone("min_calib_range") && !p.IsNone("max_calib_range");
}

DType QuantOutType(const ParamValues& p) {
  const std::string& t = p.GetString("out_type");
  if (t == "uint8") return DType::kUint8;
  if (t == "int8") return DType::kInt8;
  return HasCalib(p) && p.GetFloat("min_calib_range") >= 0 ? DType::kUint8 : DType::kInt8;
}

void AssignRangeInputs(const NodeAttrs& attrs, std::vector<Shape>* in, size_t first, size_t count) {
  const std::vector<std::string> names = attrs.op->InputNames(attrs.params);
  for (size_t i = first; i < first + count && i < in->size(); ++i)
    AssignShape(attrs, in, i, Shape({1}), "input '" + names[i] + "'");
}

void AssignRangeInputTypes(const NodeAttrs& attrs, std::vector<DType>* in, size_t first,
                           size_t count) {
  const std::vector<std::string> names = attrs.op->InputNames(attrs.params);
  for (size_t i = first; i < first + count && i < in->size(); ++i)
    AssignType(attrs, in, i, DType::kFloat32, "input '" + names[i] + "'");
}

void AssignRangeOutputs(const NodeAttrs& attrs, std::vector<Shape>* out) {
  AssignShape(attrs, out, 1, Shape({1}), "output 'min_output'");
  AssignShape(attrs, out, 2, Shape({1}), "output 'max_output'");
}

void AssignRangeOutputTypes(const NodeAttrs& attrs, std::vector<DType>* out) {
  AssignType(attrs, out, 1, DType::kFloat32, "output 'min_output'");
  AssignType(attrs, out, 2, DType::kFloat32, "output 'max_output'");
}

bool BaseOpShape(const OpDef& base, const NodeAttrs& attrs, std::vector<Shape>* in, size_t num_in,
                 std::vector<Shape>* out) {
  NodeAttrs a = attrs;
  a.op = &base;
  std::vector<Shape> bin(in->begin(), in->begin() + num_in);
  std::vector<Shape> bout(static_cast<size_t>(base.NumOutputs(attrs.params)));
  bout[0] = (*out)[0];
  base.infer_shape(a, &bin, &bout);
  for (size_t i = 0; i < num_in; ++i) (*in)[i] = bin[i];
  (*out)[0] = bout[0];
  return AllKnown(bin) && AllKnown(std::vector<Shape>{bout[0]});
}

void CheckQuantizedInput(const NodeAttrs& attrs, const std::vector<DType>& in, size_t i,
                         const std::string& what) {
  const DType t = in[i];
  if (t != DType::kUnknown && t != DType::kInt8 && t != DType::kUint8)
    Fail(StatusCode::kDType, OpLabel(attrs), ": input '", what, "' must be int8 or uint8, given ",
         DTypeName(t));
}

}  // namespace op
}  // namespace weft
