// JPEG and PNG decoding (weft/image.h) against Pillow and OpenCV on real
// photographs from Debian packages (tests/data/images/SOURCES.md; references
// by scripts/gen_image_refs.py), encode/decode round trips, and clear errors
// for corrupt, truncated and unsupported data.
//
// Tolerance: 0 for PNG (lossless; the same transforms as libpng-based
// decoders). For JPEG the test allows 1 per sample: the reference is Pillow
// on Debian's libjpeg62-turbo, the same library and the same defaults
// (accurate integer IDCT, fancy upsampling) as TurboJPEG here, so the pixels
// are equal on this system (the test also counts the differing samples and
// expects none), but a libjpeg built with another IDCT or upsampler (libjpeg
// 9, a SIMD variant) rounds some samples one step differently; a larger
// error means a wrong decode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/io/recordio_refs.h"
#include "util/test_util.h"
#include "weft/image.h"
#include "weft/npy.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using recordio_refs::ReadFile;

std::string ImagePath(const std::string& name) { return test::TestDataDir() + "/images/" + name; }

Image Decode(const std::string& file, int channels) {
  const std::string bytes = ReadFile(ImagePath(file));
  return DecodeImage(bytes.data(), bytes.size(), channels);
}

// Compares `got` with the uint8 .npy reference: the largest difference and
// the number of differing samples.
void ExpectMatches(const Image& got, const std::string& ref_file, int tolerance) {
  SCOPED_TRACE(ref_file);
  NDArray ref = LoadNpyFile(ImagePath(ref_file), &Runtime::Global());
  const Shape& s = ref.shape();
  ASSERT_EQ(got.height, s[0]);
  ASSERT_EQ(got.width, s[1]);
  ASSERT_EQ(got.channels, s.ndim() == 3 ? s[2] : 1);
  const std::vector<double> want = test::Values(ref);
  ASSERT_EQ(want.size(), got.data.size());
  int max_diff = 0;
  size_t differing = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const int d = std::abs(int(got.data[i]) - int(want[i]));
    max_diff = std::max(max_diff, d);
    differing += d != 0;
  }
  EXPECT_LE(max_diff, tolerance);
  EXPECT_EQ(differing, 0u) << "samples off by at most " << max_diff
                           << " (within tolerance, but this system's libjpeg should be exact)";
}

TEST(ImageDecode, JpegMatchesPillowAndOpenCV) {
  for (const char* stem :
       {"video-001.q50.420", "video-001.q50.422.progressive", "video-005.gray.q50"}) {
    const std::string file = std::string(stem) + ".jpeg";
    EXPECT_EQ(DetectImageFormat(ReadFile(ImagePath(file)).data(), 2), ImageFormat::kJpeg);
    ExpectMatches(Decode(file, 3), std::string(stem) + ".rgb.npy", 1);
    ExpectMatches(Decode(file, 1), std::string(stem) + ".gray.npy", 1);
  }
}

TEST(ImageDecode, PngMatchesPillowAndOpenCV) {
  for (const char* stem : {"video-001", "palette_color"}) {
    const std::string file = std::string(stem) + ".png";
    ExpectMatches(Decode(file, 3), std::string(stem) + ".rgb.npy", 0);
    ExpectMatches(Decode(file, 1), std::string(stem) + ".gray.npy", 0);
  }
}

TEST(ImageDecode, PngRoundTripIsExact) {
  for (int channels : {1, 3}) {
    Image img(7, 5, channels);
    for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t(i * 37 + 11);
    const std::string png = EncodePng(img, 6);
    const Image back = DecodeImage(png.data(), png.size(), channels);
    EXPECT_EQ(back.data, img.data);
    EXPECT_EQ(back.width, 5);
    EXPECT_EQ(back.height, 7);
  }
}

TEST(ImageDecode, JpegRoundTripIsClose) {
  // A smooth gradient survives quality 95 within a few levels.
  Image img(16, 24, 3);
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 24; ++x)
      for (int c = 0; c < 3; ++c) img.at(y, x)[c] = uint8_t(40 + 5 * x + 3 * y + 20 * c);
  const std::string jpg = EncodeJpeg(img, 95);
  ASSERT_EQ(DetectImageFormat(jpg.data(), jpg.size()), ImageFormat::kJpeg);
  const Image back = DecodeImage(jpg.data(), jpg.size(), 3);
  ASSERT_EQ(back.data.size(), img.data.size());
  int max_diff = 0;
  for (size_t i = 0; i < img.data.size(); ++i)
    max_diff = std::max(max_diff, std::abs(int(back.data[i]) - int(img.data[i])));
  EXPECT_LE(max_diff, 6);
}

TEST(ImageDecode, CorruptDataFailsWithTheCause) {
  test::ExpectError([] { Decode("video-001.cmyk.jpeg", 3); }, StatusCode::kNotImplemented,
                    {"JPEG", "CMYK"});
  const std::string jpeg = ReadFile(ImagePath("video-001.q50.420.jpeg"));
  // libjpeg would warn and fill the missing rows gray; a truncated file is refused.
  test::ExpectError([&] { DecodeImage(jpeg.data(), 2000, 3); }, StatusCode::kInvalidArgument,
                    {"JPEG", "Premature end", "150x103"});
  test::ExpectError([&] { DecodeImage(jpeg.data(), 100, 3); }, StatusCode::kInvalidArgument,
                    {"JPEG"});
  // A frame header (SOF0: FF C0, length, precision) announcing 7-bit samples.
  std::string bad_sof = jpeg;
  const size_t sof = bad_sof.find("\xff\xc0");
  ASSERT_NE(sof, std::string::npos);
  bad_sof[sof + 4] = 7;
  test::ExpectError([&] { DecodeImage(bad_sof.data(), bad_sof.size(), 3); },
                    StatusCode::kInvalidArgument, {"JPEG", "precision 7"});
  const std::string png = ReadFile(ImagePath("video-001.png"));
  std::string bad_crc = png;
  bad_crc[20] ^= 1;  // inside IHDR
  test::ExpectError([&] { DecodeImage(bad_crc.data(), bad_crc.size(), 3); },
                    StatusCode::kInvalidArgument, {"PNG", "CRC"});
  test::ExpectError([&] { DecodeImage(png.data(), png.size() / 2, 3); },
                    StatusCode::kInvalidArgument, {"PNG", "data ends"});
  test::ExpectError([] { DecodeImage("GIF89a..", 8, 3); }, StatusCode::kInvalidArgument,
                    {"neither JPEG", "47 49 46 38"});
  test::ExpectError([&] { DecodeImage(png.data(), png.size(), 4); }, StatusCode::kInvalidArgument,
                    {"channels", "given 4"});
  test::ExpectError([&] { DecodeImage(png.data(), png.size(), 3, 1000); },
                    StatusCode::kInvalidArgument, {"PNG", "150x103", "limit of 1000"});
  test::ExpectError([&] { DecodeImage(jpeg.data(), jpeg.size(), 3, 1000); },
                    StatusCode::kInvalidArgument, {"JPEG", "150x103", "limit of 1000"});
}

TEST(ImageEncode, BadArgumentsAreRefused) {
  Image img(2, 2, 3);
  test::ExpectError([&] { EncodeJpeg(img, 0); }, StatusCode::kInvalidArgument, {"quality"});
  test::ExpectError([&] { EncodePng(img, 10); }, StatusCode::kInvalidArgument, {"compression"});
  Image four(2, 2, 4);
  test::ExpectError([&] { EncodePng(four, 6); }, StatusCode::kInvalidArgument, {"given 4"});
  img.data.pop_back();
  test::ExpectError([&] { EncodeJpeg(img, 90); }, StatusCode::kInvalidArgument, {"holds 11"});
}

}  // namespace
}  // namespace weft
