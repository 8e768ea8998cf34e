// Library-wide C functions: version, ABI version, live handles, storage
// statistics, device count and memory, random seed and wait_all.
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

WeftStatus weft_device_count(int dev_type, int* out) {
  WEFT_API_BEGIN();
  CheckNotNull(out, "out");
  weft::Runtime& rt = weft::Runtime::Global();
  if (dev_type == WEFT_CPU) {
    *out = rt.device_api(weft::DeviceType::kCPU)->DeviceCount();
  } else if (dev_type == WEFT_GPU) {
#if WEFT_USE_CUDA
    *out = rt.device_api(weft::DeviceType::kGPU)->DeviceCount();
#else
    *out = 0;  // built without CUDA
#endif
  } else {
    weft::capi::ContextArg(dev_type, 0);  // fails naming the valid types
  }
  WEFT_API_END();
}

WeftStatus weft_device_memory(int dev_type, int dev_id, uint64_t* free_bytes,
                              uint64_t* total_bytes) {
  WEFT_API_BEGIN();
  CheckNotNull(free_bytes, "free_bytes");
  CheckNotNull(total_bytes, "total_bytes");
  const weft::Context ctx = weft::capi::ContextArg(dev_type, dev_id);
  weft::Runtime& rt = weft::Runtime::Global();
  rt.CheckDevice(ctx);
  size_t free_b = 0, total_b = 0;
  rt.device_api(ctx.dev_type)->MemoryInfo(ctx, &free_b, &total_b);
  *free_bytes = free_b;
  *total_bytes = total_b;
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
