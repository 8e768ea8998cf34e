// CachedOp: a symbol invoked imperatively on arrays, MXNet's CachedOp (what
// a hybridized Gluon block and an imported SymbolBlock run through).
//
// Inputs are every variable of the symbol in Symbol::ListInputs order
// (arguments and auxiliary states). Outside autograd recording, a call runs
// an executor bound to an ExecutorPlan compiled once per signature (the
// inputs' shapes, dtypes and devices, and whether the thread's training
// flag is set: inference calls get the inference passes); parameter inputs
// are bound as they are (a call with another parameter array rebinds),
// data inputs are copied into the executor's own arrays. With static_alloc
// the outputs are the executor's own arrays, overwritten by the next call
// of the same signature, and a steady state allocates nothing; without it
// each call returns new arrays.
//
// While the thread records (autograd.h), a call is one node on the tape
// (_CachedOp, as in MXNet): it runs a training executor of its signature
// (which also keys which inputs need a gradient: those autograd knows),
// taken from a pool for as long as the tape holds the call, and Backward
// runs that executor's backward (planned memory, the executor's layouts)
// and hands the inputs' gradients on. A symbol of at most inline_limit
// operators (without static_alloc) is inlined instead: its nodes run one by
// one through Invoke and autograd records each (MXNet's inlining). A symbol
// holding an operator whose output shapes depend on the data (ONNX's
// NonMaxSuppression, weft/dynamic_shape.h) always runs that way, recorded
// or not: no executor can plan it.
//
// Thread-safe: calls on one CachedOp are serialised while they push work
// (they then run on the engine). Calls that run node by node (a symbol
// holding an operator of data-dependent shape, or a recorded call inlined)
// share no state and run concurrently: the Predictor runs such a model
// through one CachedOp from every calling thread (predictor.h).
#ifndef WEFT_CACHED_OP_H_
#define WEFT_CACHED_OP_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "weft/executor.h"
#include "weft/graph.h"
#include "weft/monitor.h"
#include "weft/mutex.h"
#include "weft/ndarray.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;

// MXNet's CachedOp flags (string values as MXNet takes them).
struct CachedOpFlags {
  bool static_alloc = false;
  bool static_shape = false;  // accepted; plans are keyed by shape either way
  // Inputs (indices into ListInputs) copied on every call, and inputs bound
  // as they are. Neither given: an input is a parameter when its name ends
  // as MXNet names parameters (_weight, _bias, _gamma, _beta, _moving_mean,
  // _moving_var, ...), data otherwise.
  std::vector<int> data_indices, param_indices;
  int inline_limit = 2;  // recorded calls of at most this many operators are inlined
  // Parses MXNet's flags (static_alloc, static_shape, data_indices,
  // param_indices, inline_limit, forward_bulk_size, backward_bulk_size);
  // throws Error(kInvalidArgument) naming an unknown flag or a bad value.
  static CachedOpFlags Parse(const StringMap& flags);
};

class CachedOp {
 public:
  // Throws Error(kInvalidArgument) for an index out of range or given as
  // both data and parameter. `rt` must outlive the CachedOp.
  CachedOp(Runtime* rt, Symbol symbol, CachedOpFlags flags = {});
  ~CachedOp();
  CachedOp(const CachedOp&) = delete;
  CachedOp& operator=(const CachedOp&) = delete;

  // Runs the symbol on `inputs` (one per ListInputs entry) and returns its
  // outputs. Throws Error naming the input for a wrong count, an empty
  // array or shapes the symbol refuses.
  std::vector<NDArray> Forward(const std::vector<NDArray>& inputs);

  const std::vector<std::string>& input_names() const { return input_names_; }
  const Symbol& symbol() const { return symbol_; }
  const CachedOpFlags& flags() const { return flags_; }
  // True when the symbol holds an operator of data-dependent output shape
  // (weft/dynamic_shape.h): every call runs node by node.
  bool dynamic() const { return dynamic_; }
  // Signatures compiled so far (one plan each; recorded calls have their
  // own signatures).
  size_t num_plans() const;
  // A monitor on the executors the calls run (Executor::SetMonitorCallback;
  // an empty callback removes it), applied from the next call on; called
  // on the calling thread. Calls inlined node by node (inline_limit) run no
  // executor and report nothing.
  void SetMonitorCallback(Executor::MonitorCallback callback, bool monitor_all = false);

 private:
  // The arrays an executor is bound to for the inputs: data inputs copied
  // into `data` (none for a parameter), parameters bound as given.
  struct BoundInputs {
    std::vector<NDArray> data, bound_params;
    // True when `inputs` has the same parameter arrays (then it binds).
    bool Binds(const std::vector<NDArray>& inputs) const;
  };
  // Fills `b` for `inputs`, and `args`/`aux` (ListArguments /
  // ListAuxiliaryStates order) with the arrays to bind.
  void BindInputs(const std::vector<NDArray>& inputs, BoundInputs* b, std::vector<NDArray>* args,
                  std::vector<NDArray>* aux) const;
  struct State;
  struct TrainSlot;  // cached_op_record.cc: the recorded path
  struct TrainPool;
  struct Lease;
  std::vector<NDArray> ForwardRecorded(const std::vector<NDArray>& inputs);
  // Binds a training executor to `*plan` (compiling it when none).
  std::unique_ptr<TrainSlot> BindTrainSlot(const std::vector<NDArray>& inputs,
                                           const std::vector<bool>& needs,
                                           std::shared_ptr<const ExecutorPlan>* plan);
  std::vector<NDArray> ForwardInlined(const std::vector<NDArray>& inputs);
  State& StateFor(const std::vector<NDArray>& inputs, bool is_train) WEFT_REQUIRES(mu_);

  Runtime* rt_;
  Symbol symbol_;
  CachedOpFlags flags_;
  std::vector<std::string> input_names_;
  std::vector<bool> is_param_;     // per input
  std::vector<int> arg_of_input_;  // per input: its argument index, or -1 for an aux state
  std::vector<int> aux_of_input_;  // per input: its aux state index, or -1
  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<State>> states_ WEFT_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<TrainPool>> train_pools_ WEFT_GUARDED_BY(mu_);
  bool inline_ = false;  // recorded calls run node by node
  // The symbol holds an operator of data-dependent output shape
  // (weft/dynamic_shape.h): every call runs node by node.
  bool dynamic_ = false;
  // When inline_: the graph ForwardInlined walks (subgraphs expanded once,
  // at construction), and per node the input a variable takes (-1 for ops).
  std::unique_ptr<const IndexedGraph> inlined_;
  std::vector<int> input_of_node_;
  SharedMonitor monitor_;  // given to the executors before each call
};

}  // namespace weft

#endif  // WEFT_CACHED_OP_H_
