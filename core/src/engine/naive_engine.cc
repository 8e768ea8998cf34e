// NaiveEngine: runs every operation synchronously inside Push, in push
// order, with the same error and version semantics as the threaded engine.
#include <condition_variable>
#include <mutex>

#include "engine/engine_impl.h"
#include "weft/status.h"

namespace weft {
namespace engine {
namespace {

class NaiveEngine final : public Engine {
 public:
  explicit NaiveEngine(const EngineOptions& options) : opts_(options) {}
  EngineKind kind() const override { return EngineKind::kNaive; }
  int num_cpu_workers() const override { return 0; }
  VarHandle NewVariable() override { return new Var(); }

  void PushAsync(AsyncFn fn, Context ctx, const std::vector<VarHandle>& reads,
                 const std::vector<VarHandle>& writes, int priority, std::string name,
                 FnProperty prop) override {
    auto op = NewOpr(std::move(name), ctx, reads, writes, priority, prop);
    op->fn = std::move(fn);
    Run(op.get());
  }

  void PushSync(SyncFn fn, Context ctx, const std::vector<VarHandle>& reads,
                const std::vector<VarHandle>& writes, int priority, std::string name,
                FnProperty prop) override {
    auto op = NewOpr(std::move(name), ctx, reads, writes, priority, prop);
    op->sync_fn = std::move(fn);
    Run(op.get());
  }

  void DeleteVariable(SyncFn on_delete, Context ctx, VarHandle var) override {
    Run(NewDeleteOpr(std::move(on_delete), ctx, var).get());
  }

  void WaitForVar(VarHandle var) override {
    std::lock_guard<std::recursive_mutex> l(run_mu_);  // an op of another thread may be running
    if (ErrorRef e = var->error()) e->Deliver();
  }

  void WaitForAll() override {
    CheckNotInsideOp(this, "WaitForAll");
    std::lock_guard<std::recursive_mutex> l(run_mu_);
    errors_.ReportAndClear();
  }

  uint64_t VarVersion(VarHandle var) const override { return var->version(); }
  // Every push completes before it returns: idle since the last one ended.
  int64_t BusyNs() const override { return busy_.Total(); }
  // Nested pushes run inline here, so a wait inside an op never blocks.
  void CheckCanWait(const char*) const override {}
  size_t LoggedErrors() override { return errors_.size(); }
  void Stop() override {}
  void Start() override {}
  void Shutdown() override {}

 protected:
  void Complete(OprBlock* op, std::exception_ptr error) override {
    ErrorRef box = op->inherited;
    if (error) {
      box = NameError(op->name, error);
      errors_.Add(box);
    }
    std::vector<OprBlock*> none;  // nothing queues: every op runs inside its push
    for (Var* w : op->writes) w->CompleteWrite(box, &none);
    // Notified under the lock: a waiter (the destructor included) returns
    // only after the broadcast, so the engine may be destroyed at once.
    std::lock_guard<std::mutex> l(done_mu_);
    op->wait.store(1, std::memory_order_release);
    done_cv_.notify_all();
  }

 private:
  // Runs `op` and waits for its completion (it may complete on another
  // thread when asynchronous). Pushes are serialised; nested pushes from
  // inside an op run at once (the lock is recursive).
  void Run(OprBlock* op) {
    std::lock_guard<std::recursive_mutex> l(run_mu_);
    if (running_.fetch_add(1, std::memory_order_acq_rel) == 0) busy_.Started(running_);
    if (op->kind == OprKind::kUser) op->inherited = FindVarError(op);
    if (op->inherited) {
      Complete(op, nullptr);
    } else {
      if (op->sync_fn && op->ctx.dev_type != DeviceType::kCPU) {
        // Synchronous means done on return here, device work included
        // (an op on a missing device fails by itself when it uses it).
        op->sync_fn = [this, fn = std::move(op->sync_fn)](RunContext r) {
          fn(r);
          // Without hooks (not compiled in) no device work can have been queued.
          DeviceAPI* api = FindDeviceAPI(opts_, r.ctx.dev_type);
          if (api && r.ctx.dev_id < api->DeviceCount()) api->Synchronize(r.ctx);
        };
      }
      RunningOpScope scope(this, op);
      RunOprFn(op, RunContext{op->ctx, nullptr}, MakeOnComplete(op),
               [this, op](std::exception_ptr e) { Complete(op, std::move(e)); });
      std::unique_lock<std::mutex> dl(done_mu_);
      done_cv_.wait(dl, [op] { return op->wait.load(std::memory_order_acquire) == 1; });
    }
    if (op->kind == OprKind::kDelete) delete op->writes[0];
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) busy_.Stopped(running_);
  }

  const EngineOptions opts_;
  std::atomic<int64_t> running_{0};  // Run calls in progress (nested pushes included)
  BusyClock busy_;
  std::recursive_mutex run_mu_;
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  ErrorLog errors_;
};

}  // namespace

std::unique_ptr<Engine> MakeNaiveEngine(const EngineOptions& options) {
  return std::make_unique<NaiveEngine>(options);
}

}  // namespace engine
}  // namespace weft
