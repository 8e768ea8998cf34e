#include "kvstore/buckets.h"

#include <algorithm>
#include <cstring>

#include "weft/engine.h"
#include "weft/status.h"

namespace weft {
namespace kvstore {

void Buckets::Add(int index, const std::string& name, NDArray merged) {
  WEFT_CHECK_EQ(static_cast<size_t>(index), merged_.size());
  const size_t bytes = merged.Bytes();
  const bool small = bytes < bucket_bytes_;
  Bucket* last = buckets_.empty() ? nullptr : &buckets_.back();
  const bool joins = small && last && last->dtype == merged.dtype() && last->bytes < bucket_bytes_ &&
                     last->bytes + bytes <= bucket_bytes_;
  if (!joins) {
    buckets_.emplace_back();
    buckets_.back().dtype = merged.dtype();
    // A key as large as a bucket gets its own and closes it.
    if (!small) buckets_.back().bytes = bucket_bytes_;
  }
  Bucket& b = buckets_.back();
  b.keys.push_back(index);
  if (small) b.bytes += bytes;
  bucket_of_.push_back(static_cast<int>(buckets_.size() - 1));
  merged_.push_back(std::move(merged));
  names_.push_back(name);
}

std::vector<int> Buckets::Pushed(int index, int priority) {
  Bucket& b = buckets_[static_cast<size_t>(bucket_of_[static_cast<size_t>(index)])];
  if (std::find(b.pushed.begin(), b.pushed.end(), index) == b.pushed.end()) b.pushed.push_back(index);
  if (b.pushed.size() < b.keys.size()) return {};
  return Issue(&b, priority);
}

std::vector<int> Buckets::Flush(int index, int priority) {
  return Issue(&buckets_[static_cast<size_t>(bucket_of_[static_cast<size_t>(index)])], priority);
}

std::vector<int> Buckets::FlushAll(int priority) {
  std::vector<int> all;
  for (Bucket& b : buckets_) {
    std::vector<int> keys = Issue(&b, priority);
    all.insert(all.end(), keys.begin(), keys.end());
  }
  return all;
}

std::vector<int> Buckets::Issue(Bucket* b, int priority) {
  std::vector<int> keys;
  keys.swap(b->pushed);
  if (keys.empty()) return keys;
  std::sort(keys.begin(), keys.end());  // the same layout on every rank
  std::vector<NDArray> arrays;
  std::vector<VarHandle> writes;
  int64_t count = 0;
  for (int k : keys) {
    arrays.push_back(merged_[static_cast<size_t>(k)]);
    writes.push_back(arrays.back().var());
    count += arrays.back().Size();
  }
  std::string what = "allreduce of '" + names_[static_cast<size_t>(keys[0])] + "'";
  if (keys.size() > 1) what += StrCat(" and ", keys.size() - 1, " more keys");
  Collectives* comm = comm_;
  const double timeout = timeout_;
  const uint64_t seq = comm->NextSeq();
  if (keys.size() == 1) {
    NDArray m = arrays[0];
    Engine::Get()->PushAsync(
        [=](RunContext, OnComplete done) {
          comm->Allreduce(seq, m.dptr(), m.Size(), m.dtype(), timeout, what, [done](std::exception_ptr e) { done(e); });
        },
        Context::CPU(0), {}, writes, priority, what);
    return keys;
  }
  if (b->buffer.is_none()) {
    int64_t capacity = 0;
    for (int k : b->keys) capacity += merged_[static_cast<size_t>(k)].Size();
    b->buffer = NDArray(Shape{capacity}, Context::CPU(0), b->dtype);
  }
  NDArray buf = b->buffer;
  writes.push_back(buf.var());
  Engine::Get()->PushAsync(
      [=](RunContext, OnComplete done) {
        char* p = static_cast<char*>(buf.dptr());
        for (const NDArray& a : arrays) {
          std::memcpy(p, a.dptr(), a.Bytes());
          p += a.Bytes();
        }
        comm->Allreduce(seq, buf.dptr(), count, buf.dtype(), timeout, what, [=](std::exception_ptr e) {
          if (!e) {
            const char* q = static_cast<const char*>(buf.dptr());
            for (const NDArray& a : arrays) {
              std::memcpy(a.dptr(), q, a.Bytes());
              q += a.Bytes();
            }
          }
          done(e);
        });
      },
      Context::CPU(0), {}, writes, priority, what);
  return keys;
}

}  // namespace kvstore
}  // namespace weft
