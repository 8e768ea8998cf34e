// Variables' pending queues, error boxes and the helpers both engines share.
#include <algorithm>
#include <utility>

#include "engine/engine_impl.h"
#include "weft/status.h"

namespace weft {
namespace engine {

bool Var::AppendRead(OprBlock* op) {
  MutexLock l(&mu_);
  if (!writing_ && head_ == queue_.size()) {
    ++running_reads_;
    return true;
  }
  queue_.push_back({op, false});
  return false;
}

bool Var::AppendWrite(OprBlock* op) {
  MutexLock l(&mu_);
  if (!writing_ && running_reads_ == 0 && head_ == queue_.size()) {
    writing_ = true;
    return true;
  }
  queue_.push_back({op, true});
  return false;
}

void Var::CompleteRead(std::vector<OprBlock*>* ready) {
  MutexLock l(&mu_);
  if (--running_reads_ == 0) GrantLocked(ready);
}

void Var::CompleteWrite(const ErrorRef& error, std::vector<OprBlock*>* ready) {
  MutexLock l(&mu_);
  writing_ = false;
  version_.fetch_add(1, std::memory_order_release);
  error_ = error;
  GrantLocked(ready);
}

void Var::GrantLocked(std::vector<OprBlock*>* ready) {
  if (writing_) return;
  while (head_ < queue_.size() && !queue_[head_].write) {
    ++running_reads_;
    ready->push_back(queue_[head_++].op);
  }
  if (running_reads_ == 0 && head_ < queue_.size()) {
    writing_ = true;
    ready->push_back(queue_[head_++].op);
  }
  if (head_ == queue_.size()) {
    queue_.clear();
    head_ = 0;
  } else if (head_ >= 64 && head_ * 2 >= queue_.size()) {
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

bool Var::NoPendingWrite() {
  MutexLock l(&mu_);
  // Reads only queue behind a write, so an empty queue means no write.
  return !writing_ && head_ == queue_.size();
}

ErrorRef Var::error() {
  MutexLock l(&mu_);
  return error_;
}

std::vector<StreamMark> Var::marks() {
  MutexLock l(&mu_);
  return marks_;
}

void Var::SetWriteMark(StreamMark m) {
  MutexLock l(&mu_);
  marks_.clear();
  if (m.event) marks_.push_back(std::move(m));
  marked_.store(!marks_.empty(), std::memory_order_release);
}

void Var::AddReadMark(StreamMark m) {
  MutexLock l(&mu_);
  auto same = std::find_if(marks_.begin(), marks_.end(),
                           [&](const StreamMark& x) { return x.stream == m.stream; });
  if (same != marks_.end())
    *same = std::move(m);
  else
    marks_.push_back(std::move(m));
  marked_.store(true, std::memory_order_release);
}

void Var::DropMarks(const std::vector<StreamMark>& done) {
  MutexLock l(&mu_);
  marks_.erase(std::remove_if(marks_.begin(), marks_.end(),
                              [&](const StreamMark& x) {
                                return std::any_of(
                                    done.begin(), done.end(),
                                    [&](const StreamMark& d) { return d.event == x.event; });
                              }),
               marks_.end());
  marked_.store(!marks_.empty(), std::memory_order_release);
}

void SetVars(OprBlock* op, const std::vector<VarHandle>& reads,
             const std::vector<VarHandle>& writes) {
  auto contains = [](const std::vector<Var*>& v, Var* x) {
    for (Var* y : v)
      if (y == x) return true;
    return false;
  };
  op->reads.reserve(reads.size());
  op->writes.reserve(writes.size());
  for (Var* w : writes) {
    if (!w)
      Fail(StatusCode::kInvalidArgument, "engine op '", op->name, "': null variable in writes");
    if (!contains(op->writes, w)) op->writes.push_back(w);
  }
  for (Var* r : reads) {
    if (!r)
      Fail(StatusCode::kInvalidArgument, "engine op '", op->name, "': null variable in reads");
    if (contains(op->writes, r))
      Fail(StatusCode::kInvalidArgument, "engine op '", op->name,
           "': a variable is listed in both reads and writes (expected disjoint lists)");
    if (!contains(op->reads, r)) op->reads.push_back(r);
  }
}

std::unique_ptr<OprBlock> NewOpr(std::string name, Context ctx, const std::vector<VarHandle>& reads,
                                 const std::vector<VarHandle>& writes, int priority,
                                 FnProperty prop) {
  auto op = std::make_unique<OprBlock>();
  op->name = std::move(name);
  SetVars(op.get(), reads, writes);
  op->ctx = ctx;
  op->priority = priority;
  op->prop = prop;
  return op;
}

std::unique_ptr<OprBlock> NewDeleteOpr(SyncFn on_delete, Context ctx, VarHandle var) {
  auto op = NewOpr("DeleteVariable", ctx, {}, {var}, 0, FnProperty::kNormal);
  op->kind = OprKind::kDelete;
  op->sync_fn = std::move(on_delete);
  return op;
}

ErrorRef NameError(const std::string& op_name, std::exception_ptr error) {
  const std::string where =
      op_name.empty() ? std::string("engine op") : "engine op '" + op_name + "'";
  try {
    std::rethrow_exception(error);
  } catch (const OpPartError& e) {
    return std::make_shared<ErrorBox>(e.code(),
                                      StrCat("engine op '", e.part(), "' failed: ", e.what()));
  } catch (const Error& e) {
    return std::make_shared<ErrorBox>(e.code(), StrCat(where, " failed: ", e.what()));
  } catch (const std::exception& e) {
    return std::make_shared<ErrorBox>(StatusCode::kInternal, StrCat(where, " failed: ", e.what()));
  } catch (...) {
    return std::make_shared<ErrorBox>(StatusCode::kInternal,
                                      StrCat(where, " failed: unknown exception"));
  }
}

ErrorRef FindVarError(OprBlock* op) {
  for (Var* v : op->reads)
    if (ErrorRef e = v->error()) return e;
  for (Var* v : op->writes)
    if (ErrorRef e = v->error())
      if (!e->delivered()) return e;
  return nullptr;
}

void ErrorLog::Add(const ErrorRef& e) {
  MutexLock l(&mu_);
  errors_.push_back(e);
  if (errors_.size() >= prune_at_) {
    errors_.erase(std::remove_if(errors_.begin(), errors_.end(),
                                 [](const ErrorRef& x) { return x->delivered(); }),
                  errors_.end());
    prune_at_ = std::max<size_t>(64, 2 * errors_.size());
  }
}

void ErrorLog::ReportAndClear() {
  std::vector<ErrorRef> errors;
  {
    MutexLock l(&mu_);
    errors.swap(errors_);
    prune_at_ = 64;
  }
  ErrorRef first;
  for (const ErrorRef& e : errors) {
    if (!first && !e->delivered()) first = e;
    e->MarkDelivered();
  }
  if (first) first->Throw();
}

size_t ErrorLog::size() {
  MutexLock l(&mu_);
  return errors_.size();
}

namespace {
thread_local const Engine* tl_engine = nullptr;
thread_local const OprBlock* tl_op = nullptr;
}  // namespace

RunningOpScope::RunningOpScope(const Engine* engine, const OprBlock* op)
    : prev_engine_(tl_engine), prev_op_(tl_op) {
  tl_engine = engine;
  tl_op = op;
}

RunningOpScope::~RunningOpScope() {
  tl_engine = prev_engine_;
  tl_op = prev_op_;
}

const OprBlock* RunningOpScope::Current(const Engine* engine) {
  return tl_engine == engine ? tl_op : nullptr;
}

void CheckNotInsideOp(const Engine* engine, const char* what) {
  const OprBlock* op = RunningOpScope::Current(engine);
  if (!op) return;
  Fail(StatusCode::kInvalidArgument, what, " called from inside engine op '",
       op->name.empty() ? "<unnamed>" : op->name,
       "' (an engine callback): the wait would block the worker that runs the callback, waiting "
       "for the callback "
       "itself or for work queued behind it (a deadlock); wait after the callback returns, or "
       "declare the "
       "variables the callback needs in its reads and writes");
}

}  // namespace engine
}  // namespace weft
