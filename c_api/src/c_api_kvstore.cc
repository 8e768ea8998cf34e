// C ABI: weft_kvstore_* and the module/iterator entries of data-parallel
// training (weft/kvstore.h). Calls on one kvstore handle are serialised by
// its mutex (the C++ object is used by one thread at a time).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "c_api_train_internal.h"
#include "weft/kvstore.h"

using weft::capi::CheckNotNull;
using weft::capi::GetObject;

namespace {

std::vector<std::string> Keys(size_t num, const char* const* keys) {
  weft::capi::CheckArray(keys, num, "keys");
  std::vector<std::string> out;
  for (size_t i = 0; i < num; ++i) {
    if (keys[i] == nullptr) weft::Fail(weft::StatusCode::kInvalidArgument, "keys[", i, "] is NULL");
    out.emplace_back(keys[i]);
  }
  return out;
}

}  // namespace

WeftStatus weft_kvstore_create(const char* type, WeftKVStore** out) {
  WEFT_API_BEGIN();
  CheckNotNull(type, "type");
  CheckNotNull(out, "out");
  auto obj = std::make_shared<weft::capi::KVStoreObject>();
  obj->kv = weft::KVStore::Create(type);
  *out = weft::capi::NewHandle<WeftKVStore>(std::move(obj));
  WEFT_API_END();
}

WeftStatus weft_kvstore_type(const WeftKVStore* kv, const char** out) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  CheckNotNull(out, "out");
  *out = obj->kv->type().c_str();  // immutable for the store's life
  WEFT_API_END();
}

WeftStatus weft_kvstore_rank(const WeftKVStore* kv, int* out_rank, int* out_num_workers) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  CheckNotNull(out_rank, "out_rank");
  CheckNotNull(out_num_workers, "out_num_workers");
  *out_rank = obj->kv->rank();
  *out_num_workers = obj->kv->num_workers();
  WEFT_API_END();
}

WeftStatus weft_kvstore_init(WeftKVStore* kv, size_t num, const char* const* keys,
                             WeftNDArray* const* values) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  auto k = Keys(num, keys);
  auto v = weft::capi::ArrayArgs(num, values, "values");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->kv->Init(k, v);
  WEFT_API_END();
}

WeftStatus weft_kvstore_push(WeftKVStore* kv, size_t num, const char* const* keys,
                             WeftNDArray* const* values, int priority) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  auto k = Keys(num, keys);
  auto v = weft::capi::ArrayArgs(num, values, "values");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->kv->Push(k, v, priority);
  WEFT_API_END();
}

WeftStatus weft_kvstore_pull(WeftKVStore* kv, size_t num, const char* const* keys,
                             WeftNDArray* const* outs, int priority) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  auto k = Keys(num, keys);
  auto o = weft::capi::ArrayArgs(num, outs, "outs");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->kv->Pull(k, o, priority);
  WEFT_API_END();
}

WeftStatus weft_kvstore_pushpull(WeftKVStore* kv, size_t num, const char* const* keys,
                                 WeftNDArray* const* values, WeftNDArray* const* outs,
                                 int priority) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  auto k = Keys(num, keys);
  auto v = weft::capi::ArrayArgs(num, values, "values");
  auto o = weft::capi::ArrayArgs(num, outs, "outs");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->kv->PushPull(k, v, o, priority);
  WEFT_API_END();
}

WeftStatus weft_kvstore_set_optimizer(WeftKVStore* kv, const WeftOptimizer* opt) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  auto o = GetObject(opt, "opt");
  std::scoped_lock lock(obj->mu, o->mu);
  obj->kv->SetOptimizer(o->opt);
  obj->queue.reset();
  WEFT_API_END();
}

WeftStatus weft_kvstore_set_updater(WeftKVStore* kv, WeftKVStoreUpdater updater, void* user_data) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->queue.reset();
  if (!updater) {
    obj->kv->SetUpdater(nullptr);
  } else {
    obj->kv->SetUpdater([updater, user_data](const std::string& key, const weft::NDArray& sum,
                                             weft::NDArray* stored) {
      // Handles valid for the call only (`stored` shares the store's
      // storage), freed however the call ends.
      struct Lent {
        WeftNDArray* h = nullptr;
        ~Lent() { weft_ndarray_free(h); }
      } s, st;
      s.h = weft::capi::NewHandle<WeftNDArray>(std::make_shared<weft::NDArray>(sum));
      st.h = weft::capi::NewHandle<WeftNDArray>(std::make_shared<weft::NDArray>(*stored));
      const int rc = updater(key.c_str(), s.h, st.h, user_data);
      if (rc != 0)
        weft::Fail(weft::StatusCode::kInvalidArgument, "kvstore updater for key '", key,
                   "' returned ", rc);
    });
  }
  WEFT_API_END();
}

WeftStatus weft_kvstore_set_updater_queue(WeftKVStore* kv, int on) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->queue.reset();
  if (!on) {
    obj->kv->SetUpdater(nullptr);
  } else {
    auto q = std::make_shared<weft::capi::KVStoreUpdateQueue>();
    obj->kv->SetUpdater(
        [q](const std::string& key, const weft::NDArray& sum, weft::NDArray* stored) {
          std::lock_guard<std::mutex> ql(q->mu);
          q->updates.push_back({key, sum, *stored});
        });
    obj->queue = q;
  }
  WEFT_API_END();
}

WeftStatus weft_kvstore_next_update(WeftKVStore* kv, const char** key, WeftNDArray** sum,
                                    WeftNDArray** stored, int* has) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  CheckNotNull(key, "key");
  CheckNotNull(sum, "sum");
  CheckNotNull(stored, "stored");
  CheckNotNull(has, "has");
  std::lock_guard<std::mutex> lock(obj->mu);
  if (!obj->queue)
    weft::Fail(weft::StatusCode::kInvalidArgument,
               "argument 'kv' has no update queue (call weft_kvstore_set_updater_queue first)");
  weft::capi::KVStoreUpdateQueue& q = *obj->queue;
  std::lock_guard<std::mutex> ql(q.mu);
  if (q.updates.empty()) {
    *has = 0;
  } else {
    auto& u = q.updates.front();
    WeftNDArray* s = weft::capi::NewHandle<WeftNDArray>(std::make_shared<weft::NDArray>(u.sum));
    try {
      *stored = weft::capi::NewHandle<WeftNDArray>(std::make_shared<weft::NDArray>(u.stored));
    } catch (...) {
      weft_ndarray_free(s);
      throw;
    }
    *sum = s;
    q.last_key = std::move(u.key);
    *key = q.last_key.c_str();
    q.updates.pop_front();
    *has = 1;
  }
  WEFT_API_END();
}

WeftStatus weft_kvstore_barrier(WeftKVStore* kv) {
  WEFT_API_BEGIN();
  auto obj = GetObject(kv, "kv");
  std::lock_guard<std::mutex> lock(obj->mu);
  obj->kv->Barrier();
  WEFT_API_END();
}

WeftStatus weft_kvstore_free(WeftKVStore* kv) {
  WEFT_API_BEGIN();
  weft::capi::FreeHandle(kv, "kv");
  WEFT_API_END();
}

WeftStatus weft_module_init_optimizer_kvstore(WeftModule* mod, const WeftOptimizer* opt,
                                              WeftKVStore* kv) {
  WEFT_API_BEGIN();
  auto m = GetObject(mod, "mod");
  auto o = GetObject(opt, "opt");
  auto k = GetObject(kv, "kv");
  std::scoped_lock lock(o->mu, k->mu);
  m->InitOptimizer(o->opt, k->kv);
  WEFT_API_END();
}

WeftStatus weft_data_iter_select_part(WeftDataIter* it, int num_parts, int part_index) {
  WEFT_API_BEGIN();
  auto obj = GetObject(it, "it");
  auto* nd = dynamic_cast<weft::NDArrayIter*>(obj.get());
  if (!nd)
    weft::Fail(weft::StatusCode::kInvalidArgument,
               "argument 'it': only an NDArray iterator selects a part after creation; give "
               "num_parts/part_index when creating this one");
  nd->SelectPart(num_parts, part_index);
  WEFT_API_END();
}

WeftStatus weft_kvstore_finalize(void) {
  WEFT_API_BEGIN();
  weft::KVStore::FinalizeDistributed();
  WEFT_API_END();
}
