// libFuzzer harness for the ONNX importer (weft/onnx_import.h).
//
// Every input goes through ImportOnnx (protobuf parse, opset checks,
// onnx::checker, ONNX's shape inference, initializers, constant folding and
// every converter) from memory, where external data is refused. Rejections
// must be weft::Error; anything else (a crash, another exception, a
// sanitizer report) is a bug. For inputs that import, the harness checks
// what the tests promise: the parameters are exactly the symbol's inputs
// that are not data inputs, split into arguments and auxiliary states, and
// the symbol saves as JSON and loads back.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "weft/onnx_import.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"

namespace {

[[noreturn]] void Violation(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_onnx: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void Check(const weft::OnnxModel& m) {
  std::set<std::string> data;
  for (const auto& in : m.inputs) data.insert(in.first);
  for (const std::string& name : m.symbol.ListAuxiliaryStates())
    if (!m.aux.count(name)) Violation("an auxiliary state has no array", name);
  for (const std::string& name : m.symbol.ListArguments())
    if (!data.count(name) && !m.args.count(name))
      Violation("an argument is neither a data input nor a parameter", name);
  const std::string json = weft::SaveJSON(m.symbol);
  try {
    weft::LoadJSON(json, weft::Runtime::Global().ops());
  } catch (const weft::Error& e) {
    Violation("the imported symbol's JSON does not load", std::string(e.what()) + "\n" + json);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    Check(weft::ImportOnnx(data, size, "<fuzz>", "", &weft::Runtime::Global()));
  } catch (const weft::Error&) {
  }
  return 0;
}
