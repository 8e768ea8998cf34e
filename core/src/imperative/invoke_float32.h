// Invoke's float32 fallback for float16/bfloat16 calls whose kernel does not
// compute the reduced float (Kernel::Computes). Internal to core/src/imperative.
#ifndef WEFT_CORE_SRC_IMPERATIVE_INVOKE_FLOAT32_H_
#define WEFT_CORE_SRC_IMPERATIVE_INVOKE_FLOAT32_H_

#include <vector>

#include "weft/imperative.h"

namespace weft {

// Whether a call of `kernel` meets a reduced float it does not compute: an
// input, a given output, or a `dtype` parameter.
bool NeedsFloat32(const Kernel& kernel, const std::vector<NDArray>& inputs,
                  const std::vector<NDArray>& outputs, const StringMap& params);

// Runs `op` on float32 Casts of the reduced-float inputs (a reduced `dtype`
// parameter becomes float32) and Casts each float32 output into the given
// output's dtype (honouring opts.reqs), else the dtype the op infers from
// the call's own dtypes, else back to the reduced float met.
void InvokeInFloat32(Runtime* rt, const OpDef& op, const Kernel& kernel,
                     const std::vector<NDArray>& inputs, const StringMap& params,
                     std::vector<NDArray>* outputs, const InvokeOptions& opts);

}  // namespace weft

#endif  // WEFT_CORE_SRC_IMPERATIVE_INVOKE_FLOAT32_H_
