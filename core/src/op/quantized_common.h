// Shared pieces of the quantization operators (quantize_ops.cc,
// quantized_nn.cc, quantized_elemwise.cc): MXNet's range inputs and
// outputs, calibration parameters and output-type rule, and the float op's
// inference reused on a quantized op's data inputs.
// Internal to core/src/op; not a public header.
#ifndef WEFT_CORE_SRC_OP_QUANTIZED_COMMON_H_
#define WEFT_CORE_SRC_OP_QUANTIZED_COMMON_H_

#include <string>
#include <vector>

#include "op_common.h"

namespace weft {
namespace op {

// {"output", "min_output", "max_output"}.
std::vector<std::string> RangedOutputNames();
// min_calib_range / max_calib_range: optional floats, default None.
std::vector<ParamDecl> CalibParams();
// out_type: auto / int8 / uint8 with default `def`.
ParamDecl QuantOutTypeParam(const std::string& def);
// MXNet's GetQuantizeOutputType: int8 or uint8 as out_type says; auto is
// uint8 when both calibration bounds are given and min_calib_range >= 0,
// else int8.
DType QuantOutType(const ParamValues& p);
// Whether both calibration bounds are given.
bool HasCalib(const ParamValues& p);

// Inputs [first, first + count) are scalar ranges: shape (1,), float32.
void AssignRangeInputs(const NodeAttrs& attrs, std::vector<Shape>* in, size_t first, size_t count);
void AssignRangeInputTypes(const NodeAttrs& attrs, std::vector<DType>* in, size_t first,
                           size_t count);
// Outputs 1 and 2 (min_output, max_output): shape (1,), float32.
void AssignRangeOutputs(const NodeAttrs& attrs, std::vector<Shape>* out);
void AssignRangeOutputTypes(const NodeAttrs& attrs, std::vector<DType>* out);

// Runs `base`'s shape inference (the float op, whose parameters the node
// shares) on the first `num_in` inputs and output 0, as if the node were of
// that op, writing back what it inferred. Returns whether those are known.
bool BaseOpShape(const OpDef& base, const NodeAttrs& attrs, std::vector<Shape>* in, size_t num_in,
                 std::vector<Shape>* out);

// Checks input `i` is int8 or uint8 (when known), naming `what`.
void CheckQuantizedInput(const NodeAttrs& attrs, const std::vector<DType>& in, size_t i,
                         const std::string& what);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_QUANTIZED_COMMON_H_
