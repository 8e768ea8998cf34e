// See lent_inputs.h.
#include "predictor/lent_inputs.h"

namespace weft {

LentInputs::LentInputs(Executor* ex, const std::vector<NDArray>& bound,
                       const std::vector<size_t>& args, const std::vector<HostInput>& in)
    : ex_(ex), bound_(bound) {
  lent_.assign(in.size(), false);
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].fill || !in[i].data || in[i].bytes == 0) continue;
    lent_[i] = ex->BorrowArgument(args[i], in[i].data);
    if (lent_[i]) index_.emplace_back(i, args[i]);
  }
}

LentInputs::~LentInputs() {
  for (const auto& [i, k] : index_) {
    try {
      bound_[i].WaitToWrite();  // every kernel reading the caller's buffer has run
      ex_->BorrowArgument(k, nullptr);
    } catch (...) {
      // Nothing writes the input, so the wait has no error to report; an
      // unexpected one must not escape a destructor.
    }
  }
}

}  // namespace weft
