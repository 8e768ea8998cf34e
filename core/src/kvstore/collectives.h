// The communication lane of the dist_sync KVStore: collectives across the
// processes of an MPI job, run on one communication thread.
//
// Collectives are numbered in program order by the caller (NextSeq) and the
// lane issues them strictly in that order, whatever order they are
// submitted in: engine operations submit them as their inputs become ready,
// which differs between ranks, while MPI needs every rank to issue the
// same collectives in the same order. Issued collectives are non-blocking
// MPI operations the lane thread polls (MPI_Test), so many progress at
// once; `done` runs on the lane thread when one completes or fails. A
// collective still incomplete `timeout_seconds` after it was issued fails
// with Error(kInternal) naming it ("a rank died or hung"); the lane is then
// broken and fails every later collective at once (MPI gives no way to
// cancel a collective).
#ifndef WEFT_KVSTORE_COLLECTIVES_H_
#define WEFT_KVSTORE_COLLECTIVES_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "weft/dtype.h"

namespace weft {
namespace kvstore {

using Done = std::function<void(std::exception_ptr)>;

class Collectives {
 public:
  // The process-wide MPI lane, started on first use (initialises MPI unless
  // the program already did; finalises it at exit if it initialised it).
  // Error(kNotImplemented) when Weft was built without MPI, Error(kInternal)
  // when MPI cannot start or provides too little thread support.
  static Collectives* Mpi();
  // Finishes the MPI lane now if it was started: waits for the engine,
  // drains the lane and finalises MPI if Weft initialised it. Later
  // collectives fail with an error. Idempotent; the exit hook calls it too
  // (programs whose runtime exits without running C exit hooks, like Go's,
  // must call it: KVStore::FinalizeDistributed).
  static void ShutdownMpi();

  virtual ~Collectives() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Reserves the next sequence number (call in program order, the same
  // order on every rank).
  virtual uint64_t NextSeq() = 0;
  // recv = the sum across ranks of every rank's `count` elements at send
  // (send == recv: in place). REQUIRES both valid until done runs. `what`
  // names the collective in errors.
  virtual void Allreduce(uint64_t seq, const void* send, void* recv, int64_t count, DType dtype,
                         double timeout_seconds, std::string what, Done done) = 0;
  // `bytes` of rank `root`'s buf into every rank's buf.
  virtual void Broadcast(uint64_t seq, void* buf, size_t bytes, int root, double timeout_seconds,
                         std::string what, Done done) = 0;
  // Blocking: every rank's `text`, indexed by rank. Uses two sequence
  // numbers (lengths, then texts): pass the first of two reserved ones.
  virtual std::vector<std::string> Allgather(uint64_t seq, const std::string& text,
                                             double timeout_seconds) = 0;
  // Blocking barrier.
  virtual void Barrier(uint64_t seq, double timeout_seconds) = 0;
};

}  // namespace kvstore
}  // namespace weft

#endif  // WEFT_KVSTORE_COLLECTIVES_H_
