// C ABI: weft_trainer_* (weft/trainer.h). A trainer shares its optimizer
// handle's object, so its steps and calls through that handle are
// serialised by the optimizer's mutex.
#include <memory>
#include <mutex>
#include <utility>

#include "c_api_internal.h"
#include "c_api_train_internal.h"
#include "weft/trainer.h"

using weft::capi::CheckNotNull;
using weft::capi::GetObject;

WeftStatus weft_trainer_create(const char* const* names, WeftNDArray* const* params,
                               size_t num_params, WeftOptimizer* opt, WeftTrainer** out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  auto o = GetObject(opt, "opt");
  auto named = weft::capi::NamedArrays(num_params, names, "names", params, "params");
  auto obj = std::make_shared<weft::capi::TrainerObject>();
  obj->opt = o;
  obj->trainer = std::make_unique<weft::Trainer>(std::move(named), o->opt);
  *out = weft::capi::NewHandle<WeftTrainer>(std::move(obj));
  WEFT_API_END();
}

WeftStatus weft_trainer_step(WeftTrainer* trainer, int batch_size) {
  WEFT_API_BEGIN();
  auto t = GetObject(trainer, "trainer");
  std::lock_guard<std::mutex> lock(t->opt->mu);
  t->trainer->Step(batch_size);
  WEFT_API_END();
}

WeftStatus weft_trainer_free(WeftTrainer* trainer) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(trainer, "trainer");
  WEFT_API_END();
}
