// Engine: the dependency engine that runs operations asynchronously and in
// parallel while respecting the data dependencies of a serial program.
//
// A variable (VarHandle) is a token for a resource (an NDArray's storage, an
// RNG state). An operation declares the variables it reads and writes; the
// engine keeps a pending queue per variable: consecutive reads run
// concurrently, a write waits for every earlier read and write and blocks
// every later one. A variable's version grows by one per completed write.
//
// Errors: an exception thrown by an operation (or passed to its OnComplete)
// is stored on the variables it writes, with the op's name prefixed to the
// message (an OpPartError names the failing part of the operation instead,
// e.g. one node of an executor's bulked segment). Later operations that read
// such a variable are skipped and inherit the error; so are later writes
// while no wait has reported the error yet. Every WaitForVar of a variable
// holding an error rethrows it, on any thread and as often as it is called:
// a wait never clears a variable's error. A variable's error is released
// when an operation that writes it runs and succeeds (allowed once a wait
// reported the error), or when the variable is deleted. WaitForAll rethrows
// the first error raised since the last WaitForAll that no wait has
// reported yet; it marks them all reported and drops them from its log,
// without clearing them from the variables. Errors a WaitForVar reported
// leave the log too (amortised), so the log holds unreported failures only.
//
// Waits from inside an operation (an engine callback) are refused: on the
// threaded engine a WaitForVar that would block, and on every engine a
// WaitForAll, throw Error(kInvalidArgument) naming the running op, since they
// would wait for the operation itself or for its worker's queue.
//
// A worker thread that cannot be started (the system's thread limit) is a
// status, never a crash: Create throws Error(kInternal) when a pool gets no
// thread at all, a device pool created on first use fails the operations
// pushed to it (the error lands on their variables, like a kernel failure)
// and tries again on the next push; a pool that got some of its threads runs
// with those.
//
// Implementations: NaiveEngine runs every operation synchronously inside
// Push (the reference and debugging engine; pushes are serialised by a lock)
// and ThreadedEngine dispatches ready operations to per-device worker pools:
// `cpu_threads` workers for cpu(0), a priority pool for CPU ops pushed with
// priority > 0, `device_threads` workers of its own for each cpu(i), i > 0
// (created on the first op pushed there; so cpu(1), cpu(2), ... are
// distinct devices whose ops run concurrently with each other and with
// cpu(0), which multi-device placement uses), and per-GPU compute and copy
// pools (copies: kCopyToDevice / kCopyFromDevice) whose RunContext carries
// the device's compute or copy stream in the CUDA build. The global engine
// is chosen by WEFT_ENGINE=naive|threaded (default threaded) with
// WEFT_ENGINE_THREADS cpu(0) workers (default: the cores divided by the
// OpenMP team a kernel may start, OMP_NUM_THREADS or else the cores, 1 to
// 8: one worker on this 2-core machine unless OMP_NUM_THREADS=1).
// NaiveEngine runs every device's ops inline in the pusher.
//
// Design choices (measured, see docs/engine.md): the worker queue is a
// mutex + condition variable deque. A Boost.Lockfree MPMC queue with
// spin-then-sleep measured no consistent gain (an op's cost is its block
// allocation and wake-up, not the queue lock; spinning steals cores from
// kernels) and its fences are unsupported by GCC's TSan. Boost.Fiber
// workers measured ~4x slower per dispatched task (840-990 vs 240 ns) and
// buy nothing while kernels block their OS thread; TSan cannot follow
// Boost.Context stack switches either.
//
// All Engine methods are thread-safe. Shutdown: the global engine is leaked
// like the Runtime; an atexit hook drains pending work and joins the
// workers, after which pushes run synchronously in the caller, so NDArrays
// destroyed during static destruction stay safe.
#ifndef WEFT_ENGINE_H_
#define WEFT_ENGINE_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/device.h"
#include "weft/status.h"

namespace weft {

namespace engine {
class Var;
struct OprBlock;
}  // namespace engine

// An engine variable; created by NewVariable, freed by DeleteVariable.
using VarHandle = engine::Var*;

// Where an operation runs. `stream` is the device stream of the worker
// (null on CPU and until the CUDA backend installs streams).
struct RunContext {
  Context ctx;
  void* stream = nullptr;
};

class Engine;

// An error an operation attributes to a named part of itself: the engine
// reports "engine op '<part>' failed: <message>" rather than the
// operation's own name.
class OpPartError : public Error {
 public:
  OpPartError(StatusCode code, const std::string& msg, std::string part)
      : Error(code, msg), part_(std::move(part)) {}
  const std::string& part() const { return part_; }

 private:
  std::string part_;
};

// Completion callback of an asynchronous operation. Call it exactly once,
// from any thread, with the error when the operation failed.
class OnComplete {
 public:
  void operator()(std::exception_ptr error = nullptr) const;

 private:
  friend class Engine;
  OnComplete(Engine* engine, engine::OprBlock* opr) : engine_(engine), opr_(opr) {}
  Engine* engine_;
  engine::OprBlock* opr_;
};

// An asynchronous function: it must call `on_complete` exactly once, or
// throw before calling it (the throw then counts as completion with error).
using AsyncFn = std::function<void(RunContext, OnComplete)>;
// A synchronous function: it has completed when it returns or throws.
using SyncFn = std::function<void(RunContext)>;

// What an operation does, to choose the worker pool.
enum class FnProperty {
  kNormal,          // compute on ctx's device
  kCopyToDevice,    // host -> device copy (the device's copy pool)
  kCopyFromDevice,  // device -> host copy (the device's copy pool)
  kCpuPrioritized,  // CPU work in the priority pool
};

enum class EngineKind { kNaive, kThreaded };

// The device hooks of a device type (a runtime's Runtime::device_api);
// throws Error(kDevice) when the type is not available.
using DeviceAPIFinder = std::function<DeviceAPI*(DeviceType)>;

struct EngineOptions {
  int cpu_threads = 0;       // CPU workers; 0: cores / OpenMP threads per kernel, 1 to 8
  int priority_threads = 1;  // priority pool workers
  int device_threads = 1;    // workers per GPU and per cpu(i), i > 0 (GPU copy pools get 1)
  // Where the engine finds the hooks of a non-CPU device (its pools' streams,
  // the naive engine's synchronisation after a device op). Empty: no device
  // type is available, so device ops run without a stream.
  DeviceAPIFinder device_apis;
};

class Engine {
 public:
  virtual ~Engine() = default;

  // The process-wide engine, created on first use from Configure's values
  // or else WEFT_ENGINE and WEFT_ENGINE_THREADS; throws
  // Error(kInvalidArgument) for bad values.
  static Engine* Get();
  // Chooses the global engine before its first use (cpu_threads 0: the
  // default). Throws Error(kInvalidArgument) once the engine exists (every
  // NDArray allocation creates it) unless the request matches it.
  static void Configure(EngineKind kind, int cpu_threads);
  // Where the global engine finds device hooks (init/runtime_global.cc
  // points it at the global runtime's when it creates that runtime). Read on
  // each use, so it may be set after the engine exists; until then no device
  // type is available to the engine (EngineOptions::device_apis).
  static void SetGlobalDeviceAPIs(DeviceAPIFinder find);
  // A fresh engine (tests, benchmarks); destroying it waits for its work.
  static std::unique_ptr<Engine> Create(EngineKind kind, const EngineOptions& options = {});
  // Parses "naive" / "threaded"; throws Error(kInvalidArgument).
  static EngineKind ParseKind(const std::string& text);
  // Shuts the process-wide engine down now, as the exit hook would (its
  // queued work first; later work runs on the calling thread); nothing when
  // it was never created. For hosts whose own shutdown waits for the
  // threads that called into them (Mono waits for the engine's workers).
  static void ShutdownGlobal();
  // True on a worker thread of any threaded engine.
  static bool OnWorkerThread();

  virtual EngineKind kind() const = 0;
  // Number of cpu(0) workers (0 for the naive engine).
  virtual int num_cpu_workers() const = 0;

  // A new variable at version 0.
  virtual VarHandle NewVariable() = 0;

  // Schedules `fn` after every earlier operation on `writes` and after
  // every earlier write to `reads`. Duplicates are ignored; a variable in
  // both lists, or a null one, throws Error(kInvalidArgument) naming `name`.
  // REQUIRES: no variable has been passed to DeleteVariable.
  virtual void PushAsync(AsyncFn fn, Context ctx, const std::vector<VarHandle>& reads,
                         const std::vector<VarHandle>& writes, int priority = 0,
                         std::string name = "", FnProperty prop = FnProperty::kNormal) = 0;
  // PushAsync of a function that completes when it returns (or throws).
  virtual void PushSync(SyncFn fn, Context ctx, const std::vector<VarHandle>& reads,
                        const std::vector<VarHandle>& writes, int priority = 0,
                        std::string name = "", FnProperty prop = FnProperty::kNormal) = 0;

  // Runs `on_delete` (may be empty) after every pending use of `var`, then
  // frees the variable; it runs even when the variable holds an error.
  virtual void DeleteVariable(SyncFn on_delete, Context ctx, VarHandle var) = 0;

  // Blocks until every pending write to `var` completed, then rethrows and
  // clears its error. Returns at once when no write is pending.
  virtual void WaitForVar(VarHandle var) = 0;
  // Blocks until every pushed operation completed, then rethrows the first
  // error raised since the last WaitForAll and clears them all.
  virtual void WaitForAll() = 0;

  // Completed writes of `var`.
  virtual uint64_t VarVersion(VarHandle var) const = 0;
  // Wall time, in nanoseconds since the engine was created, during which it
  // had operations pushed and not yet completed. The difference over an
  // interval tells a caller that blocked on something else (a data
  // iterator) the time the engine kept working meanwhile from the time it
  // sat idle.
  virtual int64_t BusyNs() const = 0;

  // Throws Error(kInvalidArgument) naming `what` and the running op when a
  // blocking wait issued now would deadlock (the calling thread runs an
  // operation of this engine on the threaded engine). Callers that push
  // work and then wait for it (NDArray::CopyFromHost) check before pushing.
  virtual void CheckCanWait(const char* what) const = 0;
  // Errors held for WaitForAll (not yet reported by any wait); diagnostics.
  virtual size_t LoggedErrors() = 0;

  // Stop waits for pending work (without rethrowing) and joins the workers;
  // operations pushed while stopped run after Start. WaitForVar/WaitForAll
  // while stopped with work pending throw Error(kInvalidArgument).
  virtual void Stop() = 0;
  virtual void Start() = 0;
  // Stops for good (the process-exit hook of the global engine): drains
  // pending work, joins the workers; later pushes run synchronously in the
  // calling thread. Called inside one of the engine's own ops (exit() from
  // an op) it neither drains nor joins, which would wait for that op.
  virtual void Shutdown() = 0;

 protected:
  OnComplete MakeOnComplete(engine::OprBlock* opr) { return OnComplete(this, opr); }
  // Called through OnComplete.
  virtual void Complete(engine::OprBlock* opr, std::exception_ptr error) = 0;
  friend class OnComplete;
};

}  // namespace weft

#endif  // WEFT_ENGINE_H_
