// Helpers shared by the vision operators (box_*, MultiBox*, ROI ops) and
// their kernels: MXNet's float tuples such as sizes=(0.1, 0.2) or
// variances=(0.1, 0.1, 0.2, 0.2), which weft's ParamType has no type for,
// are declared as strings and read here; and the all-zero gradient of
// MXNet's non-differentiable detection ops. Internal to core/src/op and
// kernels/cpu.
#ifndef WEFT_CORE_SRC_OP_VISION_PARAMS_H_
#define WEFT_CORE_SRC_OP_VISION_PARAMS_H_

#include <string>
#include <vector>

#include "weft/float_tuple.h"
#include "weft/op.h"

namespace weft {
namespace op {

// A float-tuple parameter (stored as kString) with default text `def`,
// e.g. "(1.0,)"; parsed by FloatTupleValue.
ParamDecl FloatTupleParam(const std::string& name, const std::string& def, const std::string& doc);

// Gradient giving zeros_like(input) for every input (defined in vision_box.cc).
GradientFn VisionZeroGradient();

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_VISION_PARAMS_H_
