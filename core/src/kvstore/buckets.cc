#include "kvstore/buckets.h"

#include <algorithm>
#include <cstring>

#include "weft/engine.h"
#include "weft/profiler.h"
#include "weft/status.h"

namespace weft {
namespace kvstore {

namespace {

int64_t AllreduceBegin() {
  return profiler::Active(profiler::Category::kKVStore) ? profiler::NowNs() : -1;
}

// An allreduce as a kvstore event on the thread that completes it.
void AllreduceEnd(int64_t begin, const std::string& what, int64_t count) {
  if (begin >= 0)
    profiler::RecordComplete(profiler::Category::kKVStore, "allreduce", what, {},
                             profiler::Scope::NoDevice(), begin, profiler::NowNs(), count);
}

}  // namespace

void Buckets::Add(int index, const std::string& name, int64_t count, DType dtype) {
  WEFT_CHECK_EQ(static_cast<size_t>(index), names_.size());
  const size_t bytes = static_cast<size_t>(count) * DTypeSize(dtype);
  const bool small = bytes < bucket_bytes_;
  Bucket* last = buckets_.empty() ? nullptr : &buckets_.back();
  const bool joins = small && last && last->dtype == dtype && last->bytes + bytes <= bucket_bytes_;
  if (!joins) {
    buckets_.emplace_back();
    buckets_.back().dtype = dtype;
    // A key as large as a bucket gets its own and closes it.
    if (!small) buckets_.back().bytes = bucket_bytes_;
  }
  Bucket& b = buckets_.back();
  b.keys.push_back(index);
  b.count += count;
  if (small) b.bytes += bytes;
  bucket_of_.push_back(static_cast<int>(buckets_.size() - 1));
  names_.push_back(name);
}

std::vector<int> Buckets::Pushed(int index, NDArray source, NDArray target, int priority) {
  Bucket& b = buckets_[static_cast<size_t>(bucket_of_[static_cast<size_t>(index)])];
  WEFT_CHECK(!IsPending(index)) << "key " << names_[static_cast<size_t>(index)]
                                << " pushed twice (Flush first)";
  b.pushed.push_back({index, std::move(source), std::move(target)});
  if (b.pushed.size() < b.keys.size()) return {};
  return Issue(&b, priority);
}

bool Buckets::IsPending(int index) const {
  const Bucket& b = buckets_[static_cast<size_t>(bucket_of_[static_cast<size_t>(index)])];
  return std::any_of(b.pushed.begin(), b.pushed.end(),
                     [index](const Pending& p) { return p.index == index; });
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
  std::vector<Pending> pushed;
  pushed.swap(b->pushed);
  if (pushed.empty()) return {};
  // The same layout on every rank.
  std::sort(pushed.begin(), pushed.end(),
            [](const Pending& x, const Pending& y) { return x.index < y.index; });
  std::vector<int> keys;
  std::vector<VarHandle> reads, writes;
  int64_t count = 0;
  for (const Pending& p : pushed) {
    keys.push_back(p.index);
    if (p.source.var() != p.target.var()) reads.push_back(p.source.var());
    writes.push_back(p.target.var());
    count += p.target.Size();
  }
  std::string what = "allreduce of '" + names_[static_cast<size_t>(keys[0])] + "'";
  if (keys.size() > 1) what += StrCat(" and ", keys.size() - 1, " more keys");
  Collectives* comm = comm_;
  const double timeout = timeout_;
  const uint64_t seq = comm->NextSeq();
  if (pushed.size() == 1) {  // straight from the source into the target
    const NDArray src = pushed[0].source, dst = pushed[0].target;
    Engine::Get()->PushAsync(
        [=](RunContext, OnComplete done) {
          const int64_t begin = AllreduceBegin();
          comm->Allreduce(seq, src.dptr(), dst.dptr(), dst.Size(), dst.dtype(), timeout, what,
                          [done, begin, what, count](std::exception_ptr e) {
                            AllreduceEnd(begin, what, count);
                            done(e);
                          });
        },
        Context::CPU(0), reads, writes, priority, what);
    return keys;
  }
  if (b->buffer.is_none())  // from the runtime of the arrays it carries
    b->buffer = NDArray(Shape{b->count}, Context::CPU(0), b->dtype, pushed[0].target.runtime());
  NDArray buf = b->buffer;
  writes.push_back(buf.var());
  Engine::Get()->PushAsync(
      [=](RunContext, OnComplete done) {
        const int64_t begin = AllreduceBegin();
        char* p = static_cast<char*>(buf.dptr());
        for (const Pending& x : pushed) {
          std::memcpy(p, x.source.dptr(), x.source.Bytes());
          p += x.source.Bytes();
        }
        comm->Allreduce(seq, buf.dptr(), buf.dptr(), count, buf.dtype(), timeout, what,
                        [=](std::exception_ptr e) {
                          if (!e) {
                            const char* q = static_cast<const char*>(buf.dptr());
                            for (const Pending& x : pushed) {
                              std::memcpy(x.target.dptr(), q, x.target.Bytes());
                              q += x.target.Bytes();
                            }
                          }
                          AllreduceEnd(begin, what, count);
                          done(e);
                        });
      },
      Context::CPU(0), reads, writes, priority, what);
  return keys;
}

}  // namespace kvstore
}  // namespace weft
