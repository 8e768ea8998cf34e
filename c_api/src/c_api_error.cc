// The thread-local last error and the exception → status conversion.
//
// Semantics: each thread has one (code, message) record. A failing call
// overwrites it; a successful call leaves it untouched. weft_last_error()
// therefore returns the message of the last FAILED call on the calling thread
// ("" before any failure), and its pointer stays valid until the next failing
// call on that thread (the header promises the shorter "until the next weft_
// call", which this satisfies).
#include <new>
#include <string>

#include "c_api_internal.h"

namespace weft {
namespace capi {

namespace {

struct LastError {
  WeftStatus code = WEFT_OK;
  std::string message;
  // Used instead of `message` when storing the text itself ran out of memory.
  const char* fallback = nullptr;
};

LastError& ThreadLastError() {
  thread_local LastError e;
  return e;
}

WeftStatus Record(WeftStatus code, const char* func, const char* msg) noexcept {
  LastError& e = ThreadLastError();
  e.code = code;
  try {
    e.message.assign(func);
    e.message.append(": ");
    e.message.append(msg);
    e.fallback = nullptr;
  } catch (...) {
    e.message.clear();
    e.fallback = code == WEFT_ERR_OOM
                     ? "out of memory (the error message could not be stored)"
                     : "error (the error message could not be stored: out of memory)";
  }
  return code;
}

}  // namespace

WeftStatus ToStatus(StatusCode code) noexcept {
  int c = static_cast<int>(code);
  if (c <= 0 || c > WEFT_ERR_IO) return WEFT_ERR_INTERNAL;  // kOk in an Error is a bug
  return static_cast<WeftStatus>(c);
}

WeftStatus HandleException(const char* func) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return Record(ToStatus(e.code()), func, e.what());
  } catch (const std::bad_alloc&) {
    return Record(WEFT_ERR_OOM, func, "out of memory");
  } catch (const std::exception& e) {
    std::string msg;
    try {
      msg = std::string("internal error: ") + e.what();
    } catch (...) {
      return Record(WEFT_ERR_INTERNAL, func, "internal error");
    }
    return Record(WEFT_ERR_INTERNAL, func, msg.c_str());
  } catch (...) {
    return Record(WEFT_ERR_INTERNAL, func, "internal error: unknown exception");
  }
}

}  // namespace capi
}  // namespace weft

extern "C" {

const char* weft_last_error(void) {
  const auto& e = weft::capi::ThreadLastError();
  return e.fallback ? e.fallback : e.message.c_str();
}

WeftStatus weft_last_error_code(void) { return weft::capi::ThreadLastError().code; }

}  // extern "C"
