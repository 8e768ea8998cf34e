// libFuzzer harness for the optimizer state loader
// (Optimizer::LoadStatesFromBytes, core/src/train/optimizer_states.cc).
//
// Every input is loaded into a few optimizers whose states differ in count
// and dtype (SGD with and without momentum, Adam, centered RMSProp, LARS
// with its scalar state, and multi-precision SGD and Adam). Rejections must
// be weft::Error; anything else (a crash, another exception, a sanitizer
// report) is a bug. For inputs that load, the harness checks what the
// loader promises: saving gives bytes that load again into a fresh
// optimizer and save to the same bytes, and an update of every loaded index
// with a weight of the recorded dtype and shape succeeds (the loader checked
// the states against it), for weights of at most 4096 elements.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "weft/ndarray_io.h"
#include "weft/optimizer.h"
#include "weft/runtime.h"

namespace {

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "fuzz_optimizer_states: %s\n", what);
  std::abort();
}

weft::Runtime* RT() { return &weft::Runtime::Global(); }

// Updates every index whose weight the saved states record ("weight:<i>":
// dtype code, then the shape) with a matching weight and gradient.
void UpdateLoaded(weft::Optimizer* opt, const std::string& saved) {
  const weft::NDArrayList list = weft::LoadNDArrays(saved.data(), saved.size(), RT());
  for (size_t i = 0; i < list.arrays.size(); ++i) {
    const std::string& name = list.names[i];
    if (name.compare(0, 7, "weight:") != 0) continue;
    std::vector<int64_t> sig(static_cast<size_t>(list.arrays[i].Size()));
    list.arrays[i].CopyToHost(sig.data(), sig.size() * sizeof(int64_t));
    const weft::Shape shape(std::vector<int64_t>(sig.begin() + 1, sig.end()));
    if (shape.Size() > 4096) continue;
    const auto dtype = static_cast<weft::DType>(sig[0]);
    weft::NDArray w(shape, weft::Context::CPU(), dtype, RT());
    std::vector<char> zeros(w.Bytes(), 0);
    w.CopyFromHost(zeros.data(), zeros.size());
    const int index = std::atoi(name.c_str() + 7);
    opt->Update(index, "fuzz_weight", &w, w);
    w.WaitToRead();
  }
}

void Check(const char* name, const weft::StringMap& params, const uint8_t* data, size_t size) {
  auto opt = weft::Optimizer::Create(name, params);
  try {
    opt->LoadStatesFromBytes(data, size, RT());
  } catch (const weft::Error&) {
    return;
  }
  try {
    const std::string saved = opt->SaveStatesToBytes(RT());
    auto again = weft::Optimizer::Create(name, params);
    again->LoadStatesFromBytes(saved.data(), saved.size(), RT());
    if (again->SaveStatesToBytes(RT()) != saved)
      Violation("save -> load -> save changed the bytes");
    UpdateLoaded(opt.get(), saved);
  } catch (const weft::Error& e) {
    Violation(e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::pair<const char*, weft::StringMap>> kOptimizers = {
      {"sgd", {{"momentum", "0.9"}}},
      {"sgd", {}},
      {"adam", {}},
      {"rmsprop", {{"centered", "True"}}},
      {"lars", {{"momentum", "0.9"}}},
      {"sgd", {{"momentum", "0.9"}, {"multi_precision", "True"}}},
      {"adam", {{"multi_precision", "True"}}}};
  for (const auto& [name, params] : kOptimizers) Check(name, params, data, size);
  return 0;
}
