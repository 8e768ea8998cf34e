// Conversions between float32 and quantized arrays, with MXNet 1.9.1's
// names and parameters and its CPU (oneDNN) semantics (weft/quantization.h
// states the representation; kernels/cpu/quantize_ops.cc computes):
//
// _contrib_quantize_v2(data; out_type=int8|uint8|auto, min_calib_range,
//   max_calib_range) -> (output, min_range, max_range), outputs listed as
//   output0..2 (MXNet names none). float32 data: the range is the
//   calibration range or the data's own min/max; int8 out: q =
//   sat(rne(x * 127.5 / r)), r = MaxAbs(min, max), range (-r, r); uint8 out:
//   q = sat(rne(x * 255.5 / r)), range (min, max). int8/uint8 data pass
//   through with the calibration range, else (0, 255.5) / (-127.5, 127.5).
// _contrib_quantize(data, min_range, max_range; out_type=uint8|int8): the
//   range from the inputs; uint8: x * 255 / r, range as given; int8:
//   x * 127 / r, range (-r, r).
// _contrib_dequantize(data, min_range, max_range; out_type=float32):
//   x = q * r / 127.5 (int8) or q * r / 255.5 (uint8).
// _contrib_requantize(data int32, min_range, max_range; out_type,
//   min/max_calib_range): int32 levels of r_in / (2^31 - 1) into int8
//   (range (-r, r), 127 levels) or uint8 (range (0, r), 255 levels), r the
//   calibration MaxAbs or, uncalibrated, MaxAbs(data) * r_in / (2^31 - 1).
// None has a gradient (MXNet's are zero; inference only).
#include "elemwise_common.h"
#include "quantized_common.h"

namespace weft {
namespace op {

namespace {

std::vector<std::string> RangeInputNames() { return {"data", "min_range", "max_range"}; }

bool SameShapeWithRanges(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output 0");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  AssignRangeInputs(attrs, in, 1, in->size() - 1);
  AssignRangeOutputs(attrs, out);
  return AllKnown(*in) && AllKnown(*out);
}

bool DataOnlyShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, out, 0, (*in)[0], "output 0");
  AssignShape(attrs, in, 0, (*out)[0], "input 'data'");
  AssignRangeInputs(attrs, in, 1, in->size() - 1);
  return AllKnown(*in) && AllKnown(*out);
}

bool QuantizeV2Type(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const DType d = (*in)[0];
  if (d != DType::kUnknown && d != DType::kFloat32 && d != DType::kInt8 && d != DType::kUint8)
    Fail(StatusCode::kDType, OpLabel(attrs),
         ": input 'data' must be float32, int8 or uint8, given ", DTypeName(d));
  AssignType(attrs, out, 0, QuantOutType(attrs.params), "output 0");
  AssignRangeOutputTypes(attrs, out);
  return AllKnown(*in) && AllKnown(*out);
}

bool QuantizeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, in, 0, DType::kFloat32, "input 'data'");
  AssignRangeInputTypes(attrs, in, 1, 2);
  const bool u8 = attrs.params.GetString("out_type") == "uint8";
  AssignType(attrs, out, 0, u8 ? DType::kUint8 : DType::kInt8, "output 0");
  AssignRangeOutputTypes(attrs, out);
  return AllKnown(*in) && AllKnown(*out);
}

bool DequantizeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  CheckQuantizedInput(attrs, *in, 0, "data");
  AssignRangeInputTypes(attrs, in, 1, 2);
  AssignType(attrs, out, 0, DType::kFloat32, "output");
  return AllKnown(*in) && AllKnown(*out);
}

bool RequantizeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, in, 0, DType::kInt32, "input 'data'");
  AssignRangeInputTypes(attrs, in, 1, 2);
  AssignType(attrs, out, 0, QuantOutType(attrs.params), "output 0");
  AssignRangeOutputTypes(attrs, out);
  return AllKnown(*in) && AllKnown(*out);
}

OpDef QuantizeV2Def() {
  OpDef d;
  d.name = "_contrib_quantize_v2";
  d.doc =
      "Quantizes float32 data to int8 (zero-centred, 127.5 levels per MaxAbs of the range) or "
      "uint8 (255.5 levels), with the calibrated range or the data's min/max; outputs the data "
      "and its range (MXNet's oneDNN semantics: round to nearest even, saturate).";
  d.params = {QuantOutTypeParam("int8")};
  for (auto& c : CalibParams()) d.params.push_back(c);
  d.num_outputs = 3;
  d.input_names = FixedNames({"data"});
  d.infer_shape = SameShapeWithRanges;
  d.infer_type = QuantizeV2Type;
  return d;
}

OpDef QuantizeDef() {
  OpDef d;
  d.name = "_contrib_quantize";
  d.doc =
      "Quantizes float32 data with the range given as inputs: uint8 with 255 levels per MaxAbs "
      "(range kept) or int8 with 127 (range (-r, r)).";
  d.params = {EnumParam("out_type", "uint8", {"int8", "uint8"}, "Output dtype.")};
  d.num_inputs = 3;
  d.num_outputs = 3;
  d.input_names = FixedNames(RangeInputNames());
  d.infer_shape = SameShapeWithRanges;
  d.infer_type = QuantizeType;
  return d;
}

OpDef DequantizeDef() {
  OpDef d;
  d.name = "_contrib_dequantize";
  d.doc =
      "Dequantizes int8 or uint8 data with its range to float32: q * MaxAbs(range) / 127.5 "
      "(int8) or / 255.5 (uint8).";
  d.params = {EnumParam("out_type", "float32", {"float32"}, "Output dtype.")};
  d.num_inputs = 3;
  d.input_names = FixedNames(RangeInputNames());
  d.infer_shape = DataOnlyShape;
  d.infer_type = DequantizeType;
  return d;
}

OpDef RequantizeDef() {
  OpDef d;
  d.name = "_contrib_requantize";
  d.doc =
      "Requantizes int32 data with its range to int8 or uint8, into the calibrated range or the "
      "range the data's largest magnitude gives.";
  d.params = {QuantOutTypeParam("int8")};
  for (auto& c : CalibParams()) d.params.push_back(c);
  d.num_inputs = 3;
  d.num_outputs = 3;
  d.input_names = FixedNames(RangeInputNames());
  d.infer_shape = SameShapeWithRanges;
  d.infer_type = RequantizeType;
  return d;
}

}  // namespace

void RegisterQuantizeOps(OpRegistry* reg) {
  reg->Add(QuantizeV2Def());
  reg->Add(QuantizeDef());
  reg->Add(DequantizeDef());
  reg->Add(RequantizeDef());
}

}  // namespace op
}  // namespace weft
