// Image augmentation (weft/image_aug.h): resizing and MXNet's color steps
// against OpenCV (scripts/gen_image_aug_refs.py; exact: the references are
// OpenCV's own output on this data, and Weft's integer and float arithmetic
// is OpenCV's), and the crops of ImageAugmenter against their definitions
// in MXNet's image_aug_default.cc with fixed seeds, read back from images
// whose pixels hold their own coordinates.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "util/test_util.h"
#include "weft/image_aug.h"
#include "weft/npy.h"
#include "weft/runtime.h"

namespace weft {
namespace {

Image LoadRef(const std::string& path) {
  NDArray a = LoadNpyFile(test::TestDataDir() + "/" + path, &Runtime::Global());
  Image img(static_cast<int>(a.shape()[0]), static_cast<int>(a.shape()[1]),
            static_cast<int>(a.shape()[2]));
  const std::vector<double> v = test::Values(a);
  for (size_t i = 0; i < v.size(); ++i) img.data[i] = static_cast<uint8_t>(v[i]);
  return img;
}

Image Photo() { return LoadRef("images/video-001.q50.420.rgb.npy"); }
Image PhotoCrop() { return CropImage(Photo(), 50, 20, 40, 30); }

void ExpectSame(const Image& got, const std::string& ref) {
  SCOPED_TRACE(ref);
  const Image want = LoadRef("image_aug/" + ref + ".npy");
  ASSERT_EQ(got.height, want.height);
  ASSERT_EQ(got.width, want.width);
  ASSERT_EQ(got.channels, want.channels);
  size_t differing = 0;
  for (size_t i = 0; i < got.data.size(); ++i) differing += got.data[i] != want.data[i];
  EXPECT_EQ(differing, 0u);
}

// A w x h RGB image with R = x, G = y, B = 7.
Image CoordImage(int w, int h) {
  Image img(h, w, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      img.at(y, x)[0] = uint8_t(x);
      img.at(y, x)[1] = uint8_t(y);
      img.at(y, x)[2] = 7;
    }
  return img;
}

TEST(ImageResize, MatchesOpenCV) {
  const Image photo = Photo(), crop = PhotoCrop();
  ExpectSame(ResizeImage(photo, 61, 43, 1), "resize_bilinear_down");
  ExpectSame(ResizeImage(crop, 97, 71, 1), "resize_bilinear_up");
  ExpectSame(ResizeImage(crop, 20, 15, 1), "resize_bilinear_half");
  ExpectSame(ResizeImage(photo, 64, 40, 0), "resize_nearest_down");
  ExpectSame(ResizeImage(crop, 53, 77, 0), "resize_nearest_up");
  EXPECT_EQ(ResizeImage(crop, 40, 30, 1).data, crop.data);
  test::ExpectError([&] { ResizeImage(crop, 10, 10, 2); }, StatusCode::kNotImplemented,
                    {"inter_method 2", "cubic"});
  test::ExpectError([&] { ResizeImage(crop, 0, 10, 1); }, StatusCode::kInvalidArgument,
                    {"40x30 to 0x10"});
}

TEST(ImageColor, MatchesMXNetOnOpenCV) {
  Image img = PhotoCrop();
  AdjustBrightness(&img, 1.3f);
  ExpectSame(img, "brightness");
  for (float a : {0.6f, 1.4f}) {
    img = PhotoCrop();
    AdjustContrast(&img, a);
    ExpectSame(img, a < 1 ? "contrast_0.6" : "contrast_1.4");
    img = PhotoCrop();
    AdjustSaturation(&img, a < 1 ? 0.5f : 1.6f);
    ExpectSame(img, a < 1 ? "saturation_0.5" : "saturation_1.6");
  }
  img = PhotoCrop();
  const float draws[3] = {0.05f, -0.08f, 0.12f};
  AddPcaNoise(&img, draws);
  ExpectSame(img, "pca");
}

TEST(ImageGeometry, CropPadFlipByDefinition) {
  const Image src = CoordImage(10, 8);
  const Image c = CropImage(src, 3, 2, 4, 5);
  EXPECT_EQ(c.width, 4);
  EXPECT_EQ(c.height, 5);
  EXPECT_EQ(c.at(0, 0)[0], 3);
  EXPECT_EQ(c.at(0, 0)[1], 2);
  EXPECT_EQ(c.at(4, 3)[0], 6);
  EXPECT_EQ(c.at(4, 3)[1], 6);
  test::ExpectError([&] { CropImage(src, 7, 0, 4, 1); }, StatusCode::kInvalidArgument,
                    {"4x1 at (7, 0)", "10x8"});
  const Image p = PadImage(src, 2, 200);
  EXPECT_EQ(p.width, 14);
  EXPECT_EQ(p.at(0, 0)[0], 200);
  EXPECT_EQ(p.at(2, 2)[0], 0);
  EXPECT_EQ(p.at(9, 11)[1], 7);
  Image f = src;
  FlipLeftRight(&f);
  for (int x = 0; x < 10; ++x) EXPECT_EQ(f.at(3, x)[0], 9 - x);
  EXPECT_EQ(f.at(3, 0)[1], 3);
}

ImageAugParams Params(int c, int h, int w) {
  ImageAugParams p;
  p.data_shape = Shape({c, h, w});
  return p;
}

TEST(ImageAugmenter, CenterCropTakesTheMiddle) {
  ImageAugmenter aug(Params(3, 4, 6));
  std::mt19937 rng(1);
  const Image out = aug.Process(CoordImage(11, 9), &rng);
  ASSERT_EQ(out.width, 6);
  ASSERT_EQ(out.height, 4);
  EXPECT_EQ(out.at(0, 0)[0], (11 - 6) / 2);  // MXNet: x = (cols - w) / 2
  EXPECT_EQ(out.at(0, 0)[1], (9 - 4) / 2);
}

TEST(ImageAugmenter, RandCropDrawsYThenXUniformly) {
  ImageAugParams p = Params(3, 4, 6);
  p.rand_crop = true;
  ImageAugmenter aug(p);
  std::set<std::pair<int, int>> seen;
  for (unsigned seed = 0; seed < 400; ++seed) {
    std::mt19937 rng(seed), def(seed);
    const Image out = aug.Process(CoordImage(11, 9), &rng);
    // MXNet: y = uniform_int(0, rows - h), then x = uniform_int(0, cols - w).
    const int y = std::uniform_int_distribution<int>(0, 9 - 4)(def);
    const int x = std::uniform_int_distribution<int>(0, 11 - 6)(def);
    ASSERT_EQ(out.at(0, 0)[0], x) << "seed " << seed;
    ASSERT_EQ(out.at(0, 0)[1], y) << "seed " << seed;
    seen.insert({x, y});
  }
  EXPECT_EQ(seen.size(), 36u);  // every position of the 6 x 6 possible
}

TEST(ImageAugmenter, ResizeShorterSideThenCrop) {
  ImageAugParams p = Params(3, 52, 60);
  p.resize = 52;
  ImageAugmenter aug(p);
  std::mt19937 rng(0);
  const Image out = aug.Process(Photo(), &rng);
  // 150x103 -> shorter side 52: 52 x (52 * 150 / 103 = 75), then the middle 60 columns.
  const Image want = CropImage(ResizeImage(Photo(), 75, 52, 1), (75 - 60) / 2, 0, 60, 52);
  EXPECT_EQ(out.data, want.data);
}

TEST(ImageAugmenter, RandomResizedCropBoxesStayInTheirRanges) {
  // Output = source size: every crop fits and is upsampled (or kept), and
  // MXNet's fallback after ten failed draws, a center crop, is the identity.
  ImageAugParams p = Params(3, 50, 60);
  p.random_resized_crop = true;
  p.min_random_area = 0.08f;
  p.max_random_area = 1;
  p.min_aspect_ratio = 0.75f;
  p.max_aspect_ratio = 4.0f / 3;
  p.inter_method = 0;  // nearest: upsampled crops show their box exactly
  ImageAugmenter aug(p);
  const Image src = CoordImage(60, 50);
  int cropped = 0;
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    const Image out = aug.Process(src, &rng);
    ASSERT_EQ(out.width, 60);
    ASSERT_EQ(out.height, 50);
    const int x0 = out.at(0, 0)[0], y0 = out.at(0, 0)[1];
    const int w = out.at(49, 59)[0] - x0 + 1, h = out.at(49, 59)[1] - y0 + 1;
    if (w == 60 && h == 50) continue;  // the fallback (or a whole-image draw)
    ++cropped;
    const double area = double(w) * h / (60.0 * 50.0);
    EXPECT_GE(area, 0.08 * 0.8) << "seed " << seed;  // rounding of a small box's sides
    EXPECT_LE(area, 1.0) << "seed " << seed;
    const double ratio = std::max(double(w) / h, double(h) / w);  // MXNet swaps w, h at random
    EXPECT_LE(ratio, 4.0 / 3 * 1.15) << "seed " << seed << " box " << w << "x" << h;
  }
  EXPECT_GT(cropped, 150);
}

TEST(ImageAugmenter, RefusesWhatMXNetRefusesAndWhatIsMissing) {
  ImageAugParams p = Params(3, 8, 8);
  p.random_resized_crop = true;
  p.rand_crop = true;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument,
                    {"random_resized_crop conflicts"});
  p = Params(3, 8, 8);
  p.max_rotate_angle = 10;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kNotImplemented,
                    {"max_rotate_angle"});
  p = Params(3, 8, 8);
  p.max_aspect_ratio = 0.25f;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kNotImplemented, {"aspect ratio"});
  p = Params(3, 8, 8);
  p.inter_method = 9;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kNotImplemented, {"inter_method 9"});
  p = Params(3, 0, 8);
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument, {"data_shape"});
  p = Params(1, 8, 8);
  p.pca_noise = 0.1f;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument, {"pca_noise"});
  p = Params(3, 8, 8);
  p.max_crop_size = 20;
  p.min_crop_size = 10;
  ImageAugmenter small(p);
  std::mt19937 rng(0);
  test::ExpectError([&] { small.Process(CoordImage(12, 12), &rng); }, StatusCode::kInvalidArgument,
                    {"12x12", "max_crop_size 20"});
}

}  // namespace
}  // namespace weft
