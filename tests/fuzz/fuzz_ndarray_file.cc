// libFuzzer harness for the NDArray file loaders (MXNet NDArray lists and
// NumPy .npy).
//
// Every input goes through LoadNDArrays and LoadNpy. Rejections must be
// weft::Error; anything else (a crash, another exception, a sanitizer
// report, an allocation beyond -rss_limit_mb) is a bug. For inputs that
// load, the harness checks what the tests promise: saving and loading again
// gives the same arrays, and a second save reproduces the first byte for
// byte.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/ndarray_io.h"
#include "weft/npy.h"

namespace {

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "fuzz_ndarray_file: %s\n", what);
  std::abort();
}

bool SameArray(const weft::NDArray& a, const weft::NDArray& b) {
  if (a.is_none() || b.is_none()) return a.is_none() == b.is_none();
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  return std::memcmp(a.dptr(), b.dptr(), a.Bytes()) == 0;
}

void CheckList(const weft::NDArrayList& list) {
  const std::string saved = weft::SaveNDArrays(list);
  weft::NDArrayList back;
  try {
    back = weft::LoadNDArrays(saved.data(), saved.size(), &weft::Runtime::Global());
  } catch (const weft::Error& e) {
    Violation(e.what());
  }
  if (back.names != list.names || back.arrays.size() != list.arrays.size())
    Violation("save -> load changed the names or the count");
  for (size_t i = 0; i < list.arrays.size(); ++i)
    if (!SameArray(list.arrays[i], back.arrays[i])) Violation("save -> load changed an array");
  if (weft::SaveNDArrays(back) != saved) Violation("save -> load -> save changed the bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    CheckList(weft::LoadNDArrays(data, size, &weft::Runtime::Global()));
  } catch (const weft::Error&) {
  }
  weft::NDArray a;
  try {
    a = weft::LoadNpy(data, size, &weft::Runtime::Global());
  } catch (const weft::Error&) {
    return 0;
  }
  const std::string saved = weft::SaveNpy(a);
  try {
    weft::NDArray b = weft::LoadNpy(saved.data(), saved.size(), &weft::Runtime::Global());
    if (!SameArray(a, b) || weft::SaveNpy(b) != saved)
      Violation("npy save -> load changed the array");
  } catch (const weft::Error& e) {
    Violation(e.what());
  }
  return 0;
}
