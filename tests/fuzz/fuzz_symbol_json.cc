// libFuzzer harness for the symbol JSON loader.
//
// Every input goes through LoadJSON with the global operators plus the
// test-only NN operators (tests/core/graph). Rejections must be weft::Error;
// anything else (a crash, another exception, a sanitizer report) is a bug.
// For inputs that load, the harness also checks the properties the tests
// promise: listing works, SaveJSON output loads back and saves identically,
// and shape/type inference either finishes or throws weft::Error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/graph/graph_test_nn_ops.h"
#include "weft/pass.h"
#include "weft/symbol_json.h"

namespace {

[[noreturn]] void Violation(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_symbol_json: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void Check(const weft::LoadedSymbol& s, const weft::OpRegistry& reg) {
  s.symbol.ListArguments();
  s.symbol.ListAuxiliaryStates();
  s.symbol.ListOutputs();
  s.symbol.ListAttr();
  const std::string saved = weft::SaveJSON(s.symbol, s.mxnet_version);
  try {
    weft::LoadedSymbol again = weft::LoadJSON(saved, reg);
    const std::string twice = weft::SaveJSON(again.symbol, s.mxnet_version);
    if (twice != saved)
      Violation("save -> load -> save changed the JSON", saved + "\n---\n" + twice);
  } catch (const weft::Error& e) {
    Violation("SaveJSON output does not load", std::string(e.what()) + "\n" + saved);
  }
  weft::IndexedGraph g(s.symbol.outputs);
  try {
    weft::pass::InferShape(g);
  } catch (const weft::Error&) {
  }
  try {
    weft::pass::InferType(g);
  } catch (const weft::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const weft::OpRegistry& reg = weft::test::ModelTestRegistry();
  const std::string text(reinterpret_cast<const char*>(data), size);
  weft::LoadedSymbol s;
  try {
    s = weft::LoadJSON(text, reg);
  } catch (const weft::Error&) {
    return 0;  // a clean rejection
  }
  Check(s, reg);
  return 0;
}
