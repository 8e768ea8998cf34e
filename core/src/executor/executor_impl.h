// Executor internals shared by executor.cc (build, run) and
// executor_bind.cc (the bind entry points). Not a public header.
#ifndef WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_
#define WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/executor.h"
#include "weft/op.h"
#include "weft/pass.h"

namespace weft {

// "a, b, c": entry names for error messages (e.g. what inference left unknown).
std::string JoinNames(const std::vector<std::string>& names);

struct Executor::Impl {
  // One op node to run, with its kernel and output requests.
  struct Step {
    uint32_t nid = 0;
    std::string name;  // "<op>:<node>", the engine operation's name
    const Kernel* kernel = nullptr;  // null for a copy between device types
    std::vector<OpReq> reqs;
    Context ctx;  // the node's device
  };
  // A gradient that could not be written directly into its bound array.
  struct GradCopy {
    uint32_t entry = 0;
    size_t arg = 0;
    NDArray staging;  // on the gradient array's device, when an add crosses devices
  };

  Runtime* rt = nullptr;
  std::map<std::string, Context> group2ctx;  // ExecutorOptions::group2ctx
  Graph graph;  // forward outputs, then one gradient per differentiated argument
  std::unique_ptr<IndexedGraph> idx;
  uint32_t num_forward_nodes = 0;
  std::vector<Context> devices;  // per node of *idx
  pass::ShapeResult shapes;
  pass::TypeResult types;
  pass::MemoryPlan plan;
  std::vector<NDArray> storage;  // one block per storage id
  std::vector<NDArray> entries;  // the array of every planned entry
  std::vector<Step> forward_steps, backward_steps;
  std::vector<int64_t> head_grad_nid;  // per output: its _head_grad variable, or -1
  std::vector<GradCopy> grad_copies;
  bool has_grads = false;
  bool forward_done = false;
  bool last_is_train = false;

  // Pushes `step` to the engine (PushKernel) reading its input entries and
  // writing its output entries; returns before it runs.
  void Push(const Step& step, bool is_train) const;
};

// The training graph of `symbol` for these gradient requests (one per
// argument): the forward graph when every request is null, else Gradient
// with MXNet's head gradients (`heads`, `head_is_var`). `xs` receives the
// differentiated arguments' indices.
Graph TrainingGraph(const OpRegistry& reg, const Graph& forward, const std::vector<GradReq>& reqs,
                    std::vector<size_t>* x_args, std::vector<NodeEntry>* heads, std::vector<bool>* head_is_var);

// PlaceDevice over `train` (built from `forward` by TrainingGraph):
// default device `ctx`, `fixed` variables (argument arrays), and every head
// gradient variable fixed on its forward output's device.
pass::Placement PlaceTrainingGraph(const OpRegistry& reg, const Graph& forward, const Graph& train,
                                   const std::vector<NodeEntry>& heads, Context ctx,
                                   const std::map<std::string, Context>& group2ctx,
                                   const std::map<std::string, Context>& fixed);

}  // namespace weft

#endif  // WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_
