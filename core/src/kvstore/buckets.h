// The dist_sync reduction across processes: each pushed key's local sum
// allreduced through the communication lane, small keys fused into buckets
// (one message for many small gradients).
#ifndef WEFT_KVSTORE_BUCKETS_H_
#define WEFT_KVSTORE_BUCKETS_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kvstore/collectives.h"
#include "weft/ndarray.h"

namespace weft {
namespace kvstore {

class Buckets {
 public:
  Buckets(Collectives* comm, size_t bucket_bytes, double timeout_seconds)
      : comm_(comm), bucket_bytes_(bucket_bytes), timeout_(timeout_seconds) {}

  // Registers key `index` (dense, in Init order) of `count` elements of
  // `dtype`. Consecutive keys of one dtype, each smaller than bucket_bytes,
  // share a bucket of at most bucket_bytes.
  void Add(int index, const std::string& name, int64_t count, DType dtype);
  // Marks `index` pushed: the sum across ranks of `source` (this rank's
  // local sum, cpu) is to be written to `target` (cpu; may be source).
  // Once every key of its bucket is pushed, pushes the bucket's allreduce
  // (an engine operation reading the sources and writing the targets; the
  // collective's sequence number is taken now, in program order) and
  // returns the keys it covers, else returns nothing. REQUIRES
  // !IsPending(index) (a key pushed again before its bucket's allreduce:
  // Flush it first).
  std::vector<int> Pushed(int index, NDArray source, NDArray target, int priority);
  // Whether `index` was pushed and its allreduce not pushed yet.
  bool IsPending(int index) const;
  // Pushes the allreduce of the pushed keys of `index`'s bucket, if any
  // (a Pull of a key whose bucket is incomplete). Returns the keys covered.
  std::vector<int> Flush(int index, int priority);
  // Flush of every bucket.
  std::vector<int> FlushAll(int priority);

 private:
  struct Pending {
    int index;
    NDArray source, target;
  };
  struct Bucket {
    std::vector<int> keys;        // in Init order
    std::vector<Pending> pushed;  // since the last allreduce
    size_t bytes = 0;
    int64_t count = 0;
    DType dtype = DType::kFloat32;
    NDArray buffer;  // the fused message (multi-key buckets), made on first use
  };
  std::vector<int> Issue(Bucket* b, int priority);

  Collectives* comm_;
  size_t bucket_bytes_;
  double timeout_;
  std::vector<Bucket> buckets_;
  std::vector<int> bucket_of_;  // key index -> bucket
  std::vector<std::string> names_;
};

}  // namespace kvstore
}  // namespace weft

#endif  // WEFT_KVSTORE_BUCKETS_H_
