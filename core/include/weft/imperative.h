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

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/engine.h"
#include "weft/ndarray.h"
#include "weft/op.h"

namespace weft {

class Runtime;

struct InvokeOptions {
  bool is_train = false;
  // Per-output requests (default kWrite); kNull skips an output.
  std::vector<OpReq> reqs;
};

// Runs `op_name` of `rt` (not null; its kernels, outputs from its pools) on
// `inputs`. `*outputs` may be empty (all allocated) or
// hold one NDArray per output, where none entries are allocated and given
// arrays are written with their request (shape and dtype must match). A
// given output whose bytes overlap an input's (the op written into its own
// input) is computed into a temporary and copied into the output after,
// unless OpDef::inplace lists that (input, output) pair and both are the
// same bytes. An input with a zero extent (no elements) takes its output
// shapes from OpDef::infer_empty_shape (kNotImplemented naming the op where
// it has none and is not pointwise); a call none of whose outputs has
// elements runs no kernel.
void Invoke(Runtime* rt, const std::string& op_name, const std::vector<NDArray>& inputs,
            const StringMap& params, std::vector<NDArray>* outputs, const InvokeOptions& opts = {});

// One kernel call with its arrays bound, built once by PrepareKernel and run
// any number of times: the kernel, its parameters, the blobs of its inputs
// and outputs, and the engine variables it reads and writes (the inputs';
// every output, kNull ones too; the inputs named by attrs.op->mutate_inputs;
// the RNG state's variable of `ctx` when attrs.op->uses_rng). An input
// sharing storage with a written array is written, not read. A kAdd request
// on a kernel without supports_add runs the kernel into a temporary
// (allocated once, here) and adds it with elemwise_add. The call holds the
// arrays, so their storage outlives it. Immutable after PrepareKernel: one
// call may run on any thread, but runs that share outputs must be ordered by
// the engine (as PushKernel and the executor's segments do).
// Content versions for a call (the executor's constant steps). A counter
// stands in for an input's engine variable version in OpContext::
// input_versions: the executor's constant entries are written by an engine
// operation on every Forward, so their variables' versions grow even when a
// skipped call left the content unchanged; a counter grows only when the
// content is computed again.
struct CallVersions {
  // Per input (may be shorter): a counter, or null for the engine version.
  std::vector<std::shared_ptr<std::atomic<uint64_t>>> inputs;
  // Run skips the kernel when every input's version and is_train equal
  // those of its last successful run; otherwise it runs the kernel and
  // increments each of `outputs` (one per output, may be null).
  bool skip_unchanged = false;
  std::vector<std::shared_ptr<std::atomic<uint64_t>>> outputs;
};

class KernelCall {
 public:
  // Runs the kernel (and any kAdd accumulation) on the calling thread.
  void Run(const RunContext& rc, bool is_train) const;
  const std::vector<VarHandle>& reads() const { return reads_; }
  const std::vector<VarHandle>& writes() const { return writes_; }
  const std::string& name() const { return name_; }
  Context ctx() const { return octx_.ctx; }
  const NodeAttrs& attrs() const { return attrs_; }
  // For an executor that lends its kernels a caller's buffer in place of a
  // bound array (Executor::BorrowArgument; no run in flight): true when an
  // output blob overlaps [from, from + bytes) (the memory must not be lent),
  // and re-pointing every input blob overlapping that range (one array's
  // memory, so a blob in it lies within it) to the same offset in `to`.
  bool WritesWithin(const char* from, size_t bytes) const;
  void RepointInputs(const char* from, size_t bytes, char* to) const;

 private:
  friend std::shared_ptr<const KernelCall> PrepareKernel(Runtime*, const Kernel&, const NodeAttrs&,
                                                         Context, const std::vector<NDArray>&,
                                                         const std::vector<NDArray>&,
                                                         const std::vector<OpReq>&,
                                                         const std::string&, const CallVersions*);
  KernelFn fn_;
  NodeAttrs attrs_;
  OpContext octx_;
  mutable std::vector<TBlob> in_;  // re-pointed by RepointInputs
  std::vector<TBlob> out_;
  std::vector<OpReq> reqs_;
  std::vector<std::pair<TBlob, TBlob>> add_later_;  // (temporary, output)
  KernelFn add_fn_;
  NodeAttrs add_attrs_;
  std::vector<NDArray> keep_;
  std::vector<VarHandle> reads_, writes_;
  std::string name_;
  std::vector<VarHandle> in_vars_;               // per input, for OpContext::input_versions
  mutable std::shared_ptr<void> state_;          // OpContext::state; runs are ordered by the engine
  mutable std::vector<uint64_t> versions_;       // scratch for input_versions
  CallVersions counters_;                        // see CallVersions
  mutable std::vector<uint64_t> last_versions_;  // of the last run (skip_unchanged)
  mutable bool ran_ = false, last_is_train_ = false;
  mutable std::string shapes_;  // the inputs' shapes, for the profiler (filled on first use)
};

// Binds `kernel` to these arrays (see KernelCall). `name` names the call in
// engine errors (attrs.op->name when empty). Outputs must be allocated on
// `ctx`. Throws Error when elemwise_add is needed but missing for `ctx`.
// `versions` (optional) gives content version counters (CallVersions).
// `rt` (not null) runs the elemwise_add of a kAdd fallback and its temporary.
std::shared_ptr<const KernelCall> PrepareKernel(Runtime* rt, const Kernel& kernel,
                                                const NodeAttrs& attrs, Context ctx,
                                                const std::vector<NDArray>& inputs,
                                                const std::vector<NDArray>& outputs,
                                                const std::vector<OpReq>& reqs,
                                                const std::string& name = "",
                                                const CallVersions* versions = nullptr);

// PrepareKernel, then one engine operation on the global engine running it
// with `is_train`: the entry point for core code that runs one kernel on
// NDArrays. A kernel failure is stored on the outputs (engine.h).
void PushKernel(Runtime* rt, const Kernel& kernel, const NodeAttrs& attrs, Context ctx,
                const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                const std::vector<OpReq>& reqs, bool is_train, const std::string& name = "");

// Convenience form returning the outputs.
std::vector<NDArray> Invoke(Runtime* rt, const std::string& op_name,
                            const std::vector<NDArray>& inputs, const StringMap& params = {});

}  // namespace weft

#endif  // WEFT_IMPERATIVE_H_
