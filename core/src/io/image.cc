// DecodeImage: the format dispatch and checks shared by the JPEG and PNG
// codecs (weft/image.h).
#include <cstdio>
#include <cstring>

#include "io/image_codec.h"
#include "weft/image.h"
#include "weft/status.h"

namespace weft {

ImageFormat DetectImageFormat(const void* data, size_t size) {
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  const auto* b = static_cast<const unsigned char*>(data);
  if (size >= 2 && b[0] == 0xFF && b[1] == 0xD8) return ImageFormat::kJpeg;
  if (size >= 8 && std::memcmp(b, kPng, 8) == 0) return ImageFormat::kPng;
  return ImageFormat::kUnknown;
}

Image DecodeImage(const void* data, size_t size, int channels, int64_t max_pixels) {
  if (channels != 1 && channels != 3)
    Fail(StatusCode::kInvalidArgument, "DecodeImage: channels must be 1 (gray) or 3 (RGB), given ",
         channels);
  switch (DetectImageFormat(data, size)) {
    case ImageFormat::kJpeg:
      return io::DecodeJpeg(data, size, channels, max_pixels);
    case ImageFormat::kPng:
      return io::DecodePng(data, size, channels, max_pixels);
    default:
      break;
  }
  const auto* b = static_cast<const unsigned char*>(data);
  char head[3 * 8 + 1] = {0};
  for (size_t i = 0; i < size && i < 8; ++i) std::snprintf(head + 3 * i, 4, "%02x ", b[i]);
  Fail(StatusCode::kInvalidArgument, "DecodeImage: ", size,
       " bytes that are neither JPEG (ff d8) nor PNG (89 50 4e 47 0d 0a 1a 0a); they begin '",
       std::string(head, size == 0 ? 0 : std::strlen(head) - 1), "'");
}

namespace io {

void CheckImageSize(const char* format, int64_t width, int64_t height, int64_t max_pixels) {
  if (width <= 0 || height <= 0)
    Fail(StatusCode::kInvalidArgument, format, ": image size ", width, "x", height,
         " is not positive");
  if (width * height > max_pixels)
    Fail(StatusCode::kInvalidArgument, format, ": image of ", width, "x", height, " = ",
         width * height, " pixels is over the limit of ", max_pixels);
}

void CheckEncodable(const char* format, const Image& image) {
  if (image.channels != 1 && image.channels != 3)
    Fail(StatusCode::kInvalidArgument, format, " encoding: 1 or 3 channels, given ",
         image.channels);
  if (image.width <= 0 || image.height <= 0 ||
      image.data.size() != size_t(image.width) * image.height * image.channels)
    Fail(StatusCode::kInvalidArgument, format, " encoding: a ", image.height, "x", image.width, "x",
         image.channels, " image needs positive sizes and that many bytes, it holds ",
         image.data.size());
}

}  // namespace io
}  // namespace weft
