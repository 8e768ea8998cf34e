// Imperative execution: run one operator by name on NDArrays.
//
// `Invoke` parses the string parameters, infers output shapes and dtypes
// (inputs may not be unknown), allocates missing outputs on the inputs'
// context (or the "ctx" parameter of source ops), and runs the kernel for
// that device with the given write requests. Errors are thrown as
// weft::Error naming the op. Calls on distinct outputs are thread-safe.
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

// Convenience form on the global runtime returning the outputs.
std::vector<NDArray> Invoke(const std::string& op_name, const std::vector<NDArray>& inputs,
                            const StringMap& params = {});

}  // namespace weft

#endif  // WEFT_IMPERATIVE_H_
