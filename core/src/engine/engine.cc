// Engine selection, the global engine and its process-exit hook.
#include <cstdlib>
#include <string>

#include "engine/engine_impl.h"
#include "weft/status.h"

namespace weft {

void OnComplete::operator()(std::exception_ptr error) const { engine_->Complete(opr_, std::move(error)); }

EngineKind Engine::ParseKind(const std::string& text) {
  if (text == "naive" || text == "NaiveEngine") return EngineKind::kNaive;
  if (text == "threaded" || text == "ThreadedEngine") return EngineKind::kThreaded;
  Fail(StatusCode::kInvalidArgument, "WEFT_ENGINE: expected 'naive' or 'threaded', given '", text, "'");
}

std::unique_ptr<Engine> Engine::Create(EngineKind kind, const EngineOptions& options) {
  if (kind == EngineKind::kNaive) return engine::MakeNaiveEngine();
  return engine::MakeThreadedEngine(options);
}

namespace {

Engine* g_engine = nullptr;

void ShutdownGlobalEngine() {
  // Runs before the destructors of statics created before the engine;
  // NDArrays they free later are deleted synchronously.
  if (g_engine) g_engine->Shutdown();
}

Engine* CreateGlobalEngine() {
  EngineKind kind = EngineKind::kThreaded;
  if (const char* s = std::getenv("WEFT_ENGINE"); s && *s) kind = Engine::ParseKind(s);
  EngineOptions opts;
  if (const char* s = std::getenv("WEFT_ENGINE_THREADS"); s && *s) {
    char* end = nullptr;
    long n = std::strtol(s, &end, 10);
    if (*end != '\0' || n < 1 || n > 1024)
      Fail(StatusCode::kInvalidArgument, "WEFT_ENGINE_THREADS: expected an integer in [1, 1024], given '", s, "'");
    opts.cpu_threads = static_cast<int>(n);
  }
  g_engine = Engine::Create(kind, opts).release();  // leaked, see engine.h
  std::atexit(ShutdownGlobalEngine);
  return g_engine;
}

}  // namespace

Engine* Engine::Get() {
  static Engine* engine = CreateGlobalEngine();
  return engine;
}

}  // namespace weft
