// PNG decoding and encoding on libpng 1.6 (weft/image.h). libpng reports
// errors by longjmp: each libpng call sequence runs in a function whose only
// locals are trivial, with every C++ object it fills owned by its caller, so
// the jump skips no destructor and leaves no object half-built.
#include <png.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/image_codec.h"
#include "weft/status.h"

namespace weft {
namespace io {
namespace {

struct PngIO {
  const unsigned char* data = nullptr;  // reading: the encoded bytes
  size_t size = 0, pos = 0;
  std::string* out = nullptr;  // writing: the encoded bytes
  char error[256] = {0};
};

void ReadBytes(png_structp png, png_bytep dst, png_size_t n) {
  auto* io = static_cast<PngIO*>(png_get_io_ptr(png));
  if (n > io->size - io->pos) png_error(png, "data ends before the image does");
  std::memcpy(dst, io->data + io->pos, n);
  io->pos += n;
}

void WriteBytes(png_structp png, png_bytep src, png_size_t n) {
  static_cast<PngIO*>(png_get_io_ptr(png))->out->append(reinterpret_cast<const char*>(src), n);
}

void FlushBytes(png_structp) {}

[[noreturn]] void OnError(png_structp png, png_const_charp msg) {
  auto* io = static_cast<PngIO*>(png_get_error_ptr(png));
  std::snprintf(io->error, sizeof(io->error), "%s", msg);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}

// The transforms that give 8-bit RGB (or gray) without alpha, as OpenCV's
// PNG decoder asks libpng for them.
void SetTransforms(png_structp png, png_infop info, int channels) {
  const int depth = png_get_bit_depth(png, info);
  const int color = png_get_color_type(png, info);
  if (depth == 16) png_set_strip_16(png);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if ((color & PNG_COLOR_MASK_COLOR) == 0 && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  png_set_strip_alpha(png);
  const bool color_source = (color & PNG_COLOR_MASK_COLOR) != 0;
  if (channels == 3 && !color_source) png_set_gray_to_rgb(png);
  if (channels == 1 && color_source) png_set_rgb_to_gray(png, 1, 0.299, 0.587);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
}

// Reads the image into `*image`; false when libpng failed (io->error says why).
bool ReadPng(png_structp png, png_infop info, int channels, int64_t max_pixels, PngIO* io,
             Image* image, std::vector<png_bytep>* rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, io, ReadBytes);
  png_read_info(png, info);
  const int64_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  CheckImageSize("PNG", width, height, max_pixels);
  SetTransforms(png, info, channels);
  if (png_get_channels(png, info) != channels || png_get_bit_depth(png, info) != 8 ||
      png_get_rowbytes(png, info) != size_t(width) * channels)
    png_error(png, "unexpected layout after the 8-bit transforms");
  *image = Image(static_cast<int>(height), static_cast<int>(width), channels);
  rows->resize(static_cast<size_t>(height));
  for (int64_t y = 0; y < height; ++y) (*rows)[y] = image->at(static_cast<int>(y), 0);
  png_read_image(png, rows->data());
  png_read_end(png, nullptr);
  return true;
}

bool WritePng(png_structp png, png_infop info, const Image& image, int compression, PngIO* io,
              std::vector<png_bytep>* rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, io, WriteBytes, FlushBytes);
  png_set_compression_level(png, compression);
  png_set_IHDR(png, info, image.width, image.height, 8,
               image.channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows->data());
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

Image DecodePng(const void* data, size_t size, int channels, int64_t max_pixels) {
  PngIO io;
  io.data = static_cast<const unsigned char*>(data);
  io.size = size;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, OnError, OnWarning);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    Fail(StatusCode::kOutOfMemory, "PNG: libpng could not allocate its reader");
  }
  Image image;
  std::vector<png_bytep> rows;
  bool ok = false;
  try {
    ok = ReadPng(png, info, channels, max_pixels, &io, &image, &rows);
  } catch (...) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw;
  }
  png_destroy_read_struct(&png, &info, nullptr);
  if (!ok) Fail(StatusCode::kInvalidArgument, "PNG: ", io.error);
  return image;
}

}  // namespace io

std::string EncodePng(const Image& image, int compression) {
  io::CheckEncodable("PNG", image);
  if (compression < 0 || compression > 9)
    Fail(StatusCode::kInvalidArgument, "PNG: compression must be in [0, 9], given ", compression);
  std::string out;
  io::PngIO io;
  io.out = &out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, io::OnError, io::OnWarning);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    Fail(StatusCode::kOutOfMemory, "PNG: libpng could not allocate its writer");
  }
  std::vector<png_bytep> rows(image.height);
  for (int y = 0; y < image.height; ++y) rows[y] = const_cast<png_bytep>(image.at(y, 0));
  const bool ok = io::WritePng(png, info, image, compression, &io, &rows);
  png_destroy_write_struct(&png, &info);
  if (!ok) Fail(StatusCode::kInternal, "PNG encoding failed: ", io.error);
  return out;
}

}  // namespace weft
