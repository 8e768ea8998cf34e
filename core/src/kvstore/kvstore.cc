// KVStore (weft/kvstore.h): the store, its local sums and updates; the
// cross-process part is Buckets over the MPI lane.
#include "weft/kvstore.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>
#include <utility>

#include "kvstore/buckets.h"
#include "kvstore/collectives.h"
#include "kvstore/sum.h"
#include "weft/engine.h"
#include "weft/profiler.h"
#include "weft/status.h"

namespace weft {

KVStore::~KVStore() = default;

void KVStore::FinalizeDistributed() { kvstore::Collectives::ShutdownMpi(); }

void KVStore::PushPull(const std::vector<std::string>& keys, const std::vector<NDArray>& values,
                       const std::vector<NDArray>& outs, int priority) {
  Push(keys, values, priority);
  Pull(keys, outs, priority);
}

namespace {

double Timeout(const KVStoreOptions& options) {
  if (options.timeout_seconds > 0) return options.timeout_seconds;
  if (const char* env = std::getenv("WEFT_KVSTORE_TIMEOUT")) {
    char* end = nullptr;
    double t = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(t > 0))
      Fail(StatusCode::kInvalidArgument, "WEFT_KVSTORE_TIMEOUT='", env, "': expected seconds > 0");
    return t;
  }
  return 30;
}

// The keys of a call, for the profiler (empty when it is not recording).
std::string KeysArg(const std::vector<std::string>& keys) {
  if (!profiler::Active(profiler::Category::kKVStore)) return {};
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : ",") + k;
  return s;
}

bool Summable(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kInt32 || t == DType::kInt64;
}

class Store : public KVStore {
 public:
  Store(std::string type, const KVStoreOptions& options)
      : type_(std::move(type)), timeout_(Timeout(options)) {
    if (type_ == "dist_sync") {
      comm_ = kvstore::Collectives::Mpi();
      buckets_ = std::make_unique<kvstore::Buckets>(comm_, options.bucket_bytes, timeout_);
    }
  }

  const std::string& type() const override { return type_; }
  int rank() const override { return comm_ ? comm_->rank() : 0; }
  int num_workers() const override { return comm_ ? comm_->size() : 1; }

  void Init(const std::vector<std::string>& keys, const std::vector<NDArray>& values) override {
    const std::string keys_arg = KeysArg(keys);
    profiler::Scope timed(profiler::Category::kKVStore, "init", keys_arg);
    CheckLengths("Init", keys.size(), values.size(), "values");
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (index_.count(keys[i]))
        Fail(StatusCode::kInvalidArgument, "kvstore Init: key '", keys[i],
             "' is already initialised");
      if (!seen.emplace(keys[i], i).second)
        Fail(StatusCode::kInvalidArgument, "kvstore Init: key '", keys[i], "' given twice");
      CheckArray("Init", keys[i], values[i]);
      if (!Summable(values[i].dtype()))
        Fail(StatusCode::kDType, "kvstore Init: key '", keys[i], "' has dtype ",
             DTypeName(values[i].dtype()), "; the kvstore sums float32, float64, int32 and int64");
    }
    if (comm_) CheckSameKeysOnEveryRank(keys, values);
    for (size_t i = 0; i < keys.size(); ++i) {
      Entry e;
      e.name = keys[i];
      const Context ctx = type_ == "device" ? values[i].ctx() : Context::CPU(0);
      Runtime* rt = values[i].runtime();  // the store lives beside the caller's arrays
      e.store = NDArray(values[i].shape(), ctx, values[i].dtype(), rt);
      e.merged = NDArray(values[i].shape(), ctx, values[i].dtype(), rt);
      values[i].CopyTo(&e.store);
      const int index = static_cast<int>(entries_.size());
      if (comm_) {  // every rank starts from rank 0's values
        NDArray s = e.store;
        kvstore::Collectives* comm = comm_;
        const uint64_t seq = comm->NextSeq();
        const double timeout = timeout_;
        const std::string what = "broadcast of '" + e.name + "'";
        Engine::Get()->PushAsync(
            [=](RunContext, OnComplete done) {
              comm->Broadcast(seq, s.dptr(), s.Bytes(), 0, timeout, what,
                              [done](std::exception_ptr x) { done(x); });
            },
            Context::CPU(0), {}, {s.var()}, 0, what);
        buckets_->Add(index, e.name, e.store.Size(), e.store.dtype());
      }
      index_[e.name] = index;
      entries_.push_back(std::move(e));
    }
  }

  void Push(const std::vector<std::string>& keys, const std::vector<NDArray>& values,
            int priority) override {
    const std::string keys_arg = KeysArg(keys);
    profiler::Scope timed(profiler::Category::kKVStore, "push", keys_arg);
    CheckLengths("Push", keys.size(), values.size(), "values");
    // Group the values by key, in the order the keys first appear.
    std::vector<std::pair<int, std::vector<NDArray>>> groups;
    for (size_t i = 0; i < keys.size(); ++i) {
      const int k = Find("Push", keys[i]);
      CheckMatches("Push", entries_[static_cast<size_t>(k)], values[i], "value");
      auto g =
          std::find_if(groups.begin(), groups.end(), [k](const auto& p) { return p.first == k; });
      if (g == groups.end())
        groups.push_back({k, {values[i]}});
      else
        g->second.push_back(values[i]);
    }
    for (auto& g : groups) {
      const int k = g.first;
      Entry& e = entries_[static_cast<size_t>(k)];
      if (type_ == "device" && !e.placed) Place(&e, g.second);
      if (!comm_) {
        kvstore::PushSum(g.second, &e.merged, priority, "kvstore push '" + e.name + "'");
        Apply(k);
        continue;
      }
      if (buckets_->IsPending(k))  // pushed again before its bucket went out
        for (int j : buckets_->Flush(k, priority)) Apply(j);
      // One cpu value is allreduced straight from where it is; several are
      // summed locally first.
      const NDArray& v = g.second[0];
      const bool direct = g.second.size() == 1 && v.ctx().dev_type == DeviceType::kCPU;
      if (!direct) kvstore::PushSum(g.second, &e.merged, priority, "kvstore push '" + e.name + "'");
      for (int j : buckets_->Pushed(k, direct ? v : e.merged, e.merged, priority)) Apply(j);
    }
  }

  void Pull(const std::vector<std::string>& keys, const std::vector<NDArray>& outs,
            int priority) override {
    const std::string keys_arg = KeysArg(keys);
    profiler::Scope timed(profiler::Category::kKVStore, "pull", keys_arg);
    CheckLengths("Pull", keys.size(), outs.size(), "outs");
    for (size_t i = 0; i < keys.size(); ++i)
      CheckMatches("Pull", entries_[static_cast<size_t>(Find("Pull", keys[i]))], outs[i], "out");
    for (size_t i = 0; i < keys.size(); ++i) {
      const int k = Find("Pull", keys[i]);
      if (comm_)
        for (int j : buckets_->Flush(k, priority)) Apply(j);
      NDArray out = outs[i];
      entries_[static_cast<size_t>(k)].store.CopyTo(&out);
    }
  }

  void SetOptimizer(std::shared_ptr<Optimizer> optimizer) override {
    optimizer_ = std::move(optimizer);
    updater_ = nullptr;
  }

  void SetUpdater(Updater updater) override {
    updater_ = std::move(updater);
    optimizer_ = nullptr;
  }

  void Barrier() override {
    if (comm_)
      for (int k : buckets_->FlushAll(0)) Apply(k);
    for (const Entry& e : entries_) e.store.WaitToRead();
    if (comm_) comm_->Barrier(comm_->NextSeq(), timeout_);
  }

 private:
  struct Entry {
    std::string name;
    NDArray store;        // the value
    NDArray merged;       // the sum of the last push (same context as store)
    bool placed = false;  // device: store moved to the device that sums
  };

  // The store takes the sum (the two buffers swap roles: no copy; the
  // engine orders the next sum into the old store after its readers), or
  // the updater's or the optimizer's step with it.
  void Apply(int k) {
    Entry& e = entries_[static_cast<size_t>(k)];
    if (updater_)
      updater_(e.name, e.merged, &e.store);
    else if (optimizer_)
      optimizer_->Update(k, e.name, &e.store, e.merged);
    else
      std::swap(e.store, e.merged);
  }

  // device: the key's sum and store go to the least loaded device among
  // those its values live on.
  void Place(Entry* e, const std::vector<NDArray>& values) {
    Context best = values[0].ctx();
    for (const NDArray& v : values)
      if (load_[v.ctx()] < load_[best]) best = v.ctx();
    load_[best] += e->store.Bytes();
    e->placed = true;
    if (best == e->store.ctx()) return;
    NDArray store(e->store.shape(), best, e->store.dtype(), e->store.runtime());
    e->store.CopyTo(&store);
    e->store = store;
    e->merged = NDArray(e->store.shape(), best, e->store.dtype(), e->store.runtime());
  }

  int Find(const char* what, const std::string& key) const {
    auto it = index_.find(key);
    if (it == index_.end())
      Fail(StatusCode::kInvalidArgument, "kvstore ", what, ": key '", key,
           "' was not initialised (call Init first)");
    return it->second;
  }

  static void CheckLengths(const char* what, size_t keys, size_t arrays, const char* name) {
    if (keys != arrays)
      Fail(StatusCode::kInvalidArgument, "kvstore ", what, ": ", keys, " keys but ", arrays, " ",
           name);
  }

  static void CheckArray(const char* what, const std::string& key, const NDArray& a) {
    if (a.is_none())
      Fail(StatusCode::kInvalidArgument, "kvstore ", what, ": the array for key '", key,
           "' is empty (none)");
  }

  static void CheckMatches(const char* what, const Entry& e, const NDArray& a, const char* role) {
    CheckArray(what, e.name, a);
    if (a.shape() != e.store.shape() || a.dtype() != e.store.dtype())
      Fail(StatusCode::kShape, "kvstore ", what, ": key '", e.name, "' holds ", e.store.shape(),
           " ", DTypeName(e.store.dtype()), ", the ", role, " given is ", a.shape(), " ",
           DTypeName(a.dtype()));
  }

  // Every rank must initialise the same keys, shapes and dtypes, in the
  // same order: the allreduces pair them by position.
  void CheckSameKeysOnEveryRank(const std::vector<std::string>& keys,
                                const std::vector<NDArray>& values) {
    std::vector<std::string> mine;
    std::ostringstream all;
    for (size_t i = 0; i < keys.size(); ++i) {
      std::ostringstream one;
      one << "'" << keys[i] << "' " << values[i].shape() << " " << DTypeName(values[i].dtype());
      mine.push_back(one.str());
      all << one.str() << "\n";
    }
    const uint64_t seq = comm_->NextSeq();
    comm_->NextSeq();  // Allgather uses two
    const std::vector<std::string> ranks = comm_->Allgather(seq, all.str(), timeout_);
    for (size_t r = 0; r < ranks.size(); ++r) {
      if (ranks[r] == all.str()) continue;
      std::vector<std::string> theirs;
      std::istringstream in(ranks[r]);
      for (std::string line; std::getline(in, line);) theirs.push_back(line);
      size_t i = 0;
      while (i < mine.size() && i < theirs.size() && mine[i] == theirs[i]) ++i;
      Fail(StatusCode::kInvalidArgument, "kvstore Init: ranks disagree on key ", i, ": rank ",
           rank(), " has ", i < mine.size() ? mine[i] : "no key", ", rank ", r, " has ",
           i < theirs.size() ? theirs[i] : "no key",
           " (every rank must Init the same keys, shapes and dtypes in the same order)");
    }
  }

  std::string type_;
  double timeout_;
  kvstore::Collectives* comm_ = nullptr;
  std::unique_ptr<kvstore::Buckets> buckets_;
  std::map<std::string, int> index_;
  std::vector<Entry> entries_;
  std::shared_ptr<Optimizer> optimizer_;
  Updater updater_;
  std::map<Context, size_t> load_;  // device: bytes placed per device
};

}  // namespace

std::unique_ptr<KVStore> KVStore::Create(const std::string& type, const KVStoreOptions& options) {
  std::string t = type;
  std::transform(t.begin(), t.end(), t.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (t == "dist" || t == "dist_sync_device") t = "dist_sync";
  if (t == "dist_async" || t == "dist_device_async")
    Fail(StatusCode::kNotImplemented, "kvstore type '", type,
         "' is not provided (no parameter server): use dist_sync (see docs/distributed.md)");
  if (t != "local" && t != "device" && t != "dist_sync")
    Fail(StatusCode::kInvalidArgument, "unknown kvstore type '", type,
         "' (expected local, device or dist_sync)");
  return std::make_unique<Store>(t, options);
}

}  // namespace weft
