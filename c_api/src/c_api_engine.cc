// C functions of the dependency engine: variables, pushing C callbacks,
// completion of asynchronous callbacks, waits and engine selection.
//
// A WeftEngineVar handle owns an EngineVarObject; freeing the handle destroys it,
// which pushes DeleteVariable (after the variable's pending functions). A
// WeftEngineCompletion handle owns the OnComplete of one running async
// function; weft_engine_complete removes it, so a second call is rejected.
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "weft/engine.h"

namespace weft {
namespace capi {

struct EngineVarObject {
  EngineVarObject() : var(Engine::Get()->NewVariable()) {}
  ~EngineVarObject() { Engine::Get()->DeleteVariable(nullptr, Context::CPU(0), var); }
  EngineVarObject(const EngineVarObject&) = delete;
  EngineVarObject& operator=(const EngineVarObject&) = delete;
  VarHandle var;
};

struct CompletionObject {
  explicit CompletionObject(OnComplete d) : done(d) {}
  OnComplete done;
};

namespace {

// Calls the user's deleter once, when the last copy of the owning closure
// goes (after the function ran or was skipped, or when the push failed).
struct UserData {
  UserData(void* d, WeftEngineDeleter del) : data(d), deleter(del) {}
  ~UserData() {
    if (deleter) deleter(data);
  }
  UserData(const UserData&) = delete;
  UserData& operator=(const UserData&) = delete;
  void* data;
  WeftEngineDeleter deleter;
};

std::shared_ptr<EngineVarObject> GetVar(const WeftEngineVar* v, const char* arg) {
  return GetObject(v, arg);
}

// Resolves a (handles, count) list; `boxes` keeps the variables alive.
std::vector<VarHandle> GetVars(WeftEngineVar* const* vars, size_t n, const char* arg,
                               std::vector<std::shared_ptr<EngineVarObject>>* boxes) {
  CheckArray(vars, n, arg);
  std::vector<VarHandle> out;
  for (size_t i = 0; i < n; ++i) {
    const std::string name = StrCat(arg, "[", i, "]");
    boxes->push_back(GetVar(vars[i], name.c_str()));
    out.push_back(boxes->back()->var);
  }
  return out;
}

struct PushArgs {
  std::vector<std::shared_ptr<EngineVarObject>> boxes;
  std::vector<VarHandle> reads, writes;
  std::string name;
};

PushArgs CheckPush(const void* fn, WeftEngineVar* const* reads, size_t num_reads,
                   WeftEngineVar* const* writes, size_t num_writes, const char* name) {
  CheckNotNull(fn, "fn");
  PushArgs a;
  a.reads = GetVars(reads, num_reads, "reads", &a.boxes);
  a.writes = GetVars(writes, num_writes, "writes", &a.boxes);
  a.name = name ? name : "";
  return a;
}

}  // namespace
}  // namespace capi
}  // namespace weft

using weft::Engine;
using weft::EngineKind;
using weft::StatusCode;
using weft::capi::CompletionObject;
using weft::capi::EngineVarObject;
using weft::capi::UserData;

extern "C" {

WeftStatus weft_engine_configure(int kind, int cpu_threads) {
  WEFT_API_BEGIN();
  if (kind != WEFT_ENGINE_NAIVE && kind != WEFT_ENGINE_THREADED)
    weft::Fail(StatusCode::kInvalidArgument, "argument 'kind' is ", kind,
               ", expected WEFT_ENGINE_NAIVE (0) or ", "WEFT_ENGINE_THREADED (1)");
  Engine::Configure(kind == WEFT_ENGINE_NAIVE ? EngineKind::kNaive : EngineKind::kThreaded,
                    cpu_threads);
  WEFT_API_END();
}

WeftStatus weft_engine_info(int* out_kind, int* out_cpu_threads) {
  WEFT_API_BEGIN();
  weft::capi::CheckNotNull(out_kind, "out_kind");
  weft::capi::CheckNotNull(out_cpu_threads, "out_cpu_threads");
  Engine* e = Engine::Get();
  *out_kind = e->kind() == EngineKind::kNaive ? WEFT_ENGINE_NAIVE : WEFT_ENGINE_THREADED;
  *out_cpu_threads = e->num_cpu_workers();
  WEFT_API_END();
}

WeftStatus weft_engine_shutdown(void) {
  WEFT_API_BEGIN();
  Engine::ShutdownGlobal();
  WEFT_API_END();
}

WeftStatus weft_engine_on_worker_thread(int* out) {
  WEFT_API_BEGIN();
  weft::capi::CheckNotNull(out, "out");
  *out = Engine::OnWorkerThread() ? 1 : 0;
  WEFT_API_END();
}

WeftStatus weft_engine_var_create(WeftEngineVar** out) {
  WEFT_API_BEGIN();
  weft::capi::CheckNotNull(out, "out");
  auto box = std::make_shared<EngineVarObject>();
  *out = weft::capi::NewHandle<WeftEngineVar>(std::move(box));
  WEFT_API_END();
}

WeftStatus weft_engine_var_free(WeftEngineVar* var) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(var, "var");
  WEFT_API_END();
}

WeftStatus weft_engine_var_version(const WeftEngineVar* var, uint64_t* out) {
  WEFT_API_BEGIN();
  auto box = weft::capi::GetVar(var, "var");
  weft::capi::CheckNotNull(out, "out");
  *out = Engine::Get()->VarVersion(box->var);
  WEFT_API_END();
}

WeftStatus weft_engine_push_sync(WeftEngineSyncFn fn, void* user_data, WeftEngineDeleter deleter,
                                 WeftEngineVar* const* reads, size_t num_reads,
                                 WeftEngineVar* const* writes, size_t num_writes,
                                 const char* name) {
  auto data = std::make_shared<UserData>(user_data, deleter);  // deleter runs even on failure
  WEFT_API_BEGIN();
  auto a = weft::capi::CheckPush(reinterpret_cast<const void*>(fn), reads, num_reads, writes,
                                 num_writes, name);
  Engine::Get()->PushSync(
      [fn, data](weft::RunContext) {
        const char* err = fn(data->data);
        if (err) throw weft::Error(StatusCode::kInternal, err);
      },
      weft::Context::CPU(0), a.reads, a.writes, 0, a.name);
  WEFT_API_END();
}

WeftStatus weft_engine_push_async(WeftEngineAsyncFn fn, void* user_data, WeftEngineDeleter deleter,
                                  WeftEngineVar* const* reads, size_t num_reads,
                                  WeftEngineVar* const* writes, size_t num_writes,
                                  const char* name) {
  auto data = std::make_shared<UserData>(user_data, deleter);
  WEFT_API_BEGIN();
  auto a = weft::capi::CheckPush(reinterpret_cast<const void*>(fn), reads, num_reads, writes,
                                 num_writes, name);
  Engine::Get()->PushAsync(
      [fn, data](weft::RunContext, weft::OnComplete done) {
        auto box = std::make_shared<CompletionObject>(done);
        fn(data->data, weft::capi::NewHandle<WeftEngineCompletion>(std::move(box)));
      },
      weft::Context::CPU(0), a.reads, a.writes, 0, a.name);
  WEFT_API_END();
}

WeftStatus weft_engine_complete(WeftEngineCompletion* done, const char* error) {
  WEFT_API_BEGIN();
  auto box = weft::capi::TakeHandle(done, "done");
  if (error)
    box->done(std::make_exception_ptr(weft::Error(StatusCode::kInternal, error)));
  else
    box->done();
  WEFT_API_END();
}

WeftStatus weft_engine_var_wait(const WeftEngineVar* var) {
  WEFT_API_BEGIN();
  auto box = weft::capi::GetVar(var, "var");
  Engine::Get()->WaitForVar(box->var);
  WEFT_API_END();
}

}  // extern "C"
