// The handle registry's name table, live-handle counter and messages.
#include "c_api_handle.h"

#include "c_api_internal.h"

namespace weft {
namespace capi {

const char* HandleKindName(uint32_t kind) {
  switch (static_cast<HandleKind>(kind)) {
    case HandleKind::kNone:
      return nullptr;
    case HandleKind::kNDArray:
      return "WeftNDArray";
    case HandleKind::kNDArrayList:
      return "WeftNDArrayList";
    case HandleKind::kBuffer:
      return "WeftBuffer";
    case HandleKind::kSymbol:
      return "WeftSymbolHandle";
    case HandleKind::kStringList:
      return "WeftStringList";
    case HandleKind::kShapeResult:
      return "WeftShapeResult";
    case HandleKind::kTypeResult:
      return "WeftTypeResult";
    case HandleKind::kEngineVar:
      return "WeftEngineVar";
    case HandleKind::kEngineCompletion:
      return "WeftEngineCompletion";
    case HandleKind::kExecutor:
      return "WeftExecutor";
    case HandleKind::kExecutorOptions:
      return "WeftExecutorOptions";
    case HandleKind::kInitializer:
      return "WeftInitializer";
    case HandleKind::kOptimizer:
      return "WeftOptimizer";
    case HandleKind::kDataIter:
      return "WeftDataIter";
    case HandleKind::kMetric:
      return "WeftMetric";
    case HandleKind::kModule:
      return "WeftModule";
    case HandleKind::kPredictor:
      return "WeftPredictor";
    case HandleKind::kKVStore:
      return "WeftKVStore";
    case HandleKind::kCachedOp:
      return "WeftCachedOp";
    case HandleKind::kTrainer:
      return "WeftTrainer";
    case HandleKind::kFitSession:
      return "WeftFitSession";
    case HandleKind::kRecordIOWriter:
      return "WeftRecordIOWriter";
    case HandleKind::kRecordIOReader:
      return "WeftRecordIOReader";
    case HandleKind::kCount:
      return nullptr;
  }
  return nullptr;
}

std::atomic<size_t>& LiveHandleCounter() {
  static std::atomic<size_t> count{0};
  return count;
}

void FailTableFull(HandleKind kind, size_t slots) {
  Fail(StatusCode::kOutOfMemory, "too many live ", HandleKindName(static_cast<uint32_t>(kind)),
       " handles (", slots, ")");
}

void FailNull(const char* arg) {
  Fail(StatusCode::kInvalidArgument, "argument '", arg, "' is NULL");
}

void FailBadHandle(uintptr_t bits, HandleKind expected, const char* arg) {
  const uint32_t given = HandleLayout::Kind(bits);
  const char* want = HandleKindName(static_cast<uint32_t>(expected));
  const char* given_name = HandleKindName(given);
  if (given_name && given != static_cast<uint32_t>(expected))
    Fail(StatusCode::kInvalidHandle, "argument '", arg, "' is a ", given_name,
         " handle, expected a ", want, " handle");
  Fail(StatusCode::kInvalidHandle, "argument '", arg, "' is a freed or invalid ", want, " handle");
}

}  // namespace capi
}  // namespace weft
