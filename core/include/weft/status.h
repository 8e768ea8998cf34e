// Errors in Weft.
//
// Expected failures (bad shapes, unknown ops, bad parameters, missing kernels)
// are reported as a `weft::Error` carrying a `StatusCode` and a message that
// names the op/argument and what was expected versus given. Public C++ entry
// points may throw `Error`; the C ABI converts every exception into a
// `WeftStatus` plus a thread-local message, so nothing ever crosses it.
// `WEFT_CHECK(cond) << msg` throws an internal error for broken invariants.
// Everything here is thread-safe (no shared state).
#ifndef WEFT_STATUS_H_
#define WEFT_STATUS_H_

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace weft {

// Stable codes; the numeric values are part of the C ABI (WeftStatus).
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,
  kShape = 2,
  kDType = 3,
  kDevice = 4,
  kOutOfMemory = 5,
  kNotImplemented = 6,
  kInternal = 7,
  kInvalidHandle = 8,
  kNotFound = 9,
  kIO = 10,
};

const char* StatusCodeName(StatusCode code);

// The exception type every Weft failure uses.
class Error : public std::runtime_error {
 public:
  Error(StatusCode code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  StatusCode code() const { return code_; }

 private:
  StatusCode code_;
};

// Concatenates anything streamable into one string.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// Throws Error(code, StrCat(args...)).
template <typename... Args>
[[noreturn]] void Fail(StatusCode code, const Args&... args) {
  throw Error(code, StrCat(args...));
}

namespace detail {
// Collects a message and throws kInternal from its destructor.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* cond) {
    os_ << "Check failed: " << cond << " (" << file << ":" << line << ") ";
  }
  ~CheckFailure() noexcept(false) { throw Error(StatusCode::kInternal, os_.str()); }
  std::ostream& stream() { return os_; }

 private:
  std::ostringstream os_;
};
}  // namespace detail

}  // namespace weft

#define WEFT_CHECK(cond) \
  if (cond) {            \
  } else                 \
    ::weft::detail::CheckFailure(__FILE__, __LINE__, #cond).stream()
#define WEFT_CHECK_EQ(a, b) WEFT_CHECK((a) == (b)) << (a) << " vs " << (b) << ": "
#define WEFT_CHECK_LT(a, b) WEFT_CHECK((a) < (b)) << (a) << " vs " << (b) << ": "
#define WEFT_CHECK_GE(a, b) WEFT_CHECK((a) >= (b)) << (a) << " vs " << (b) << ": "

#endif  // WEFT_STATUS_H_
