// NestedGraphRunner: runs a control-flow node's nested graph on the CPU,
// synchronously, on the thread that calls it (the engine worker running the
// node's kernel), calling each node's kernel in topological order on
// buffers the runner owns. It cannot go through an executor or CachedOp:
// those push to the engine and wait, and an engine operation may not wait
// (engine.h). Internal to core/src/op (control_flow_run.cc).
//
// The plan (shapes, dtypes, kernels, buffers) is made on the first run and
// again whenever the inputs' shapes or dtypes change; each node keeps its
// kernel state between runs, and sees every input's version advance on
// each run, so no kernel reuses data derived from an earlier run's inputs.
// Not thread-safe: one runner serves one bound call, whose runs the engine
// orders.
#ifndef WEFT_CORE_SRC_OP_NESTED_GRAPH_RUNNER_H_
#define WEFT_CORE_SRC_OP_NESTED_GRAPH_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "weft/graph.h"
#include "weft/op.h"

namespace weft {
namespace op {

class NestedGraphRunner {
 public:
  // `graph` is expanded (pass::ExpandSubgraphs) with `ops`; kernels come
  // from `kernels`, which must outlive the runner. `label` prefixes errors
  // ("node 'loop' (_foreach) subgraph 0").
  NestedGraphRunner(const OpRegistry& ops, const KernelRegistry& kernels, const Graph& graph,
                    std::string label);
  ~NestedGraphRunner();

  // Runs on `in` (one host array per variable, IndexedGraph order) and
  // returns the heads: views of the runner's buffers (or of `in`), valid
  // until the next run. Throws Error naming the node for a shape the graph
  // refuses, an op without a CPU kernel (kNotImplemented), a random op
  // (kNotImplemented: nested graphs draw no random numbers) or a kernel's
  // failure.
  const std::vector<TBlob>& Run(const OpContext& ctx, const std::vector<TBlob>& in);
  // Runs and copies the heads into `out`, whose shapes and dtypes must be
  // the heads' (Error(kShape) / Error(kDType) naming the head otherwise).
  void RunInto(const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<TBlob>& out);

 private:
  struct Plan;
  void MakePlan(const std::vector<TBlob>& in);

  const KernelRegistry& kernels_;
  std::string label_;
  std::unique_ptr<IndexedGraph> g_;
  std::unique_ptr<Plan> plan_;
  std::vector<TBlob> heads_;
  uint64_t runs_ = 0;
};

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_NESTED_GRAPH_RUNNER_H_
