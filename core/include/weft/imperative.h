// Imperative execution: run one operator by name on NDArrays.
//
// `Invoke` parses the string parameters, infers output shapes and dtypes
// (inputs may not be unknown), allocates missing outputs on the inputs'
// context (or the "ctx" parameter of source ops), and runs the kernel for
// that device with the given write requests. Argument, shape, dtype and
// device errors are thrown by Invoke as weft::Error naming the op; the
// kernel itself is pushed to the dependency engine (PushKernel), so Invoke
// returns before it runs and a kernel failure surfaces at the next wait or
// synchronous copy of an output. Calls on distinct outputs are thread-safe.
#ifndef WEFT_IMPERATIVE_H_
#define WEFT_IMPERATIVE_H_

#include <string>
#include <vector>

#include "weft/ndarray.h"
#include "weft/op.h"

namespace weft {

class Runtime;

struct InvokeOptions {
  bool is_train = false;
  // Per-output requests (default kWrite); kNull skips an output.
  std::vector<OpReq> reqs;
};

// Runs `op_name` on `inputs`. `*outputs` may be empty (all allocated) or
// hold one NDArray per output, where none entries are allocated and given
// arrays are written with their request (shape and dtype must match).
void Invoke(Runtime* rt, const std::string& op_name, const std::vector<NDArray>& inputs,
            const StringMap& params, std::vector<NDArray>* outputs,
            const InvokeOptions& opts = {});

// Pushes `kernel` to the global engine as one operation named `name`
// (attrs.op->name when empty) that reads the inputs' variables and writes
// the outputs' (every output, kNull ones too), the inputs named by
// attrs.op->mutate_inputs, and the RNG state's variable of `ctx` when
// attrs.op->uses_rng. Outputs must be allocated on `ctx`; an input sharing
// storage with a written array is written, not read. A kAdd request on a
// kernel without supports_add runs the kernel into a temporary and adds it
// with elemwise_add inside the same operation. The operation keeps the
// arrays' storage alive until it has run; a kernel failure is stored on the
// outputs (engine.h). This is the entry point for other core code (the
// executor) to run a node's kernel on NDArrays. Throws Error when elemwise_add
// is needed but missing for `ctx`.
void PushKernel(Runtime* rt, const Kernel& kernel, const NodeAttrs& attrs, Context ctx,
                const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                const std::vector<OpReq>& reqs, bool is_train, const std::string& name = "");

// Convenience form on the global runtime returning the outputs.
std::vector<NDArray> Invoke(const std::string& op_name, const std::vector<NDArray>& inputs,
                            const StringMap& params = {});

}  // namespace weft

#endif  // WEFT_IMPERATIVE_H_
