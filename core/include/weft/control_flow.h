// Control-flow operators: MXNet's _foreach, _while_loop and _cond, whose
// nodes carry nested graphs (NodeAttrs::subgraphs) that their kernels run
// as often as the loop or the branch says (core/src/op/control_flow_ops.cc
// defines them; docs/architecture.md, "Control-flow operators").
//
// The kernels run on the CPU, on the engine worker running the node: each
// runs its nested graphs node by node with the kernels of the registry it
// was added to, synchronously, on buffers it keeps in the bound call's
// state (an engine operation may not wait on the engine, so a nested graph
// cannot be an executor of its own). They are added by the kernels layer
// (kernels/cpu/control_flow.cc) for a runtime nothing has used yet, like
// _fused_elemwise, since they need the op registry too.
#ifndef WEFT_CONTROL_FLOW_H_
#define WEFT_CONTROL_FLOW_H_

#include <string>

#include "weft/op.h"

namespace weft {

// Whether `op` (null: a variable) is one of the three: its node's nested
// graphs run inside its kernel, so pass::ExpandSubgraphs keeps the node
// and the JSON loader never takes num_args from a nested graph.
bool IsControlFlowOp(const OpDef* op);

// The CPU kernel of control-flow operator `op` ("_foreach", "_while_loop",
// "_cond"; anything else is a bug). `ops` and `kernels` must outlive the
// kernel (the runtime owning both does); nested graphs run with `kernels`'
// CPU kernels.
KernelFn ControlFlowKernel(const std::string& op, const OpRegistry& ops,
                           const KernelRegistry& kernels);

}  // namespace weft

#endif  // WEFT_CONTROL_FLOW_H_
