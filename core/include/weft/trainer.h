// Trainer: steps an optimizer over a dictionary of parameters for autograd
// training (Gluon's gluon.Trainer).
//
// Each parameter is an array marked for gradients (autograd::MarkVariables,
// its gradient buffer filled by autograd::Backward). Step(batch_size) sets
// the optimizer's rescale_grad to 1 / batch_size (as Gluon does) and updates
// every parameter from its gradient buffer in order, index i for the i-th
// parameter (the optimizer's state and update counts follow the index).
// Updates are pushed to the engine like every op. Not thread-safe: one
// trainer is stepped by one thread at a time.
#ifndef WEFT_TRAINER_H_
#define WEFT_TRAINER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/ndarray.h"
#include "weft/optimizer.h"

namespace weft {

class Trainer {
 public:
  // Throws Error(kInvalidArgument) naming a parameter that is empty, not
  // marked for gradients, or named twice, or for a null optimizer.
  Trainer(std::vector<std::pair<std::string, NDArray>> params,
          std::shared_ptr<Optimizer> optimizer);

  // One update of every parameter (batch_size > 0, else kInvalidArgument).
  void Step(int batch_size);

  Optimizer& optimizer() { return *optimizer_; }
  const std::vector<std::pair<std::string, NDArray>>& params() const { return params_; }

 private:
  std::vector<std::pair<std::string, NDArray>> params_;
  std::vector<NDArray> grads_;  // per parameter: its gradient buffer
  std::shared_ptr<Optimizer> optimizer_;
};

}  // namespace weft

#endif  // WEFT_TRAINER_H_
