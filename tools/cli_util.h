// Shared pieces of the `weft` command-line tool: exit handling and usage
// (cli_help.cc), owned C ABI handles, option parsing and JSON text (defined
// in weft_cli.cc), and the commands. Everything goes through the public C
// ABI only.
#ifndef WEFT_TOOLS_CLI_UTIL_H_
#define WEFT_TOOLS_CLI_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "weft/c_api.h"

namespace weft_cli {

// Thrown for a usage error (exit 2) or a library error (exit 1).
struct Exit {
  int code;
  std::string message;
};

// Throws Exit{2} with `msg` and the usage text (cli_help.cc).
[[noreturn]] void Usage(const std::string& msg);
// Whether `name` is a command with its own usage (cli_help.cc).
bool IsCommand(const std::string& name);
// Prints `command`'s usage on stdout, or every command's when it is none.
void PrintHelp(const std::string& command);

// Throws Exit{1} with the library's last error when `s` is not WEFT_OK.
inline void Check(WeftStatus s, const std::string& context) {
  if (s != WEFT_OK) throw Exit{1, "weft " + context + ": error: " + weft_last_error()};
}

// Owns a C ABI handle; frees it with F on scope exit.
template <typename H, WeftStatus (*F)(H*)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(H* h) : h_(h) {}
  ~Owned() {
    if (h_) F(h_);
  }
  Owned(Owned&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      if (h_) F(h_);
      h_ = o.h_;
      o.h_ = nullptr;
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  H** out() { return &h_; }
  H* get() const { return h_; }

 private:
  H* h_ = nullptr;
};
using Sym = Owned<WeftSymbolHandle, weft_symbol_free>;
using ShapeRes = Owned<WeftShapeResult, weft_shape_result_free>;
using TypeRes = Owned<WeftTypeResult, weft_type_result_free>;
using Array = Owned<WeftNDArray, weft_ndarray_free>;
using ArrayList = Owned<WeftNDArrayList, weft_ndarray_list_free>;
using StrList = Owned<WeftStringList, weft_string_list_free>;
using Exec = Owned<WeftExecutor, weft_executor_free>;

extern const char* const kDTypeNames[7];

// The strings of `list` (taking ownership: the list is freed).
inline std::vector<std::string> Strings(WeftStringList* list, const char* ctx) {
  StrList owned(list);
  size_t n = 0;
  Check(weft_string_list_size(list, &n), ctx);
  std::vector<std::string> out(n);
  for (size_t i = 0; i < n; ++i) {
    const char* s = nullptr;
    Check(weft_string_list_get(list, i, &s), ctx);
    out[i] = s;
  }
  return out;
}

// Walks argv from the command's first argument; Value() reads an option's
// value (--opt VALUE or --opt=VALUE).
struct Args {
  int argc;
  char** argv;
  int i = 2;
  bool Is(const std::string& a, const char* opt) const {
    return a == opt || a.rfind(std::string(opt) + "=", 0) == 0;
  }
  std::string Value(const std::string& a, const char* opt) {
    std::string prefix = std::string(opt) + "=";
    if (a.compare(0, prefix.size(), prefix) == 0) return a.substr(prefix.size());
    if (i + 1 >= argc) Usage(std::string(opt) + " needs a value");
    return argv[++i];
  }
};

struct ShapeArg {
  std::string name;
  std::vector<int64_t> dims;
};
struct DTypeArg {
  std::string name;
  int code;
};
// `s` as a JSON string literal; `names` as a JSON list of strings.
std::string JsonString(const std::string& s);
std::string NamesJson(const std::vector<std::string>& names);
// Splits "NAME=VALUE" given to `opt` (usage error otherwise).
std::pair<std::string, std::string> SplitAssign(const std::string& text, const char* opt);
ShapeArg ParseShape(const std::string& text);  // NAME=D1,D2,... (0 or ? unknown)
DTypeArg ParseDType(const std::string& text);  // NAME=float32 ...

// `weft ops` (cli_ops.cc).
int Ops(int argc, char** argv);
// `weft run` and `weft plan` (cli_run.cc).
int RunModel(int argc, char** argv);
int Plan(int argc, char** argv);
// `weft train` (cli_train.cc).
int Train(int argc, char** argv);
// `weft predict` (cli_predict.cc).
int Predict(int argc, char** argv);
// `weft place` (cli_place.cc).
int Place(int argc, char** argv);

}  // namespace weft_cli

#endif  // WEFT_TOOLS_CLI_UTIL_H_
