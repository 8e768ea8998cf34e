// Shared pieces of the `weft` command-line tool: exit handling, usage and
// option helpers over CLI11 (cli_help.cc), owned C ABI handles, the
// NAME=VALUE parsers and JSON text (weft_cli.cc), and the commands. Each
// command defines its options on a CLI::App and returns the function that
// runs it; the usage texts are generated from those definitions. Everything
// goes through the public C ABI only. Single-threaded.
#ifndef WEFT_TOOLS_CLI_UTIL_H_
#define WEFT_TOOLS_CLI_UTIL_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "weft/c_api.h"

namespace weft_cli {

// Thrown for a usage error (exit 2) or a library error (exit 1).
struct Exit {
  int code;
  std::string message;
};

// Throws Exit{2} with `msg`; main() adds the usage text (cli_help.cc).
[[noreturn]] void Usage(const std::string& msg);

// What a command runs once its options are parsed into the state its
// Define* function bound them to.
using Runner = std::function<int()>;

// Option helpers (cli_help.cc). An integer option whose value must lie in
// [min, max]: anything else (not a number, out of range, or beyond the C
// type) is a usage error naming the flag, e.g. "--epochs expects an integer
// <= 2147483647, given '4294967297'". A repeated scalar option keeps the
// last value.
CLI::Option* AddInt(CLI::App* app, const std::string& name, int* out, int min,
                    const std::string& desc);
CLI::Option* AddInt(CLI::App* app, const std::string& name, long* out, long min,
                    const std::string& desc);
CLI::Option* AddInt(CLI::App* app, const std::string& name, uint64_t* out, uint64_t min,
                    const std::string& desc);
// A string option that may be given several times (one value each), in order.
CLI::Option* AddList(CLI::App* app, const std::string& name, std::vector<std::string>* out,
                     const std::string& type, const std::string& desc);
// A string option whose value must be one of `choices` (usage error
// "--progress expects auto, bar, ... or none, given 'x'" otherwise).
CLI::Option* AddChoice(CLI::App* app, const std::string& name, std::string* out,
                       const std::vector<std::string>& choices, const std::string& desc);

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
// The name of WeftDType code `code` (bfloat16 included), or nullptr.
const char* DTypeCodeName(int code);

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

// A named list's names and owned array handles, with the parallel C arrays
// the C ABI takes.
struct NamedArrays {
  std::vector<std::string> names;
  std::vector<Array> arrays;
  std::vector<const char*> name_ptrs;
  std::vector<WeftNDArray*> handles;
};
NamedArrays TakeList(WeftNDArrayList* list, const char* ctx);

struct ShapeArg {
  std::string name;
  std::vector<int64_t> dims;
};
struct DTypeArg {
  std::string name;
  int code;
};
// `j` as text: objects, and arrays holding objects or arrays, one member per
// line (indented by 2 per level) down to `expand` levels; deeper values and
// arrays of scalars on one line.
std::string JsonText(const nlohmann::ordered_json& j, int expand = 2);
// Splits "NAME=VALUE" given to `opt` (usage error otherwise).
std::pair<std::string, std::string> SplitAssign(const std::string& text, const char* opt);
ShapeArg ParseShape(const std::string& text);  // NAME=D1,D2,... (0 or ? unknown)
DTypeArg ParseDType(const std::string& text);  // NAME=float32 ...

// The commands: each defines its options and description on `app` and
// returns its runner. `inspect` (weft_cli.cc), `ops` (cli_ops.cc), `run`
// and `plan` (cli_run.cc), `train` (cli_train.cc), `predict`
// (cli_predict.cc), `place` (cli_place.cc), `convert` (cli_convert.cc), `im2rec`
// (cli_im2rec.cc), `quantize` (cli_quantize.cc), `import` (cli_import.cc).
Runner DefineInspect(CLI::App* app);
Runner DefineOps(CLI::App* app);
Runner DefineRun(CLI::App* app);
Runner DefinePlan(CLI::App* app);
Runner DefineTrain(CLI::App* app);
Runner DefinePredict(CLI::App* app);
Runner DefinePlace(CLI::App* app);
Runner DefineConvert(CLI::App* app);
Runner DefineQuantize(CLI::App* app);
Runner DefineImport(CLI::App* app);
Runner DefineIm2Rec(CLI::App* app);   // cli_im2rec.cc
Runner DefineProfile(CLI::App* app);  // cli_run.cc
Runner DefineSummary(CLI::App* app);  // cli_report.cc
Runner DefineDot(CLI::App* app);      // cli_report.cc
Runner DefineExport(CLI::App* app);   // cli_export.cc

// Runs the command line (cli_help.cc): usage errors throw Exit{2}.
int Dispatch(int argc, char** argv);
// Every command's synopsis and description (`weft --help`).
std::string FullUsage();

}  // namespace weft_cli

#endif  // WEFT_TOOLS_CLI_UTIL_H_
