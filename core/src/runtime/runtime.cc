#include "weft/runtime.h"

#include "weft/engine.h"
#include "weft/status.h"

namespace weft {

namespace {

// The seed of `ctx`'s generator under the global seed `seed`: distinct per
// device, so two devices draw different streams.
uint64_t ContextSeed(uint64_t seed, Context ctx) {
  return seed * 1000003ULL + static_cast<uint64_t>(ctx.dev_id) * 7919ULL +
         static_cast<uint64_t>(ctx.dev_type);
}

}  // namespace

Runtime::Runtime() {
  apis_[DeviceType::kCPU] = CpuDeviceAPI();
  RegisterAllOps(&ops_);
}

Runtime::~Runtime() {
  // Pending random ops may still use a state: the state is freed with its
  // variable, after them.
  for (auto& kv : rngs_) {
    RandomState* state = kv.second.release();
    Engine::Get()->DeleteVariable([state](RunContext) { delete state; }, kv.first, state->var);
  }
}

DeviceAPI* Runtime::device_api(DeviceType t) const {
  auto it = apis_.find(t);
  if (it == apis_.end())
    Fail(StatusCode::kDevice, "device type ", DeviceTypeName(t),
         " is not available: this build of libweft has no support for it");
  return it->second;
}

void Runtime::SetDeviceAPI(DeviceType t, DeviceAPI* api) { apis_[t] = api; }

void Runtime::CheckDevice(Context ctx) const {
  auto it = apis_.find(ctx.dev_type);
  if (it == apis_.end())
    Fail(StatusCode::kDevice, "device ", ctx.ToString(),
         " is not available: this build of libweft has no ", DeviceTypeName(ctx.dev_type),
         " support");
  const int count = it->second->DeviceCount();
  if (ctx.dev_id < 0 || ctx.dev_id >= count)
    Fail(StatusCode::kDevice, "device ", ctx.ToString(), " is not available (", count, " ",
         DeviceTypeName(ctx.dev_type), " device(s) found)");
}

std::shared_ptr<StoragePool> Runtime::storage(Context ctx) {
  DeviceAPI* api = device_api(ctx.dev_type);
  MutexLock lock(&mu_);
  auto it = pools_.find(ctx);
  if (it != pools_.end()) return it->second;
  CheckDevice(ctx);
  auto pool = std::make_shared<StoragePool>(ctx, api);
  pools_[ctx] = pool;
  return pool;
}

size_t Runtime::live_bytes() const {
  MutexLock lock(&mu_);
  size_t total = 0;
  for (const auto& kv : pools_) total += kv.second->stats().live_bytes;
  return total;
}

RandomState* Runtime::rng(Context ctx) {
  MutexLock lock(&mu_);
  auto& slot = rngs_[ctx];
  if (!slot) {
    slot = std::make_unique<RandomState>();
    slot->var = Engine::Get()->NewVariable();
    MutexLock state_lock(&slot->mu);  // not shared yet; taken for the analysis
    slot->engine.seed(ContextSeed(seed_, ctx));
  }
  return slot.get();
}

void Runtime::Seed(uint64_t seed) {
  MutexLock lock(&mu_);
  seed_ = seed;
  for (auto& kv : rngs_) {
    RandomState* state = kv.second.get();
    const uint64_t s = ContextSeed(seed, kv.first);
    Engine::Get()->PushSync(
        [state, s](RunContext) {
          MutexLock l(&state->mu);
          state->engine.seed(s);
        },
        kv.first, {}, {state->var}, 0, "Seed");
  }
}

}  // namespace weft
