// Quantized joins and elementwise arithmetic with MXNet 1.9.1's names,
// inputs and outputs (weft/quantization.h; kernels/cpu/quantized_misc.cc
// computes):
//
// _contrib_quantized_concat(arg0..argN-1, arg0_min, arg0_max, ...;
//   num_args, dim) -> (output, min_output, max_output): int8 when any input
//   is int8, else uint8; range (min(0, mins), max(0, maxes)); each input
//   rescaled into the output's levels (rounded, saturated).
// _contrib_quantized_elemwise_add(lhs, rhs, lhs_min, lhs_max, rhs_min,
//   rhs_max; min_calib_range, max_calib_range): calibrated, the inputs'
//   dtype when they agree, else int8, in the calibrated range; otherwise
//   int32 in the range +-(MaxAbs(lhs) + MaxAbs(rhs)).
// _contrib_quantized_elemwise_mul(lhs, rhs int8, ranges; min_calib_range,
//   max_calib_range, enable_float_output): float32 (one output) with
//   enable_float_output; int8 in the calibrated range; else int32 with the
//   product range (the level product truncated toward zero, as MXNet).
#include "elemwise_common.h"
#include "quantized_common.h"

namespace weft {
namespace op {

namespace {

std::vector<std::string> BinaryNames() {
  return {"lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"};
}

bool BinaryShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  AssignShape(attrs, in, 1, (*in)[0], "input 'rhs'");
  AssignShape(attrs, in, 0, (*in)[1], "input 'lhs'");
  AssignShape(attrs, out, 0, (*in)[0], "output 'output'");
  AssignShape(attrs, in, 0, (*out)[0], "input 'lhs'");
  AssignShape(attrs, in, 1, (*out)[0], "input 'rhs'");
  AssignRangeInputs(attrs, in, 2, 4);
  if (out->size() == 3) AssignRangeOutputs(attrs, out);
  return AllKnown(*in) && AllKnown(*out);
}

bool AddType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  CheckQuantizedInput(attrs, *in, 0, "lhs");
  CheckQuantizedInput(attrs, *in, 1, "rhs");
  AssignRangeInputTypes(attrs, in, 2, 4);
  DType t = DType::kInt32;
  if (HasCalib(attrs.params)) {
    if ((*in)[0] == DType::kUnknown || (*in)[1] == DType::kUnknown) return false;
    t = (*in)[0] == (*in)[1] ? (*in)[0] : DType::kInt8;
  }
  AssignType(attrs, out, 0, t, "output 'output'");
  AssignRangeOutputTypes(attrs, out);
  return AllKnown(*in) && AllKnown(*out);
}

bool MulType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(attrs, in, 0, DType::kInt8, "input 'lhs'");
  AssignType(attrs, in, 1, DType::kInt8, "input 'rhs'");
  AssignRangeInputTypes(attrs, in, 2, 4);
  if (attrs.params.GetBool("enable_float_output")) {
    AssignType(attrs, out, 0, DType::kFloat32, "output 'output'");
  } else {
    AssignType(attrs, out, 0, HasCalib(attrs.params) ? DType::kInt8 : DType::kInt32,
               "output 'output'");
    AssignRangeOutputTypes(attrs, out);
  }
  return AllKnown(*in) && AllKnown(*out);
}

int64_t NumArgs(const ParamValues& p) { return p.GetInt("num_args"); }

OpDef ConcatDef(const OpDef& base) {
  OpDef d;
  d.name = "_contrib_quantized_concat";
  d.doc =
      "Concat of int8/uint8 arrays with their ranges: each input rescaled into the joint range "
      "(int8 when any input is int8, else uint8).";
  d.params = base.params;
  d.num_inputs_fn = [](const ParamValues& p) { return static_cast<int>(3 * NumArgs(p)); };
  d.num_outputs = 3;
  d.input_names = [](const ParamValues& p) {
    std::vector<std::string> names;
    for (int64_t i = 0; i < NumArgs(p); ++i) names.push_back("arg" + std::to_string(i));
    for (int64_t i = 0; i < NumArgs(p); ++i) {
      names.push_back("arg" + std::to_string(i) + "_min");
      names.push_back("arg" + std::to_string(i) + "_max");
    }
    return names;
  };
  d.output_names = FixedNames(RangedOutputNames());
  d.infer_shape = [&base](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
    const size_t n = static_cast<size_t>(NumArgs(attrs.params));
    const bool known = BaseOpShape(base, attrs, in, n, out);
    AssignRangeInputs(attrs, in, n, 2 * n);
    AssignRangeOutputs(attrs, out);
    return known && AllKnown(*in) && AllKnown(*out);
  };
  d.infer_type = [](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
    const size_t n = static_cast<size_t>(NumArgs(attrs.params));
    DType t = DType::kUint8;
    for (size_t i = 0; i < n; ++i) {
      CheckQuantizedInput(attrs, *in, i, "arg" + std::to_string(i));
      if ((*in)[i] == DType::kUnknown) return false;
      if ((*in)[i] == DType::kInt8) t = DType::kInt8;
    }
    AssignRangeInputTypes(attrs, in, n, 2 * n);
    AssignType(attrs, out, 0, t, "output 'output'");
    AssignRangeOutputTypes(attrs, out);
    return AllKnown(*in) && AllKnown(*out);
  };
  return d;
}

OpDef AddDef() {
  OpDef d;
  d.name = "_contrib_quantized_elemwise_add";
  d.doc =
      "Sum of two int8/uint8 arrays with their ranges: int8/uint8 in the calibrated range, or "
      "int32 in the range +-(MaxAbs(lhs) + MaxAbs(rhs)).";
  d.params = CalibParams();
  d.num_inputs = 6;
  d.num_outputs = 3;
  d.input_names = FixedNames(BinaryNames());
  d.output_names = FixedNames(RangedOutputNames());
  d.infer_shape = BinaryShape;
  d.infer_type = AddType;
  return d;
}

OpDef MulDef() {
  OpDef d;
  d.name = "_contrib_quantized_elemwise_mul";
  d.doc =
      "Product of two int8 arrays with their ranges: float32 with enable_float_output, int8 in "
      "the calibrated range, or int32 with the product's range.";
  d.params = CalibParams();
  d.params.push_back(BoolParam("enable_float_output", "False", "Output float32 (one output)."));
  d.num_inputs = 6;
  d.num_outputs_fn = [](const ParamValues& p) { return p.GetBool("enable_float_output") ? 1 : 3; };
  d.input_names = FixedNames(BinaryNames());
  d.output_names = [](const ParamValues& p) {
    if (p.GetBool("enable_float_output")) return std::vector<std::string>{"output"};
    return RangedOutputNames();
  };
  d.infer_shape = BinaryShape;
  d.infer_type = MulType;
  return d;
}

}  // namespace

void RegisterQuantizedElemwise(OpRegistry* reg) {
  reg->Add(ConcatDef(reg->Get("Concat")));
  reg->Add(AddDef());
  reg->Add(MulDef());
}

}  // namespace op
}  // namespace weft
