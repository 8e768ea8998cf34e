// Images as the data pipeline sees them: 8-bit pixels in HWC order (rows of
// pixels, each pixel its channels), RGB for 3 channels, gray for 1; and the
// JPEG and PNG codecs that turn a record's bytes into one and back.
//
// Decoding stands in for MXNet's cv::imdecode(buf, 1) + BGR->RGB (and
// cv::imdecode(buf, 0) for 1 channel): JPEG through libjpeg-turbo's
// TurboJPEG API (accurate integer IDCT, fancy upsampling: what libjpeg does
// by default, so Pillow on the same libjpeg gives the same pixels), PNG
// through libpng (palette and gray expanded to RGB, alpha dropped, 16-bit
// samples reduced to their high byte as OpenCV does). libpng rather than
// stb_image: the system library is what Pillow and OpenCV link, it is
// maintained with security updates by the distribution, and it decodes
// interlaced, palette and 16-bit files with their exact rules, where stb is
// a vendored copy we would have to keep patched ourselves.
//
// Corrupt data is an Error(kInvalidArgument) naming the format and what the
// library reported ("JPEG: Premature end of JPEG file", "PNG: IHDR: CRC
// error"); a JPEG that libjpeg only warns about (extraneous bytes before a
// marker) decodes as OpenCV would decode it, except a truncated one (libjpeg
// would fill the rest gray), which is refused. CMYK/YCCK JPEGs are refused
// (kNotImplemented). Every function is stateless and thread-safe.
#ifndef WEFT_IMAGE_H_
#define WEFT_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft {

// An 8-bit image, `height` rows of `width` pixels of `channels` samples.
struct Image {
  int height = 0, width = 0, channels = 0;
  std::vector<uint8_t> data;  // height * width * channels, row major (HWC)

  Image() = default;
  Image(int h, int w, int c) : height(h), width(w), channels(c), data(size_t(h) * w * c) {}
  uint8_t* at(int y, int x) { return data.data() + (size_t(y) * width + x) * channels; }
  const uint8_t* at(int y, int x) const { return data.data() + (size_t(y) * width + x) * channels; }
  bool empty() const { return data.empty(); }
};

enum class ImageFormat { kUnknown, kJpeg, kPng };
// The format its first bytes announce (JPEG: FF D8; PNG: its 8-byte signature).
ImageFormat DetectImageFormat(const void* data, size_t size);

// The default bound on width * height a decoder accepts before allocating
// (2^28 pixels: 768 MiB as RGB).
constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

// Decodes a JPEG or PNG into `channels` (3: RGB, 1: gray) channels. Throws
// Error(kInvalidArgument) for bytes of neither format, corrupt or truncated
// data, or an image with more than `max_pixels` pixels (each naming the
// format and the cause); kNotImplemented for CMYK JPEGs; kInvalidArgument
// for channels other than 1 or 3.
Image DecodeImage(const void* data, size_t size, int channels = 3,
                  int64_t max_pixels = kMaxImagePixels);

// Encodes `image` (1 or 3 channels) as a baseline JPEG of `quality` (1..100,
// 4:2:0 chroma subsampling for RGB, as OpenCV's imencode writes it).
std::string EncodeJpeg(const Image& image, int quality);
// Encodes `image` (1 or 3 channels) as a PNG with zlib `compression` level
// (0..9; MXNet's im2rec passes its --quality as this level for .png).
std::string EncodePng(const Image& image, int compression);

}  // namespace weft

#endif  // WEFT_IMAGE_H_
