// Executor internals shared by executor.cc (build, run) and
// executor_bind.cc (the bind entry points). Not a public header.
#ifndef WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_
#define WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_

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
    const Kernel* kernel = nullptr;
    std::vector<OpReq> reqs;
  };
  // A gradient that could not be written directly into its bound array.
  struct GradCopy {
    uint32_t entry = 0;
    size_t arg = 0;
  };

  Runtime* rt = nullptr;
  Graph graph;  // forward outputs, then one gradient per differentiated argument
  std::unique_ptr<IndexedGraph> idx;
  uint32_t num_forward_nodes = 0;
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
  void Push(const Step& step, Context ctx, bool is_train) const;
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_EXECUTOR_EXECUTOR_IMPL_H_
