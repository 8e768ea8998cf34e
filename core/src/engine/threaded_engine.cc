// ThreadedEngine: per-variable pending queues (engine_impl.h) feeding
// per-device worker pools. Pushes append to the variables' queues under
// one push lock, so every queue sees the same global order and concurrent
// pushers cannot build a wait cycle; completion takes only variable locks.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "engine/engine_impl.h"
#include "weft/profiler.h"
#include "engine/task_queue.h"
#include "weft/status.h"

namespace weft {
namespace engine {
namespace {

class ThreadedEngine;

// Threads that take ready ops from one queue and execute them. A GPU pool
// owns its stream (rc.stream, from `api`) and frees it when destroyed.
class WorkerPool {
 public:
  WorkerPool(ThreadedEngine* engine, int threads, RunContext rc, DeviceAPI* api = nullptr)
      : engine_(engine),
        threads_(threads),
        rc_(rc),
        api_(api),
        queue_(std::make_unique<TaskQueue>()) {}
  ~WorkerPool() {
    Stop();
    if (api_ && rc_.stream) api_->FreeStream(rc_.ctx, rc_.stream);
  }
  void Push(OprBlock* op) { queue_->Push(op); }
  // Starts the missing worker threads; a thread that cannot be started
  // (std::system_error) ends the attempt. Returns false, with `*error` set,
  // when the pool has no thread at all.
  bool Start(std::string* error);
  bool running() const { return !workers_.empty(); }
  void SyncStream() {
    if (api_ && rc_.stream) api_->SyncStream(rc_.ctx, rc_.stream);
  }
  void Stop() {
    queue_->Stop();
    for (auto& t : workers_) t.join();
    workers_.clear();
    queue_->Restart();
  }

 private:
  ThreadedEngine* engine_;
  int threads_;
  RunContext rc_;
  DeviceAPI* api_;
  std::unique_ptr<TaskQueue> queue_;
  std::vector<std::thread> workers_;
};

// The default number of cpu(0) workers: the cores divided by the OpenMP
// team a kernel may start (OMP_NUM_THREADS, else the cores), so that workers
// times team size stays within the cores; 1 to 8. Each worker thread owns
// its own OpenMP team, and on 2 cores two teams of 2 took the cores from
// each other (docs/engine.md).
int DefaultCpuWorkers() {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  int team = 1;
#ifdef _OPENMP
  team = std::max(1, omp_get_max_threads());
#endif
  return std::clamp(cores / team, 1, 8);
}

class ThreadedEngine final : public Engine {
 public:
  explicit ThreadedEngine(const EngineOptions& options) : opts_(options) {
    if (opts_.cpu_threads <= 0) opts_.cpu_threads = DefaultCpuWorkers();
    opts_.priority_threads = std::max(1, opts_.priority_threads);
    opts_.device_threads = std::max(1, opts_.device_threads);
    cpu_pool_ = std::make_unique<WorkerPool>(this, opts_.cpu_threads, RunContext{Context::CPU(0)});
    prio_pool_ =
        std::make_unique<WorkerPool>(this, opts_.priority_threads, RunContext{Context::CPU(0)});
    std::string error;
    if (!cpu_pool_->Start(&error) || !prio_pool_->Start(&error))
      Fail(StatusCode::kInternal,
           "engine creation: ", error);  // the members' destructors join what started
  }
  ~ThreadedEngine() override { Stop(); }

  EngineKind kind() const override { return EngineKind::kThreaded; }
  int num_cpu_workers() const override { return opts_.cpu_threads; }
  VarHandle NewVariable() override { return new Var(); }

  void PushAsync(AsyncFn fn, Context ctx, const std::vector<VarHandle>& reads,
                 const std::vector<VarHandle>& writes, int priority, std::string name,
                 FnProperty prop) override {
    const int64_t begin = PushBegin();
    auto op = NewOpr(std::move(name), ctx, reads, writes, priority, prop);
    op->fn = std::move(fn);
    SubmitTimed(op.release(), begin);
  }

  void PushSync(SyncFn fn, Context ctx, const std::vector<VarHandle>& reads,
                const std::vector<VarHandle>& writes, int priority, std::string name,
                FnProperty prop) override {
    const int64_t begin = PushBegin();
    auto op = NewOpr(std::move(name), ctx, reads, writes, priority, prop);
    op->sync_fn = std::move(fn);
    SubmitTimed(op.release(), begin);
  }

  void DeleteVariable(SyncFn on_delete, Context ctx, VarHandle var) override {
    Submit(NewDeleteOpr(std::move(on_delete), ctx, var).release());
  }

  void WaitForVar(VarHandle var) override {
    if (!var) Fail(StatusCode::kInvalidArgument, "WaitForVar: null variable");
    profiler::Scope timed(profiler::Category::kEngine, "WaitForVar");
    if (!var->NoPendingWrite()) {
      CheckNotInsideOp(this, "WaitForVar");
      if (stopped_.load())
        Fail(StatusCode::kInvalidArgument, "WaitForVar: the engine is stopped with work pending");
      struct Signal {
        Mutex mu;
        std::condition_variable cv;
        bool done WEFT_GUARDED_BY(mu) = false;
        std::atomic<bool> posted{false};  // done, for the poll before sleeping
      };
      auto sig = std::make_shared<Signal>();
      auto op = std::make_unique<OprBlock>();
      op->name = "WaitForVar";
      op->reads.push_back(var);
      op->kind = OprKind::kWait;
      op->fn = [sig](RunContext, OnComplete done) {
        // Complete first: the waiter must find the variable idle (e.g. a
        // DeleteVariable right after the wait then runs at once).
        done();
        {
          MutexLock l(&sig->mu);
          sig->done = true;
          sig->posted.store(true, std::memory_order_release);
        }
        sig->cv.notify_all();
      };
      Submit(op.release());
      engine::SpinWait([&] { return sig->posted.load(std::memory_order_acquire); },
                       kWaitSpinBudget);
      MutexLock l(&sig->mu);
      while (!sig->done) l.Wait(&sig->cv);
    }
    if (ErrorRef e = var->error()) e->Deliver();
    WaitDeviceWork(var);  // the last write may still run on a device
  }

  void WaitForAll() override {
    CheckNotInsideOp(this, "WaitForAll");
    profiler::Scope timed(profiler::Category::kEngine, "WaitForAll");
    if (stopped_.load() && pending_.load() > 0)
      Fail(StatusCode::kInvalidArgument, "WaitForAll: the engine is stopped with work pending");
    WaitIdle();
    SyncDeviceStreams();
    errors_.ReportAndClear();
  }

  uint64_t VarVersion(VarHandle var) const override { return var->version(); }
  int64_t BusyNs() const override { return busy_.Total(); }
  void CheckCanWait(const char* what) const override { CheckNotInsideOp(this, what); }
  size_t LoggedErrors() override { return errors_.size(); }

  void Stop() override {
    MutexLock l(&life_mu_);
    if (stopped_.load()) return;
    WaitIdle();
    stopped_.store(true);
    cpu_pool_->Stop();
    prio_pool_->Stop();
    MutexLock dl(&dev_mu_);
    for (auto& kv : dev_pools_) kv.second->Stop();
  }

  void Start() override {
    MutexLock l(&life_mu_);
    if (!stopped_.load() || shutdown_.load()) return;
    std::string error;
    if (!cpu_pool_->Start(&error) || !prio_pool_->Start(&error)) {
      cpu_pool_->Stop();
      prio_pool_->Stop();
      Fail(StatusCode::kInternal, "engine start: ", error);
    }
    {
      MutexLock dl(&dev_mu_);
      for (auto& kv : dev_pools_)
        kv.second->Start(&error);  // one without threads retries on its next op
    }
    stopped_.store(false);
  }

  void Shutdown() override {
    // exit() called inside one of this engine's ops (a library the op
    // calls exits: libgomp does when it cannot create a thread): stopping
    // would wait for that op and join the thread it runs on, a deadlock.
    // Later pushes run inline; the workers end with the process.
    if (RunningOpScope::Current(this)) {
      shutdown_.store(true);
      return;
    }
    Stop();
    shutdown_.store(true);
  }

  // Runs a ready op on the calling thread. With a stream (GPU pools), a
  // synchronous op completes once its work is queued there; ops on other
  // streams and the host are ordered after it by events (device_order.cc).
  void Execute(OprBlock* op, const RunContext& rc, DeviceAPI* api = nullptr) {
    if (op->kind == OprKind::kUser && !op->inherited) op->inherited = FindVarError(op);
    if (op->inherited) {
      AsyncFn().swap(op->fn);  // release captures before waking waiters
      SyncFn().swap(op->sync_fn);
      Complete(op, nullptr);
      return;
    }
    // A WaitForVar probe leaves the device wait to the waiting thread
    // (WaitDeviceWork there), not to the worker that granted it.
    if (op->kind != OprKind::kWait) OrderDeviceWork(op, rc, api);
    op->refs.store(2, std::memory_order_relaxed);
    // The profiler's event of the op is recorded before a synchronous op
    // completes (a waiter it wakes may stop the profiler); an asynchronous
    // op's covers the call that started it.
    const int64_t begin = op->ready_ns >= 0 ? profiler::NowNs() : -1;
    bool recorded = begin < 0;
    {
      RunningOpScope scope(this, op);
      RunOprFn(op, rc, MakeOnComplete(op), [this, op, &rc, begin, &recorded](std::exception_ptr e) {
        if (!recorded) RecordOp(op, rc, begin);
        recorded = true;
        Complete(op, std::move(e));
      });
    }
    if (!recorded) RecordOp(op, rc, begin);  // the block lives until ReleaseOpr below
    ReleaseOpr(op);
  }

 protected:
  void Complete(OprBlock* op, std::exception_ptr error) override {
    ErrorRef box = op->inherited;
    if (error) {
      box = NameError(op->name, error);
      errors_.Add(box);
    }
    std::vector<OprBlock*> ready;
    for (Var* r : op->reads) r->CompleteRead(&ready);
    for (Var* w : op->writes) w->CompleteWrite(box, &ready);
    Var* dead = op->kind == OprKind::kDelete ? op->writes[0] : nullptr;
    ReleaseOpr(op);
    delete dead;
    // Decide inheritance for every newly ready op before any of them runs:
    // a wait probe among them may wake a waiter that clears the error.
    std::vector<OprBlock*> go;
    for (OprBlock* o : ready)
      if (o->wait.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        if (o->kind == OprKind::kUser) o->inherited = FindVarError(o);
        go.push_back(o);
      }
    {
      TaskQueue::CompletionScope completing;
      for (OprBlock* o : go) Dispatch(o);
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      busy_.Stopped(pending_);
      MutexLock l(&finish_mu_);
      finish_cv_.notify_all();
    }
  }

 private:
  void Submit(OprBlock* op) {
    if (pending_.fetch_add(1, std::memory_order_acq_rel) == 0) busy_.Started(pending_);
    const int n = static_cast<int>(op->reads.size() + op->writes.size());
    op->wait.store(n + 1, std::memory_order_relaxed);
    int granted = 0;
    {
      MutexLock l(&push_mu_);
      for (Var* r : op->reads) granted += r->AppendRead(op);
      for (Var* w : op->writes) granted += w->AppendWrite(op);
    }
    if (op->wait.fetch_sub(granted + 1, std::memory_order_acq_rel) == granted + 1) {
      // Ready here (its inputs' writers already finished, or finished while
      // it was being queued): decide inheritance before Submit returns, so a
      // WaitForVar the pusher calls next cannot clear the error first.
      if (op->kind == OprKind::kUser) op->inherited = FindVarError(op);
      Dispatch(op);
    }
  }

  static void RecordOp(const OprBlock* op, const RunContext& rc, int64_t begin) {
    profiler::RecordComplete(profiler::Category::kEngine, op->name, {}, {}, rc.ctx, begin,
                             profiler::NowNs(), begin - op->ready_ns);
  }

  // The start of a push the profiler times (-1: not timed).
  static int64_t PushBegin() {
    return profiler::Active(profiler::Category::kEngine) ? profiler::NowNs() : -1;
  }

  void SubmitTimed(OprBlock* op, int64_t begin) {
    if (begin < 0) return Submit(op);
    std::string name = op->name;  // the block may be gone once submitted
    Submit(op);
    profiler::RecordComplete(profiler::Category::kEngine, "push", name, {},
                             profiler::Scope::NoDevice(), begin, profiler::NowNs());
  }

  void Dispatch(OprBlock* op) {
    if (op->kind == OprKind::kUser && profiler::Active(profiler::Category::kEngine))
      op->ready_ns = profiler::NowNs();
    if (op->kind != OprKind::kUser || shutdown_.load(std::memory_order_relaxed)) {
      Execute(op, RunContext{op->ctx, nullptr});  // waits, deletes and after shutdown: inline
      return;
    }
    if (op->ctx.dev_type == DeviceType::kCPU) {
      if (op->priority > 0 || op->prop == FnProperty::kCpuPrioritized)
        prio_pool_->Push(op);
      else if (op->ctx.dev_id == 0)
        cpu_pool_->Push(op);
      else
        PushToDevicePool(op, false);  // cpu(i), i > 0: its own workers
      return;
    }
    PushToDevicePool(
        op, op->prop == FnProperty::kCopyToDevice || op->prop == FnProperty::kCopyFromDevice);
  }

  void PushToDevicePool(OprBlock* op, bool copy) {
    std::string error;
    if (WorkerPool* pool = DevicePool(op->ctx, copy, &error))
      pool->Push(op);
    else
      FailOpr(op, error);  // Complete prefixes "engine op '<name>' failed: "
  }

  // Fails `op` (not run) with `error`, as if its function had thrown it.
  void FailOpr(OprBlock* op, const std::string& error) {
    AsyncFn().swap(op->fn);
    SyncFn().swap(op->sync_fn);
    Complete(op, std::make_exception_ptr(Error(StatusCode::kInternal, error)));
  }

  // The compute or copy pool of a device (cpu(i) for i > 0 has only a
  // compute pool), created on first use; null with `*error` set when none
  // of its threads could be started (tried again on the next call).
  WorkerPool* DevicePool(Context ctx, bool copy, std::string* error) {
    MutexLock l(&dev_mu_);
    auto& pool = dev_pools_[{ctx, copy}];
    if (pool && !pool->running() && !stopped_.load() && !pool->Start(error)) return nullptr;
    if (!pool) {
      // A GPU pool runs on its own stream: the compute stream, or the copy
      // stream for copies. Without a usable device it gets none (the ops
      // then fail on their own, naming the device).
      RunContext rc{ctx, nullptr};
      DeviceAPI* api = nullptr;
      if (ctx.dev_type != DeviceType::kCPU) {
        try {
          api = FindDeviceAPI(opts_, ctx.dev_type);
          if (api) rc.stream = api->CreateStream(ctx);
        } catch (const Error&) {
          api = nullptr;
          rc.stream = nullptr;
        }
      }
      pool = std::make_unique<WorkerPool>(this, copy ? 1 : opts_.device_threads, rc, api);
      if (!stopped_.load() && !pool->Start(error)) return nullptr;
    }
    return pool.get();
  }

  // Blocks until the work queued on every device stream is done (the ops
  // completed when they queued it).
  void SyncDeviceStreams() {
    MutexLock l(&dev_mu_);
    for (auto& kv : dev_pools_) kv.second->SyncStream();
  }

  void WaitIdle() {
    MutexLock l(&finish_mu_);
    while (pending_.load(std::memory_order_acquire) != 0) l.Wait(&finish_cv_);
  }

  EngineOptions opts_;
  std::unique_ptr<WorkerPool> cpu_pool_, prio_pool_;
  Mutex dev_mu_;
  std::map<std::pair<Context, bool>, std::unique_ptr<WorkerPool>> dev_pools_
      WEFT_GUARDED_BY(dev_mu_);
  Mutex push_mu_;  // orders appends to variable queues
  std::atomic<int64_t> pending_{0};
  BusyClock busy_;
  Mutex finish_mu_;
  std::condition_variable finish_cv_;
  Mutex life_mu_;  // serialises Stop/Start
  std::atomic<bool> stopped_{false};
  std::atomic<bool> shutdown_{false};
  ErrorLog errors_;
};

bool WorkerPool::Start(std::string* error) {
  while (static_cast<int>(workers_.size()) < threads_) {
    try {
      workers_.push_back(StartThread([this] {
        TaskQueue::BindWorkerThread(queue_.get());
        profiler::SetThreadName("engine worker " + rc_.ctx.ToString());
        while (OprBlock* op = queue_->Pop()) engine_->Execute(op, rc_, api_);
      }));
    } catch (const std::system_error& e) {
      if (workers_.empty()) {
        *error =
            StrCat("cannot start a worker thread for ", rc_.ctx.ToString(), " (", e.what(), ")");
        return false;
      }
      break;  // run with the threads that started
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<Engine> MakeThreadedEngine(const EngineOptions& options) {
  return std::make_unique<ThreadedEngine>(options);
}

}  // namespace engine
}  // namespace weft
