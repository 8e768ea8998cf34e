// Engine selection, the global engine and its process-exit hook.
#include <atomic>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "engine/engine_impl.h"
#include "engine/task_queue.h"
#include "weft/status.h"

namespace weft {
namespace engine {
namespace {
Mutex g_thread_hook_mu;
int g_fail_first WEFT_GUARDED_BY(g_thread_hook_mu) = 0;  // 0: off
int g_fail_count WEFT_GUARDED_BY(g_thread_hook_mu) = 0;
}  // namespace

void SetThreadStartFailureForTesting(int first, int count) {
  MutexLock l(&g_thread_hook_mu);
  g_fail_first = first;
  g_fail_count = count;
}

DeviceAPI* FindDeviceAPI(const EngineOptions& options, DeviceType t) {
  if (!options.device_apis) return nullptr;
  try {
    return options.device_apis(t);
  } catch (const Error&) {
    return nullptr;  // not compiled in
  }
}

std::thread StartThread(std::function<void()> fn) {
  {
    MutexLock l(&g_thread_hook_mu);
    if (g_fail_first > 0) {
      if (--g_fail_first == 0) {
        if (--g_fail_count > 0) g_fail_first = 1;
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                "thread start refused by the test hook");
      }
    }
  }
  return std::thread(std::move(fn));
}
}  // namespace engine

void OnComplete::operator()(std::exception_ptr error) const {
  engine_->Complete(opr_, std::move(error));
}

EngineKind Engine::ParseKind(const std::string& text) {
  if (text == "naive" || text == "NaiveEngine") return EngineKind::kNaive;
  if (text == "threaded" || text == "ThreadedEngine") return EngineKind::kThreaded;
  Fail(StatusCode::kInvalidArgument, "WEFT_ENGINE: expected 'naive' or 'threaded', given '", text,
       "'");
}

std::unique_ptr<Engine> Engine::Create(EngineKind kind, const EngineOptions& options) {
  if (kind == EngineKind::kNaive) return engine::MakeNaiveEngine(options);
  return engine::MakeThreadedEngine(options);
}

namespace {

std::atomic<Engine*> g_engine{nullptr};
Mutex g_engine_mu;
bool g_configured WEFT_GUARDED_BY(g_engine_mu) = false;
EngineKind g_kind WEFT_GUARDED_BY(g_engine_mu);
EngineOptions g_opts WEFT_GUARDED_BY(g_engine_mu);
Mutex g_device_apis_mu;
DeviceAPIFinder g_device_apis WEFT_GUARDED_BY(g_device_apis_mu);

// The global engine's EngineOptions::device_apis: whatever
// SetGlobalDeviceAPIs installed at the time of the call.
DeviceAPI* GlobalDeviceAPI(DeviceType t) {
  DeviceAPIFinder find;
  {
    MutexLock l(&g_device_apis_mu);
    find = g_device_apis;
  }
  if (!find)
    Fail(StatusCode::kDevice, "device type ", DeviceTypeName(t),
         " is not available: no runtime has given the global engine its device hooks");
  return find(t);
}

void ShutdownGlobalEngine() {
  // Runs before the destructors of statics created before the engine;
  // NDArrays they free later are deleted synchronously.
  if (Engine* e = g_engine.load()) e->Shutdown();
}

Engine* CreateGlobalEngineLocked() WEFT_REQUIRES(g_engine_mu) {
  EngineKind kind = EngineKind::kThreaded;
  EngineOptions opts;
  if (g_configured) {
    kind = g_kind;
    opts = g_opts;
  } else {
    if (const char* s = std::getenv("WEFT_ENGINE"); s && *s) kind = Engine::ParseKind(s);
    if (const char* s = std::getenv("WEFT_ENGINE_THREADS"); s && *s) {
      char* end = nullptr;
      long n = std::strtol(s, &end, 10);
      if (*end != '\0' || n < 1 || n > 1024)
        Fail(StatusCode::kInvalidArgument,
             "WEFT_ENGINE_THREADS: expected an integer in [1, 1024], given '", s, "'");
      opts.cpu_threads = static_cast<int>(n);
    }
  }
  opts.device_apis = GlobalDeviceAPI;
  Engine* e = Engine::Create(kind, opts).release();  // leaked, see engine.h
  g_engine.store(e, std::memory_order_release);
  std::atexit(ShutdownGlobalEngine);
  return e;
}

const char* KindName(EngineKind k) { return k == EngineKind::kNaive ? "naive" : "threaded"; }

}  // namespace

void Engine::SetGlobalDeviceAPIs(DeviceAPIFinder find) {
  MutexLock l(&g_device_apis_mu);
  g_device_apis = std::move(find);
}

Engine* Engine::Get() {
  if (Engine* e = g_engine.load(std::memory_order_acquire)) return e;
  MutexLock l(&g_engine_mu);
  if (Engine* e = g_engine.load(std::memory_order_acquire)) return e;
  return CreateGlobalEngineLocked();
}

void Engine::ShutdownGlobal() { ShutdownGlobalEngine(); }

bool Engine::OnWorkerThread() { return engine::TaskQueue::OnWorkerThread(); }

void Engine::Configure(EngineKind kind, int cpu_threads) {
  if (cpu_threads < 0 || cpu_threads > 1024)
    Fail(StatusCode::kInvalidArgument, "engine configure: cpu_threads must be in [0, 1024], given ",
         cpu_threads);
  MutexLock l(&g_engine_mu);
  if (Engine* e = g_engine.load()) {
    const bool same = e->kind() == kind && (kind == EngineKind::kNaive || cpu_threads == 0 ||
                                            e->num_cpu_workers() == cpu_threads);
    if (!same)
      Fail(StatusCode::kInvalidArgument, "engine configure: the engine is already running (",
           KindName(e->kind()), ", ", e->num_cpu_workers(), " CPU workers); requested ",
           KindName(kind), " with ", cpu_threads,
           " CPU workers; configure before the first array is created");
    return;
  }
  g_configured = true;
  g_kind = kind;
  g_opts = EngineOptions{};
  g_opts.cpu_threads = cpu_threads;
}

}  // namespace weft
