// Trainer (trainer.h).
#include "weft/trainer.h"

#include <set>

#include "weft/autograd.h"
#include "weft/status.h"

namespace weft {

Trainer::Trainer(std::vector<std::pair<std::string, NDArray>> params,
                 std::shared_ptr<Optimizer> optimizer)
    : params_(std::move(params)), optimizer_(std::move(optimizer)) {
  if (!optimizer_) Fail(StatusCode::kInvalidArgument, "Trainer: no optimizer given");
  std::set<std::string> seen;
  for (const auto& [name, weight] : params_) {
    if (!seen.insert(name).second)
      Fail(StatusCode::kInvalidArgument, "Trainer: parameter '", name, "' is given twice");
    if (weight.is_none())
      Fail(StatusCode::kInvalidArgument, "Trainer: parameter '", name, "' is an empty array");
    NDArray grad = autograd::GetGrad(weight);
    if (grad.is_none())
      Fail(StatusCode::kInvalidArgument, "Trainer: parameter '", name,
           "' has no gradient buffer (attach one with autograd's mark_variables first)");
    grads_.push_back(grad);
  }
}

void Trainer::Step(int batch_size) {
  if (batch_size <= 0)
    Fail(StatusCode::kInvalidArgument, "Trainer::Step: batch_size is ", batch_size,
         ", expected > 0");
  optimizer_->set_rescale_grad(1.0f / static_cast<float>(batch_size));
  for (size_t i = 0; i < params_.size(); ++i)
    optimizer_->Update(static_cast<int>(i), params_[i].first, &params_[i].second, grads_[i]);
}

}  // namespace weft
