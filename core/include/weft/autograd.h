// Autograd: imperative gradients with MXNet's semantics (mxnet.autograd).
//
// While a thread records (SetIsRecording(true), or a RecordScope), every
// imperative Invoke on it is recorded: the op node (with its parameters)
// and the arrays its inputs were, and its outputs' values are kept. An
// output array then carries an autograd::Entry naming its node; arrays
// given to MarkVariables carry one naming a variable with a gradient
// buffer and a request (write, add, null). Backward(heads) builds the
// gradient graph of what the heads were computed from with pass::Gradient
// (the same gradient rules as the executor), runs its nodes imperatively on
// the recorded values, and writes (or adds) each marked variable's gradient
// into its buffer; unless retain_graph, it frees the recorded values of the
// graph it walked, and a second Backward over them fails. Grad returns the
// gradients instead of writing the buffers.
//
// The recording and training flags are per thread (as MXNet's); recording
// on two threads at once records two independent graphs. Arrays, their
// entries and the recorded values are shared: free or reuse them as any
// NDArray. Ops run in training mode (Dropout masks, BatchNorm batch
// statistics) while the thread's training flag is set.
#ifndef WEFT_AUTOGRAD_H_
#define WEFT_AUTOGRAD_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/executor.h"
#include "weft/ndarray.h"
#include "weft/node.h"
#include "weft/op.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;

namespace autograd {

struct TapeNode;  // the recorded values of one node (autograd.cc)

// What an array is to autograd: output `node_entry.index` of a recorded op
// node, or a variable (a marked array, or an unmarked input recorded as a
// constant). Immutable; shared by the array's copies.
struct Entry {
  NodeEntry node_entry;
  std::shared_ptr<TapeNode> tape;
};

// The calling thread's flags; each setter returns the previous value.
bool IsRecording();
bool SetIsRecording(bool on);
bool IsTraining();
bool SetIsTraining(bool on);

// Records (and, with train_mode, trains) for its lifetime; restores both
// flags when it ends (MXNet's `with autograd.record():`).
class RecordScope {
 public:
  explicit RecordScope(bool train_mode = true);
  ~RecordScope();
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;

 private:
  bool prev_recording_, prev_training_;
};

// Marks `vars[i]` as a variable with gradient buffer `grads[i]` (same shape,
// dtype and device) and request `reqs[i]` (kNull: no gradient). Replaces an
// earlier record of the array. Throws Error(kInvalidArgument/kShape) naming
// the index for mismatched lists or buffers.
void MarkVariables(const std::vector<NDArray*>& vars, const std::vector<GradReq>& reqs,
                   const std::vector<NDArray>& grads);

// The gradient buffer of a marked array (none when `a` is not marked).
NDArray GetGrad(const NDArray& a);

// Records one op call (Invoke calls it while the thread records): `outputs`
// get entries naming a new node `attrs` over the inputs' entries (an input
// without one is recorded as a constant). Throws Error(kInvalidArgument)
// when an output is an input that has an entry (in-place update of a
// recorded array).
void RecordOp(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
              std::vector<NDArray>* outputs);

// The backward of a call recorded as one node (RecordFunction): the
// gradients of its inputs (one per input; a none array for an input it
// computes no gradient for, which must then lead to no marked variable) from
// its outputs' gradients (one per output).
using FunctionBackward = std::function<std::vector<NDArray>(const std::vector<NDArray>& out_grads)>;

// Records a call computed outside Invoke (a CachedOp call) as one node
// `attrs` whose op's gradient rule gives one "_backward_<op>" node with the
// forward node as control_deps[0] (op/autograd_function.cc); Backward runs
// that node through `backward`, which the tape holds until the graph is
// freed. Same checks as RecordOp.
void RecordFunction(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                    std::vector<NDArray>* outputs, FunctionBackward backward);

// Back-propagates from `heads`. `head_grads` is empty or one per head (a
// none entry: ones, MXNet's default). Throws Error(kInvalidArgument) for a
// head that was not recorded, when no marked variable with a request other
// than null is reached, and when the graph was freed by an earlier
// Backward; Error(kNotImplemented) naming the op without a gradient.
void Backward(Runtime* rt, const std::vector<NDArray>& heads,
              const std::vector<NDArray>& head_grads = {}, bool retain_graph = false,
              bool train_mode = true);

// The gradients of `heads` with respect to `variables` (marked arrays), as
// new arrays, leaving the buffers alone (MXNet's autograd.grad). With
// create_graph the gradient computation is itself recorded (and the graph
// retained), so the gradients can be differentiated again (higher order)
// where the gradient ops have gradients; Backward through one that has none
// fails naming it, and create_graph through a recorded CachedOp call throws
// Error(kNotImplemented).
std::vector<NDArray> Grad(Runtime* rt, const std::vector<NDArray>& heads,
                          const std::vector<NDArray>& variables,
                          const std::vector<NDArray>& head_grads = {}, bool retain_graph = false,
                          bool train_mode = true, bool create_graph = false);

// The array without its autograd entry (same storage): gradients stop there.
NDArray Detach(const NDArray& a);

// The recorded graph that computed `a`, as a Symbol (variables named
// "var<k>", constants "const<k>", op nodes "node<k>"). Throws for an array
// that was not recorded.
Symbol GetSymbol(const NDArray& a);

}  // namespace autograd
}  // namespace weft

#endif  // WEFT_AUTOGRAD_H_
