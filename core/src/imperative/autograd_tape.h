// The recorded values of one autograd node (autograd.h's TapeNode), shared
// by the entries of the node's outputs, and PauseRecording. Not a public header.
#ifndef WEFT_CORE_SRC_IMPERATIVE_AUTOGRAD_TAPE_H_
#define WEFT_CORE_SRC_IMPERATIVE_AUTOGRAD_TAPE_H_

#include <memory>
#include <vector>

#include "weft/autograd.h"

namespace weft {
namespace autograd {

struct TapeNode {
  bool is_variable = false;
  // An op node: the entry of each input (a recorded output, a marked
  // variable or a constant); empty for a variable.
  std::vector<std::shared_ptr<const Entry>> inputs;
  // An op node: its outputs' values (without entries, so that no cycle
  // keeps them alive); a variable: its value.
  std::vector<NDArray> values;
  // A marked variable: its request and gradient buffer (none for kNull).
  GradReq req = GradReq::kNull;
  NDArray grad;
  // A function node (RecordFunction): its backward; released with the
  // values.
  FunctionBackward backward;
  // Set by a Backward without retain_graph: `values` are gone.
  bool freed = false;
};

// Recording paused for its lifetime (work autograd itself does, such as
// running gradient nodes or a CachedOp call's copies, is no user op).
class PauseRecording {
 public:
  PauseRecording() : prev_(SetIsRecording(false)) {}
  ~PauseRecording() { SetIsRecording(prev_); }
  PauseRecording(const PauseRecording&) = delete;
  PauseRecording& operator=(const PauseRecording&) = delete;

 private:
  bool prev_;
};

}  // namespace autograd
}  // namespace weft

#endif  // WEFT_CORE_SRC_IMPERATIVE_AUTOGRAD_TAPE_H_
