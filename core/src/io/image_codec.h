// The JPEG and PNG decoders behind weft::DecodeImage (weft/image.h) and the
// checks they share. Not installed; stateless and thread-safe.
#ifndef WEFT_CORE_SRC_IO_IMAGE_CODEC_H_
#define WEFT_CORE_SRC_IO_IMAGE_CODEC_H_

#include <cstddef>
#include <cstdint>

#include "weft/image.h"

namespace weft {
namespace io {

// REQUIRES: channels is 1 or 3 (DecodeImage checks).
Image DecodeJpeg(const void* data, size_t size, int channels, int64_t max_pixels);
Image DecodePng(const void* data, size_t size, int channels, int64_t max_pixels);

// Throws Error(kInvalidArgument) naming `format` unless 0 < width, height and
// width * height <= max_pixels.
void CheckImageSize(const char* format, int64_t width, int64_t height, int64_t max_pixels);
// Throws Error(kInvalidArgument) naming `format` unless `image` has 1 or 3
// channels, a positive size and data of that size.
void CheckEncodable(const char* format, const Image& image);

}  // namespace io
}  // namespace weft

#endif  // WEFT_CORE_SRC_IO_IMAGE_CODEC_H_
