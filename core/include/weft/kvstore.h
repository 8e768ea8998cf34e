// KVStore: a key-value store of arrays for data-parallel training, with
// MXNet's names and semantics (python/mxnet/kvstore/kvstore.py).
//
// Keys are strings (MXNet's str keys; an int key is its decimal text).
// Init(keys, values) stores a copy of each value. Push(keys, values) sums
// the values pushed for each key (keys may repeat: the values of one key
// are summed, e.g. the gradients of one parameter on several devices) and,
// for `dist_sync`, across every process; the store then receives the sum
// (without an optimizer) or the optimizer's update of the stored value with
// the sum as gradient (SetOptimizer: MXNet's update_on_kvstore). Pull(keys,
// outs) copies the stored value into each out. Every operation is pushed
// to the engine with read/write dependencies on the arrays, so it returns
// at once and orders itself after the writes of the values it reads (a
// push overlaps with the backward of the layers it does not depend on);
// `priority` is the engine priority (MXNet passes -index).
//
// Types:
//   local      one process; values of a key are summed into a buffer on
//              cpu(0), the store lives there.
//   device     one process, several devices (cpu(i)); each key's sum runs
//              on one of the devices the values live on (the least loaded
//              one, by bytes, at the key's first push), reading the other
//              devices' arrays in place, and the store lives there.
//   dist_sync  one store per process, kept identical across the processes
//              of an MPI job (mpirun -np N): Init broadcasts rank 0's values
//              and checks that every rank initialised the same keys with
//              the same shapes and dtypes (an error names the first
//              difference); a push sums locally, then allreduces the sum
//              across ranks (small keys bucketed, see KVStoreOptions), then
//              every rank applies the same update. MPI calls run on one
//              communication thread in the order the pushes were made, so
//              every rank must make its Init/Push/Barrier calls in the same
//              order (as any data-parallel program does). A collective that
//              does not complete within `timeout_seconds` (a rank died or
//              hung) fails the operation with Error(kInternal) naming the
//              keys, and every later collective fails with it.
//   dist_async and MXNet's parameter-server roles (scheduler, server) are
//   not provided: see docs/distributed.md.
//
// Errors (Error(kInvalidArgument) / kShape, thrown before anything is
// pushed): unknown type, a key pushed or pulled before Init, a key
// initialised twice, a value whose shape or dtype differs from the key's
// initial value, mismatched list lengths, none arrays. Failures inside the
// pushed operations reach the arrays they write (WaitToRead reports them).
//
// Thread-safety: one KVStore is used by one thread at a time.
#ifndef WEFT_KVSTORE_H_
#define WEFT_KVSTORE_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weft/ndarray.h"
#include "weft/optimizer.h"

namespace weft {

struct KVStoreOptions {
  // dist_sync: consecutive keys (in Init order) of one dtype, each smaller
  // than this, are fused into one allreduce of at most this many bytes
  // (0 disables bucketing). A bucket's allreduce starts once every key of
  // it was pushed, or at a Pull/Barrier of one of its keys.
  size_t bucket_bytes = size_t{4} << 20;
  // dist_sync: seconds a collective may take before it fails (<= 0: the
  // WEFT_KVSTORE_TIMEOUT environment variable, else 30).
  double timeout_seconds = 0;
};

class KVStore {
 public:
  // "local", "device" or "dist_sync" (case-insensitive; "dist" and
  // "dist_sync_device" are accepted as dist_sync). Creating a dist_sync
  // store initialises MPI on first use (MPI_Init_thread, finalised at
  // exit); Error(kNotImplemented) when Weft was built without MPI.
  static std::unique_ptr<KVStore> Create(const std::string& type,
                                         const KVStoreOptions& options = {});
  virtual ~KVStore();

  // "local", "device" or "dist_sync".
  virtual const std::string& type() const = 0;
  // This process's rank and the number of processes (0 and 1 when local).
  virtual int rank() const = 0;
  virtual int num_workers() const = 0;

  virtual void Init(const std::vector<std::string>& keys, const std::vector<NDArray>& values) = 0;
  virtual void Push(const std::vector<std::string>& keys, const std::vector<NDArray>& values,
                    int priority = 0) = 0;
  // REQUIRES outs[i] allocated with the key's shape and dtype (any context).
  virtual void Pull(const std::vector<std::string>& keys, const std::vector<NDArray>& outs,
                    int priority = 0) = 0;
  // Push then Pull (outs may alias values).
  void PushPull(const std::vector<std::string>& keys, const std::vector<NDArray>& values,
                const std::vector<NDArray>& outs, int priority = 0);

  // Later pushes update the stored values with `optimizer` (Optimizer::Update
  // with the key's Init position as index and the key as name). Its
  // rescale_grad should cover the global batch (1 / (batch * num_workers)).
  // Replaces an updater (SetUpdater).
  virtual void SetOptimizer(std::shared_ptr<Optimizer> optimizer) = 0;
  // MXNet's set_updater: the program's own optimizer. Once the sum of a
  // key's push is scheduled (at the push; for dist_sync at the push, pull or
  // barrier that sends the key's allreduce), `updater(key, sum, &stored)`
  // runs on the calling thread; it typically invokes ops that write `stored`
  // in place, which the engine orders after the sum. Replaces an optimizer;
  // an empty function restores plain sums. An exception it throws propagates
  // out of that call; the key keeps its stored value.
  using Updater = std::function<void(const std::string& key, const NDArray& sum, NDArray* stored)>;
  virtual void SetUpdater(Updater updater) = 0;
  // Waits for this store's pending work, then (dist_sync) for every rank to
  // reach the barrier. Rethrows a failure of the pending work.
  virtual void Barrier() = 0;

  // Ends distributed use in this process: waits for pending work, stops the
  // communication thread and finalises MPI if Weft initialised it (MPI
  // requires every rank to finalise). An exit hook does this too, but
  // runtimes that exit without running C exit hooks (Go's os.Exit and
  // return from main) must call it before exiting. Later dist_sync
  // collectives fail with an error. Idempotent; a no-op when no dist_sync
  // store was created.
  static void FinalizeDistributed();
};

}  // namespace weft

#endif  // WEFT_KVSTORE_H_
