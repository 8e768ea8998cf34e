// LentInputs: a predict call's CPU input buffers lent to the leased
// executor's kernels instead of copied (Executor::BorrowArgument).
#ifndef WEFT_CORE_SRC_PREDICTOR_LENT_INPUTS_H_
#define WEFT_CORE_SRC_PREDICTOR_LENT_INPUTS_H_

#include <utility>
#include <vector>

#include "weft/executor.h"
#include "weft/predictor.h"

namespace weft {

// The caller's input buffers lent to a leased executor's kernels for one
// call, so a CPU input is not copied; an input that cannot be lent (or has
// a fill callback) is left to the caller to copy in. The destructor waits
// until no kernel reads them and gives the executor its arrays back.
class LentInputs {
 public:
  // `bound`: the executor's input arrays; `args`: each one's argument index.
  LentInputs(Executor* ex, const std::vector<NDArray>& bound, const std::vector<size_t>& args,
             const std::vector<HostInput>& in);
  LentInputs(const LentInputs&) = delete;
  LentInputs& operator=(const LentInputs&) = delete;
  ~LentInputs();
  bool lent(size_t i) const { return lent_[i]; }

 private:
  Executor* ex_;
  const std::vector<NDArray>& bound_;
  std::vector<bool> lent_;
  std::vector<std::pair<size_t, size_t>> index_;  // (input, argument)
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_LENT_INPUTS_H_
