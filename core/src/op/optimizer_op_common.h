// Shared pieces of the optimizer update operator definitions
// (optimizer_ops.cc, optimizer_ops_sgd.cc, optimizer_ops_adaptive.cc,
// optimizer_ops_adamw_lamb.cc): parameter declarations, dtype rules and the
// OpDef skeleton of an update that writes the weight in place and mutates
// its state inputs.
#ifndef WEFT_CORE_SRC_OP_OPTIMIZER_OP_COMMON_H_
#define WEFT_CORE_SRC_OP_OPTIMIZER_OP_COMMON_H_

#include <string>
#include <vector>

#include "op_common.h"

namespace weft {
namespace op {

// Restricts a float parameter to the finite floats (which also rejects NaN).
ParamDecl Finite(ParamDecl d);
// lr (required), wd, rescale_grad, clip_gradient (negative: no clipping).
std::vector<ParamDecl> LrWdRescaleClip();
// LrWdRescaleClip() plus lazy_update (accepted and ignored: dense only), the
// parameters of MXNet's SGDParam/AdamParam.
std::vector<ParamDecl> CommonUpdateParams();

// momentum (default 0), any float >= 0: MXNet's parameter has no upper
// bound, and LARS's momentum correction (momentum * lr_t / lr_{t-1}) passes
// more than 1 while a schedule raises the learning rate.
ParamDecl MomentumParam();

// Every input and the output share one dtype, float32 or float64.
bool UpdateType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out);
// Multi-precision updates (MXNet's MP_InferType<2, 1, n>): weight, grad and
// the output share one dtype (float16, float32 or float64); every other
// input (master weight, states) is float32.
bool MPUpdateType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out);

// An update op: `inputs` named in order, every input and the output of one
// shape, the output may share the weight's memory (inplace (0, 0)), inputs
// `mutated` are written (states). Type rule UpdateType; not differentiable.
OpDef UpdateOp(const std::string& name, const std::string& doc, std::vector<std::string> inputs,
               std::vector<int> mutated, std::vector<ParamDecl> params);

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_OPTIMIZER_OP_COMMON_H_
