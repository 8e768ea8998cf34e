// Predictor::Impl: the predictor's state, shared by predictor.cc (create,
// bind, Predict) and predictor_batch.cc (dynamic batches). Internal to
// core/src/predictor.
#ifndef WEFT_CORE_SRC_PREDICTOR_PREDICTOR_IMPL_H_
#define WEFT_CORE_SRC_PREDICTOR_PREDICTOR_IMPL_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "predictor/batcher.h"
#include "predictor/dynamic_model.h"
#include "predictor/executor_pool.h"
#include "predictor/predictor_freeze.h"
#include "weft/pass.h"
#include "weft/predictor.h"

namespace weft {

struct Predictor::Impl {
  Runtime* rt = nullptr;
  Context ctx;
  PredictorOptions opts;
  FrozenModel model;
  std::vector<std::string> input_names, output_names;
  std::vector<Shape> first_shapes;  // the inputs' shapes given at Create
  std::vector<DType> input_dtypes, output_dtypes;
  std::vector<std::string> implicit;  // label arguments the caller does not give (zeros)
  std::vector<DType> implicit_dtypes;
  size_t weight_bytes = 0;
  std::unique_ptr<ExecutorPool> pool;
  // Set when the model holds an operator of data-dependent output shape:
  // the pool's slots then hold its runs' inputs, not executors.
  std::unique_ptr<DynamicModel> dynamic;

  // Fills input_dtypes and implicit_dtypes (and for a dynamic model
  // output_dtypes) by type inference from the weights.
  void InferDTypes();
  // Throws unless `shapes` has one known shape per input.
  void CheckShapes(const std::vector<Shape>& shapes) const;
  // The shapes shape inference starts from: the weights' and `inputs`.
  pass::ShapeMap KnownShapes(const std::vector<Shape>& inputs) const;
  // A slot for `shapes`: its executor bound to `plan`, or compiling one
  // when `plan` is null (ExecutorPool::BindFn); a node-by-node slot for a
  // dynamic model.
  std::unique_ptr<PoolSlot> Bind(const std::vector<Shape>& shapes,
                                 const std::shared_ptr<const ExecutorPlan>& plan) const;
  // Throws unless every input buffer has the size of its bound array.
  void CheckInputBytes(const std::vector<NDArray>& bound,
                       const std::vector<HostInput>& inputs) const;
  // Predict for a dynamic model: the nodes run on the slot's inputs, the
  // outputs are checked against their buffers once their rows are known.
  void PredictNodes(const std::vector<Shape>& shapes, const std::vector<HostInput>& inputs,
                    const std::vector<HostOutput>& outputs);
  // The end of an output buffer error for a dynamic model's output given
  // without HostOutput::shape.
  std::string ShapeNote(const HostOutput& out) const;

  // Dynamic batching (null when off).
  std::unique_ptr<Batcher> batcher;
  std::atomic<size_t> batches{0}, batched_calls{0};
  std::atomic<size_t> inputs_lent{0}, inputs_copied{0};
  // Throws unless every output has the batch as its first axis.
  void CheckBatchAxis() const;
  // Fills `r` for a call the batcher can take (every input's first extent
  // equal and <= max_batch, byte sizes right); false to run it alone.
  bool Batchable(const std::vector<HostInput>& inputs, BatchRequest* r) const;
  void RunBatch(const std::vector<BatchRequest*>& batch, int64_t total);
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_PREDICTOR_IMPL_H_
