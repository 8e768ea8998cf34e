// The predictor's way with a model holding an operator of data-dependent
// output shape (weft/dynamic_shape.h: ONNX's NonMaxSuppression), which no
// executor can plan. Such a model runs as a CachedOp runs it: node by node
// through Invoke, each dynamic operator on an upper-bound output of which
// the rows it wrote are handed on. One CachedOp serves every call (its
// node-by-node calls share no state); the pool's slots (executor_pool.h)
// hold no executor, only the arrays a run takes: the slot's own input
// arrays among the frozen weights. Each call allocates its activations
// from the storage pool as it runs. Thread-safe after construction.
// Internal to core/src/predictor.
#ifndef WEFT_CORE_SRC_PREDICTOR_DYNAMIC_MODEL_H_
#define WEFT_CORE_SRC_PREDICTOR_DYNAMIC_MODEL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "predictor/predictor_freeze.h"
#include "weft/cached_op.h"
#include "weft/device.h"
#include "weft/ndarray.h"

namespace weft {

class Runtime;

class DynamicModel {
 public:
  // Null unless `model.symbol` holds an operator of data-dependent output
  // shape. Throws Error(kNotImplemented) naming a node without a kernel on
  // `ctx`'s device (a run would fail there). `rt` must outlive the result.
  static std::unique_ptr<DynamicModel> For(Runtime* rt, const FrozenModel& model, Context ctx);

  // "node 'nms0' (_onnx_NonMaxSuppression)": the first dynamic node, for messages.
  const std::string& node() const { return node_; }
  // The arrays a run takes, in the CachedOp's input order: `args` (weights,
  // the slot's inputs and labels, by name) and `aux`.
  std::vector<NDArray> RunInputs(const std::map<std::string, NDArray>& args,
                                 const std::map<std::string, NDArray>& aux) const;
  // Runs the model on `run_inputs` (RunInputs) for inference on the
  // calling thread (neither recorded by autograd nor in training mode,
  // whatever the thread's flags) and returns its outputs, each with the
  // rows this call has. Throws the kernels' errors naming the operator.
  std::vector<NDArray> Run(const std::vector<NDArray>& run_inputs) const;

 private:
  DynamicModel(std::unique_ptr<CachedOp> op, std::string node)
      : op_(std::move(op)), node_(std::move(node)) {}
  std::unique_ptr<CachedOp> op_;
  std::string node_;
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_DYNAMIC_MODEL_H_
