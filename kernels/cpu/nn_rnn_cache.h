// Hands the buffers of a training-mode RNN forward sweep to the matching
// _backward_RNN call, so that the backward need not rerun the sweep (the
// op itself is stateless, like every weft op). The forward stores its
// RnnWork together with a copy of its inputs' bytes and a key of its
// configuration; the backward takes the entry whose key and input bytes
// are identical to its own (an exact comparison, no hashing), and reruns
// the sweep when there is none. At most kMaxEntries entries and
// kMaxBytes of buffers are kept, oldest dropped first (a training forward
// with no backward, e.g. evaluation in training mode, just ages out).
// Thread-safe (one mutex per dtype).
#ifndef WEFT_KERNELS_CPU_NN_RNN_CACHE_H_
#define WEFT_KERNELS_CPU_NN_RNN_CACHE_H_

#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cpu/nn_rnn.h"
#include "weft/blob.h"
#include "weft/mutex.h"

namespace weft {
namespace cpu {

template <typename T>
class RnnWorkCache {
 public:
  static constexpr size_t kMaxEntries = 8;
  static constexpr size_t kMaxBytes = size_t{1} << 30;

  static RnnWorkCache& Get() {
    static RnnWorkCache* cache =
        new RnnWorkCache();  // never destroyed (used at exit by engine threads)
    return *cache;
  }

  // Stores `work` for the inputs `in` (their bytes are copied).
  void Put(std::string key, const std::vector<TBlob>& in, RnnWork<T> work, size_t work_bytes) {
    Entry e;
    e.key = std::move(key);
    e.bytes = work_bytes;
    for (const TBlob& b : in) {
      const char* p = static_cast<const char*>(b.dptr);
      e.inputs.emplace_back(p, p + b.Bytes());
      e.bytes += b.Bytes();
    }
    if (e.bytes > kMaxBytes) return;
    e.work = std::move(work);
    MutexLock lock(&mu_);
    bytes_ += e.bytes;
    entries_.push_back(std::move(e));
    while (entries_.size() > kMaxEntries || bytes_ > kMaxBytes) {
      bytes_ -= entries_.front().bytes;
      entries_.pop_front();
    }
  }

  // Moves out the entry matching `key` and the bytes of `in`; false if none.
  bool Take(const std::string& key, const std::vector<TBlob>& in, RnnWork<T>* work) {
    MutexLock lock(&mu_);
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      if (it->key != key || it->inputs.size() != in.size()) continue;
      bool same = true;
      for (size_t i = 0; i < in.size() && same; ++i)
        same = it->inputs[i].size() == in[i].Bytes() &&
               std::memcmp(it->inputs[i].data(), in[i].dptr, in[i].Bytes()) == 0;
      if (!same) continue;
      *work = std::move(it->work);
      bytes_ -= it->bytes;
      entries_.erase(std::next(it).base());
      return true;
    }
    return false;
  }

 private:
  struct Entry {
    std::string key;
    std::vector<std::vector<char>> inputs;
    RnnWork<T> work;
    size_t bytes = 0;
  };
  Mutex mu_;
  std::deque<Entry> entries_ WEFT_GUARDED_BY(mu_);
  size_t bytes_ WEFT_GUARDED_BY(mu_) = 0;
};

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_RNN_CACHE_H_
