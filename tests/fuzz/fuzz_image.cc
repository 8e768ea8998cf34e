// libFuzzer harness for the image decoders (weft/image.h): each input is
// decoded as RGB and as gray (JPEG or PNG by its first bytes; the fuzzer
// finds both from the seed corpus), with a pixel limit that keeps a header
// claiming a huge image cheap. A decoded image must have the size it claims;
// its RGB decode must encode as PNG and decode back to the same pixels, and
// encode as JPEG to bytes that decode to the same size.
//
// Rejections must be weft::Error; anything else (a crash, another exception,
// a sanitizer report, an allocation beyond -rss_limit_mb) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "weft/image.h"
#include "weft/status.h"

namespace {

constexpr int64_t kFuzzMaxPixels = int64_t{1} << 20;

[[noreturn]] void Violation(const char* what) {
  std::fprintf(stderr, "fuzz_image: %s\n", what);
  std::abort();
}

void CheckRoundTrips(const weft::Image& img) {
  const std::string png = weft::EncodePng(img, 1);
  const weft::Image back = weft::DecodeImage(png.data(), png.size(), img.channels);
  if (back.data != img.data || back.width != img.width || back.height != img.height)
    Violation("a decoded image does not survive a PNG round trip");
  const std::string jpg = weft::EncodeJpeg(img, 75);
  const weft::Image lossy = weft::DecodeImage(jpg.data(), jpg.size(), img.channels);
  if (lossy.width != img.width || lossy.height != img.height)
    Violation("a JPEG round trip changes the image size");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (int channels : {3, 1}) {
    weft::Image img;
    try {
      img = weft::DecodeImage(data, size, channels, kFuzzMaxPixels);
    } catch (const weft::Error&) {
      continue;
    }
    if (img.channels != channels || img.width <= 0 || img.height <= 0 ||
        int64_t{img.width} * img.height > kFuzzMaxPixels ||
        img.data.size() != size_t(img.width) * img.height * channels)
      Violation("a decoded image is inconsistent with its size");
    CheckRoundTrips(img);
  }
  return 0;
}
