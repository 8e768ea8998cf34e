// libFuzzer harness for the IDX loader (MNIST-style images and labels, raw
// or gzip-compressed).
//
// Every input goes through LoadIDXBytes. Rejections must be weft::Error;
// anything else (a crash, another exception, a sanitizer report, an
// allocation beyond -rss_limit_mb) is a bug. For inputs that load, the
// array's size must match its shape and every byte must read back.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "weft/runtime.h"
#include "weft/idx.h"

namespace {

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "fuzz_idx: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  weft::NDArray a;
  try {
    a = weft::LoadIDXBytes(data, size, &weft::Runtime::Global());
  } catch (const weft::Error&) {
    return 0;  // a clean rejection
  }
  if (a.is_none()) Violation("LoadIDXBytes returned no array");
  if (a.Size() != a.shape().Size()) Violation("the array's size differs from its shape's");
  std::vector<unsigned char> bytes(a.Bytes());
  if (bytes.size() != static_cast<size_t>(a.Size()) * weft::DTypeSize(a.dtype()))
    Violation("the array's bytes differ from its size times its dtype's");
  a.CopyToHost(bytes.data(), bytes.size());
  return 0;
}
