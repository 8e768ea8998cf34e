// JPEG decoding and encoding on libjpeg-turbo's TurboJPEG API (weft/image.h).
// Each call makes its own TurboJPEG handle (a few KiB, negligible beside a
// decode): a handle reused after a failed decode misreads the next image's
// header in libjpeg-turbo 2.1 (fuzz_image found it).
#include <turbojpeg.h>

#include <cstring>
#include <memory>
#include <string>

#include "io/image_codec.h"
#include "weft/status.h"

namespace weft {
namespace io {
namespace {

struct TjHandle {
  tjhandle h = nullptr;
  explicit TjHandle(tjhandle handle) : h(handle) {}
  ~TjHandle() {
    if (h != nullptr) tjDestroy(h);
  }
  TjHandle(const TjHandle&) = delete;
  TjHandle& operator=(const TjHandle&) = delete;
};

void CheckHandle(const TjHandle& handle, const char* what) {
  if (handle.h == nullptr) Fail(StatusCode::kOutOfMemory, "JPEG: ", what, " failed");
}

// libjpeg's message (jerror.h, JWRN_JPEG_EOF) for data that ends before the
// image does; libjpeg warns and fills the rest, we refuse the image.
constexpr const char* kPrematureEnd = "Premature end of JPEG file";

}  // namespace

Image DecodeJpeg(const void* data, size_t size, int channels, int64_t max_pixels) {
  TjHandle handle(tjInitDecompress());
  CheckHandle(handle, "tjInitDecompress");
  tjhandle tj = handle.h;
  const auto* bytes = static_cast<const unsigned char*>(data);
  int width = 0, height = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(tj, bytes, static_cast<unsigned long>(size), &width, &height, &subsamp,
                          &colorspace) != 0)
    Fail(StatusCode::kInvalidArgument, "JPEG: ", tjGetErrorStr2(tj));
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
    Fail(StatusCode::kNotImplemented, "JPEG: a ", colorspace == TJCS_CMYK ? "CMYK" : "YCCK",
         " image (", width, "x", height, "); only gray, YCbCr and RGB JPEGs are decoded");
  if (width <= 0 || height <= 0)
    Fail(StatusCode::kInvalidArgument, "JPEG: the data ends before the frame header (SOF) that ",
         "gives the image size");
  CheckImageSize("JPEG", width, height, max_pixels);
  Image image(height, width, channels);
  const int format = channels == 3 ? TJPF_RGB : TJPF_GRAY;
  if (tjDecompress2(tj, bytes, static_cast<unsigned long>(size), image.data.data(), width,
                    width * channels, height, format, 0) != 0) {
    const std::string msg = tjGetErrorStr2(tj);
    // A warning leaves a whole image behind; only a truncated one is refused.
    if (tjGetErrorCode(tj) == TJERR_FATAL || msg.find(kPrematureEnd) != std::string::npos)
      Fail(StatusCode::kInvalidArgument, "JPEG: ", msg, " (", width, "x", height, " image)");
  }
  return image;
}

}  // namespace io

std::string EncodeJpeg(const Image& image, int quality) {
  io::CheckEncodable("JPEG", image);
  if (quality < 1 || quality > 100)
    Fail(StatusCode::kInvalidArgument, "JPEG: quality must be in [1, 100], given ", quality);
  io::TjHandle handle(tjInitCompress());
  io::CheckHandle(handle, "tjInitCompress");
  tjhandle tj = handle.h;
  unsigned char* out = nullptr;
  unsigned long out_size = 0;
  const int format = image.channels == 3 ? TJPF_RGB : TJPF_GRAY;
  const int subsamp = image.channels == 3 ? TJSAMP_420 : TJSAMP_GRAY;
  const int rc = tjCompress2(tj, image.data.data(), image.width, image.width * image.channels,
                             image.height, format, &out, &out_size, subsamp, quality, 0);
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(out, tjFree);
  if (rc != 0) Fail(StatusCode::kInternal, "JPEG encoding failed: ", tjGetErrorStr2(tj));
  return std::string(reinterpret_cast<const char*>(out), out_size);
}

}  // namespace weft
