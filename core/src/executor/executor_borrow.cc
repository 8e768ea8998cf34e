// Executor::BorrowArgument: the kernels of a bound executor read an
// argument from a caller's buffer instead of its array (the predictor's
// input without a copy).
#include <cstdint>

#include "executor/executor_impl.h"
#include "weft/status.h"

namespace weft {

namespace {

bool Overlaps(const NDArray& a, const char* from, size_t bytes) {
  if (a.is_none() || a.Bytes() == 0) return false;
  const auto p = reinterpret_cast<std::uintptr_t>(a.dptr());
  const auto f = reinterpret_cast<std::uintptr_t>(from);
  return p < f + bytes && f < p + a.Bytes();
}

}  // namespace

bool Executor::BorrowArgument(size_t index, const void* data) {
  Impl& m = *impl_;
  MutexLock lock(&m.call_mu);
  if (index >= args_.size())
    Fail(StatusCode::kInvalidArgument, "BorrowArgument: argument ", index, " of ", args_.size());
  const NDArray& a = args_[index];
  char* own = static_cast<char*>(a.dptr());
  const size_t bytes = a.Bytes();
  auto it = m.borrowed.find(index);
  char* current = it == m.borrowed.end() ? own : it->second;
  char* target = data ? static_cast<char*>(const_cast<void*>(data)) : own;
  if (a.ctx().dev_type != DeviceType::kCPU || bytes == 0) return !data;
  if (target == current) return true;
  if (data && m.monitor) return false;   // it copies entries from the bound arrays
  if (data && it == m.borrowed.end()) {  // may this memory be lent at all?
    for (const auto* arrays : {&outputs_, &grads_, &aux_})
      for (const NDArray& o : *arrays)
        if (Overlaps(o, own, bytes)) return false;
    for (const auto* calls : {&m.forward_calls, &m.backward_calls})
      for (const auto& call : *calls)
        if (!call || call->WritesWithin(own, bytes)) return false;
  }
  for (const auto* calls : {&m.forward_calls, &m.backward_calls})
    for (const auto& call : *calls) call->RepointInputs(current, bytes, target);
  if (data)
    m.borrowed[index] = target;
  else
    m.borrowed.erase(index);
  return true;
}

}  // namespace weft
