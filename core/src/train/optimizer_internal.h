// Internal to core/src/train: what the optimizer families share
// (optimizer_sgd.cc, optimizer_lars.cc, optimizer_adam.cc,
// optimizer_adaptive.cc): hyper-parameter declarations and parsing, state
// allocation, and pushing an update op that writes the weight in place.
#ifndef WEFT_CORE_SRC_TRAIN_OPTIMIZER_INTERNAL_H_
#define WEFT_CORE_SRC_TRAIN_OPTIMIZER_INTERNAL_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "train_params.h"
#include "weft/optimizer.h"

namespace weft {
namespace train {

using ParsedParams = std::map<std::string, ParamValue>;

// The declarations every optimizer takes (learning_rate with default
// `lr_default`, wd, rescale_grad, clip_gradient, begin_num_update,
// multi_precision), plus lazy_update where MXNet's optimizer has it.
std::vector<ParamDecl> CommonDecls(const std::string& lr_default, bool lazy_update);
// A float parameter that may be "None" (ParamValue::is_none), with an
// inclusive range, default None.
// The common values of parsed CommonDecls.
Optimizer::Config ParseConfig(const ParsedParams& v);
ParamDecl OptionalFloatDecl(const std::string& name, double lo, double hi);
ParamDecl BoolDecl(const std::string& name, const std::string& def);
// Fails naming `what`, the parameter and its text (from `params`, else the
// default) unless v[key] < 1: the betas' and decay rates' open upper bound.
void CheckBelowOne(const std::string& what, const ParsedParams& v, const StringMap& params,
                   const char* key);
// A None or non-positive optional value as -1 (MXNet passes None and 0 as
// "disabled"), else the value.
float DisabledIfNotPositive(const ParamValue& v);

// A zero-filled array shaped like `like`, of `dtype` (kUnknown: like's),
// on like's context from like's runtime.
NDArray ZerosLike(const NDArray& like, DType dtype = DType::kUnknown);
// Invokes `op` on `inputs` writing the result into `*weight` in place.
void PushInPlace(const std::string& op, NDArray* weight, const std::vector<NDArray>& inputs,
                 const StringMap& params);

// An optimizer whose one state is a momentum buffer, kept only when the
// momentum is not 0 (MXNet's SGD, NAG, Signum and LARS create_state).
class MomentumOptimizer : public Optimizer {
 protected:
  MomentumOptimizer(std::string name, const Config& c, float momentum)
      : Optimizer(std::move(name), c), momentum_(momentum) {}
  std::vector<NDArray> CreateStates(const NDArray& weight) override {
    if (momentum_ == 0.0f) return {};
    return {ZerosLike(weight)};
  }
  size_t NumStates() const override { return momentum_ == 0.0f ? 0 : 1; }

  float momentum_;
};

// The optimizers' factories; `what` is "optimizer '<name as given>'".
std::unique_ptr<Optimizer> CreateSGD(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateNAG(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateSignum(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateLARS(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateAdam(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateAdamW(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateLAMB(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateRMSProp(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateAdaGrad(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateAdaDelta(const std::string& what, const StringMap& params);
std::unique_ptr<Optimizer> CreateFtrl(const std::string& what, const StringMap& params);

}  // namespace train
}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_OPTIMIZER_INTERNAL_H_
