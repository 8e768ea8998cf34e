// Ordering of device work by events instead of waits (engine_impl.h).
//
// An op of a GPU compute pool completes once its work is queued on the
// pool's stream: an event recorded there marks the variables it read and
// wrote. An op that runs later on the same stream needs nothing (the
// stream keeps order); one on another stream (the copy stream) makes its
// stream wait for the marks; one without a stream (CPU ops, waits,
// deletes) blocks the host until they are done, so host code and freed
// memory never race the device. Copy pools still wait for their stream:
// their host buffers must be complete when the op is.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "engine/engine_impl.h"

namespace weft {
namespace engine {
namespace {

bool AnyMarks(const OprBlock* op) {
  auto marked = [](const Var* v) { return v->has_marks(); };
  return std::any_of(op->reads.begin(), op->reads.end(), marked) ||
         std::any_of(op->writes.begin(), op->writes.end(), marked);
}

void HostWait(Var* v) {
  if (!v->has_marks()) return;
  const std::vector<StreamMark> marks = v->marks();
  for (const StreamMark& m : marks) m.api->SyncEvent(m.ctx, m.event.get());
  v->DropMarks(marks);
}

void Await(const OprBlock* op, const RunContext& rc, DeviceAPI* api) {
  const bool on_stream = api && rc.stream;
  auto await = [&](Var* v) {
    if (!on_stream) return HostWait(v);
    if (!v->has_marks()) return;
    for (const StreamMark& m : v->marks())
      if (m.stream != rc.stream) api->StreamWaitEvent(rc.ctx, rc.stream, m.event.get());
  };
  for (Var* v : op->reads) await(v);
  for (Var* v : op->writes) await(v);
}

void Mark(const OprBlock* op, const RunContext& rc, DeviceAPI* api) {
  void* event = api->RecordEvent(rc.ctx, rc.stream);
  if (!event) return;
  const Context ctx = rc.ctx;
  StreamMark m{std::shared_ptr<void>(event, [api, ctx](void* e) { api->FreeEvent(ctx, e); }),
               rc.stream, ctx, api};
  for (Var* v : op->reads) v->AddReadMark(m);
  for (Var* v : op->writes) v->SetWriteMark(m);
}

}  // namespace

void OrderDeviceWork(OprBlock* op, const RunContext& rc, DeviceAPI* api) {
  const bool on_stream = api && rc.stream;
  if (!on_stream && !AnyMarks(op)) return;  // the common CPU case: nothing to order
  if (op->sync_fn) {
    const bool copy =
        op->prop == FnProperty::kCopyToDevice || op->prop == FnProperty::kCopyFromDevice;
    op->sync_fn = [fn = std::move(op->sync_fn), op, api, copy](RunContext r) {
      Await(op, r, api);
      fn(r);
      if (!api || !r.stream) return;
      if (!copy) return Mark(op, r, api);
      api->SyncStream(r.ctx, r.stream);
      for (Var* v : op->writes) v->SetWriteMark({});
    };
  } else if (op->fn) {
    op->fn = [fn = std::move(op->fn), op, api](RunContext r, OnComplete done) {
      Await(op, r, api);
      fn(r, std::move(done));
    };
  }
}

void WaitDeviceWork(Var* var) { HostWait(var); }

}  // namespace engine
}  // namespace weft
