// Library-wide C functions: version, ABI version, live handles, storage
// statistics, random seed and wait_all.
#include "c_api_internal.h"
#include "weft/device.h"
#include "weft/engine.h"
#include "weft/runtime.h"
#include "weft/storage.h"

#ifndef WEFT_VERSION_STRING
#error "WEFT_VERSION_STRING must be defined by the build (CMakeLists.txt)"
#endif

using weft::capi::CheckNotNull;

extern "C" {

const char* weft_version(void) { return WEFT_VERSION_STRING; }

int weft_abi_version(void) { return WEFT_API_VERSION; }

size_t weft_live_handle_count(void) {
  return weft::capi::LiveHandleCounter().load(std::memory_order_relaxed);
}

WeftStatus weft_storage_stats(int dev_type, int dev_id, size_t* live_bytes, size_t* pooled_bytes) {
  WEFT_API_BEGIN();
  CheckNotNull(live_bytes, "live_bytes");
  CheckNotNull(pooled_bytes, "pooled_bytes");
  weft::Context ctx = weft::capi::ContextArg(dev_type, dev_id);
  weft::StorageStats s = weft::Runtime::Global().storage(ctx)->stats();
  *live_bytes = s.live_bytes;
  *pooled_bytes = s.pooled_bytes;
  WEFT_API_END();
}

WeftStatus weft_random_seed(uint64_t seed) {
  WEFT_API_BEGIN();
  weft::Runtime::Global().Seed(seed);
  WEFT_API_END();
}

WeftStatus weft_wait_all(void) {
  WEFT_API_BEGIN();
  // Drains the engine (rethrowing the first deferred op error, whose
  // message names the op), then every device queue.
  weft::Engine::Get()->WaitForAll();
  weft::Runtime& rt = weft::Runtime::Global();
  rt.device_api(weft::DeviceType::kCPU)->Synchronize(weft::Context::CPU(0));
#if WEFT_USE_CUDA
  weft::DeviceAPI* gpu = rt.device_api(weft::DeviceType::kGPU);
  const int n = gpu->DeviceCount();
  for (int i = 0; i < n; ++i) gpu->Synchronize(weft::Context::GPU(i));
#endif
  WEFT_API_END();
}

}  // extern "C"
