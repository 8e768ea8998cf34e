// Internals shared by the engines: variables with their pending queues,
// operation blocks and the error boxes that carry a failure from an op to
// the variables it writes. Everything here is internal to core/src/engine.
#ifndef WEFT_CORE_SRC_ENGINE_ENGINE_IMPL_H_
#define WEFT_CORE_SRC_ENGINE_ENGINE_IMPL_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/thread_budget.h"
#include "weft/engine.h"
#include "weft/mutex.h"
#include "weft/status.h"

namespace weft {
namespace engine {

// A failure shared by every variable an op (and the ops skipped after it)
// wrote. It keeps the status code and message rather than the exception
// object: every wait throws its own fresh weft::Error, so threads waiting
// on the same failure never touch one exception object concurrently.
// `delivered` turns true once a wait (WaitForVar, WaitForAll) has reported
// it to a caller. Thread-safe.
class ErrorBox {
 public:
  ErrorBox(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool delivered() const { return delivered_.load(std::memory_order_acquire); }
  [[noreturn]] void Throw() const { throw Error(code_, message_); }
  // Marks the error reported and throws it.
  [[noreturn]] void Deliver() {
    MarkDelivered();
    Throw();
  }
  void MarkDelivered() { delivered_.store(true, std::memory_order_release); }

 private:
  const StatusCode code_;
  const std::string message_;
  std::atomic<bool> delivered_{false};
};
using ErrorRef = std::shared_ptr<ErrorBox>;

// What an operation is, beyond its function.
enum class OprKind : uint8_t {
  kUser,    // skipped when a variable holds an error
  kWait,    // WaitForVar probe: never skipped, runs inline
  kDelete,  // DeleteVariable: never skipped, runs inline, frees writes[0]
};

struct OprBlock {
  AsyncFn fn;      // set for PushAsync
  SyncFn sync_fn;  // set for PushSync and DeleteVariable (may be empty there)
  Context ctx;
  std::vector<Var*> reads, writes;
  std::string name;
  int priority = 0;
  FnProperty prop = FnProperty::kNormal;
  OprKind kind = OprKind::kUser;
  // Variables not yet granted plus one guard held by the pusher.
  std::atomic<int> wait{0};
  // The error inherited from a variable (set when the op is skipped).
  ErrorRef inherited;
  // Owners of the block: the completion, plus the executing thread while
  // an async function runs (it may complete before returning).
  std::atomic<int> refs{1};
  // When it became ready, for the profiler (-1: not profiled).
  int64_t ready_ns = -1;
};

// std::chrono::steady_clock's time since its epoch, in nanoseconds
// (BusyClock, the thread budget's sampling).
inline int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Engine::BusyNs: the wall time with work pending. An engine calls
// Started after its pending count left 0 and Stopped after it returned to
// 0; each reconciles with the count's current value under the lock, so a
// 1 -> 0 and a 0 -> 1 racing on two threads never count a gap twice (at
// worst a gap of a few instructions counts as busy). Thread-safe.
class BusyClock {
 public:
  void Started(const std::atomic<int64_t>& pending) WEFT_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (pending.load(std::memory_order_acquire) > 0 && !busy_) busy_ = true, start_ = SteadyNowNs();
  }
  void Stopped(const std::atomic<int64_t>& pending) WEFT_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (pending.load(std::memory_order_acquire) == 0 && busy_)
      busy_ = false, total_ += SteadyNowNs() - start_;
  }
  int64_t Total() const WEFT_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    return total_ + (busy_ ? SteadyNowNs() - start_ : 0);
  }

 private:
  mutable Mutex mu_;
  bool busy_ WEFT_GUARDED_BY(mu_) = false;
  int64_t start_ WEFT_GUARDED_BY(mu_) = 0;
  int64_t total_ WEFT_GUARDED_BY(mu_) = 0;
};

// Drops one owner of `op`; the last one deletes it.
inline void ReleaseOpr(OprBlock* op) {
  if (op->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete op;
}

// Device work an op queued on a stream and not known to be done yet: an
// event recorded there after the op (device_order.cc). Copies share the
// event; the last one frees it.
struct StreamMark {
  std::shared_ptr<void> event;
  void* stream = nullptr;
  Context ctx;
  DeviceAPI* api = nullptr;
};

// A variable and its pending queue (the seed's algorithm). Ops are granted
// in push order; reads next to each other are granted together.
class Var {
 public:
  // Queues `op` as a reader; true when it is granted at once.
  bool AppendRead(OprBlock* op);
  // Queues `op` as a writer; true when it is granted at once.
  bool AppendWrite(OprBlock* op);
  // A granted read finished; appends newly granted ops to `ready`.
  void CompleteRead(std::vector<OprBlock*>* ready);
  // A granted write finished: bumps the version, replaces the variable's
  // error by `error` (null: the op ran and succeeded, which releases a
  // previous error) and appends newly granted ops to `ready`.
  void CompleteWrite(const ErrorRef& error, std::vector<OprBlock*>* ready);
  // True when no write is running or queued.
  bool NoPendingWrite();
  // The variable's error, or null.
  ErrorRef error();
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

  // The device work queued on the variable and not known to be done, at
  // most one mark per stream (a later mark on a stream covers the earlier
  // ones). A granted op sees every mark of the ops before it.
  bool has_marks() const { return marked_.load(std::memory_order_acquire); }
  std::vector<StreamMark> marks();
  // After a write ordered after every mark: `m` replaces them all (an
  // empty mark: nothing is left queued).
  void SetWriteMark(StreamMark m);
  // After a read: `m` replaces the mark of its stream.
  void AddReadMark(StreamMark m);
  // Drops those of `done` still held (their work is known to be done).
  void DropMarks(const std::vector<StreamMark>& done);

 private:
  struct Pending {
    OprBlock* op;
    bool write;
  };
  // Grants leading reads, or a leading write when nothing runs.
  void GrantLocked(std::vector<OprBlock*>* ready) WEFT_REQUIRES(mu_);

  Mutex mu_;
  std::vector<Pending> queue_ WEFT_GUARDED_BY(mu_);  // entries from head_ on
  size_t head_ WEFT_GUARDED_BY(mu_) = 0;
  int running_reads_ WEFT_GUARDED_BY(mu_) = 0;
  bool writing_ WEFT_GUARDED_BY(mu_) = false;
  ErrorRef error_ WEFT_GUARDED_BY(mu_);
  std::atomic<uint64_t> version_{0};
  std::vector<StreamMark> marks_ WEFT_GUARDED_BY(mu_);
  std::atomic<bool> marked_{false};  // !marks_.empty()
};

// A new user op block; throws like SetVars.
std::unique_ptr<OprBlock> NewOpr(std::string name, Context ctx, const std::vector<VarHandle>& reads,
                                 const std::vector<VarHandle>& writes, int priority,
                                 FnProperty prop);
// The DeleteVariable block of `var`.
std::unique_ptr<OprBlock> NewDeleteOpr(SyncFn on_delete, Context ctx, VarHandle var);

// Runs `op`'s function on the calling thread; `complete` is called with
// the failure (once, here for sync functions, via OnComplete for async).
template <typename Complete>
void RunOprFn(OprBlock* op, const RunContext& rc, OnComplete on_complete, Complete complete) {
  if (rc.ctx.dev_type == DeviceType::kCPU) ApplyThreadBudget();  // the OpenMP team it gets
  if (op->fn) {
    try {
      op->fn(rc, on_complete);
    } catch (...) {
      complete(std::current_exception());
    }
    return;
  }
  std::exception_ptr error;
  try {
    if (op->sync_fn) op->sync_fn(rc);
  } catch (...) {
    error = std::current_exception();
  }
  // Drop the function (and what it captured, e.g. NDArray storage) before
  // completing, so a waiter woken by the completion sees it released.
  SyncFn().swap(op->sync_fn);
  complete(error);
}

// Orders `op`'s function (when it has one) after the device work its
// variables still have queued elsewhere, and marks the work it queues on
// its own stream instead of waiting for it (device_order.cc). `rc` and
// `api` are the pool's: a stream and its device, or none (CPU, inline).
void OrderDeviceWork(OprBlock* op, const RunContext& rc, DeviceAPI* api);
// Blocks the host until the device work queued on `var` is done.
void WaitDeviceWork(Var* var);

// Fills `op`'s var lists from the user's, dropping duplicates; throws
// Error(kInvalidArgument) for a null variable or one in both lists.
void SetVars(OprBlock* op, const std::vector<VarHandle>& reads,
             const std::vector<VarHandle>& writes);

// The box for `error` with the op name prefixed to its message (code kept
// for weft::Error, kInternal for anything else).
ErrorRef NameError(const std::string& op_name, std::exception_ptr error);

// The error a user op must inherit (and be skipped for), or null: the
// first error of a variable it reads, else the first not yet delivered
// error of a variable it writes. A write to a variable whose error was
// already reported runs: it overwrites the failed content, and its success
// releases the error (Var::CompleteWrite).
ErrorRef FindVarError(OprBlock* op);

// The errors raised and not yet reported by WaitForAll. Entries delivered
// by a WaitForVar are pruned (amortised, in Add) so that failures reported
// one by one do not accumulate; the variables still hold their errors.
class ErrorLog {
 public:
  void Add(const ErrorRef& e);
  // Empties the log; marks every entry delivered and rethrows the first
  // one no WaitForVar had reported yet.
  void ReportAndClear();
  size_t size();

 private:
  Mutex mu_;
  std::vector<ErrorRef> errors_ WEFT_GUARDED_BY(mu_);
  size_t prune_at_ WEFT_GUARDED_BY(mu_) = 64;
};

// Marks the calling thread as running `op` of `engine` for its lifetime
// (restoring the previous mark), so that a wait issued from inside the op's
// function can be refused instead of deadlocking.
class RunningOpScope {
 public:
  RunningOpScope(const Engine* engine, const OprBlock* op);
  ~RunningOpScope();
  RunningOpScope(const RunningOpScope&) = delete;
  RunningOpScope& operator=(const RunningOpScope&) = delete;
  // The op `engine` runs on this thread, or null.
  static const OprBlock* Current(const Engine* engine);

 private:
  const Engine* prev_engine_;
  const OprBlock* prev_op_;
};

// Throws Error(kInvalidArgument) when the calling thread runs an op of
// `engine`: `what` (a wait) would wait for that op or its worker.
void CheckNotInsideOp(const Engine* engine, const char* what);

// Starts a thread running `fn`; throws std::system_error as the std::thread
// constructor does when the system refuses one.
std::thread StartThread(std::function<void()> fn);
// Test hook: thread starts number `first` to `first + count - 1` from now
// (1 is the next) through StartThread fail with std::system_error(EAGAIN);
// first 0 turns it off. Internal (not exported from libweft.so).
void SetThreadStartFailureForTesting(int first, int count = 1);

// options.device_apis(t), or null when it is empty or `t` is not available.
DeviceAPI* FindDeviceAPI(const EngineOptions& options, DeviceType t);

std::unique_ptr<Engine> MakeNaiveEngine(const EngineOptions& options);
std::unique_ptr<Engine> MakeThreadedEngine(const EngineOptions& options);

}  // namespace engine
}  // namespace weft

#endif  // WEFT_CORE_SRC_ENGINE_ENGINE_IMPL_H_
