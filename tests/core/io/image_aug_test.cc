// Image augmentation (weft/image_aug.h): resizing, MXNet's color steps, the
// affine warp and the HSL jitter against OpenCV
// (scripts/gen_image_aug_refs.py; exact: the references are
// OpenCV's own output on this data, and Weft's integer and float arithmetic
// is OpenCV's), and the crops of ImageAugmenter against their definitions
// in MXNet's image_aug_default.cc with fixed seeds, read back from images
// whose pixels hold their own coordinates.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

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
  test::ExpectError([&] { ResizeImage(crop, 10, 10, 5); }, StatusCode::kInvalidArgument,
                    {"inter_method must be", "given 5"});
  test::ExpectError([&] { ResizeImage(crop, 0, 10, 1); }, StatusCode::kInvalidArgument,
                    {"40x30 to 0x10"});
}

// Cubic (2), area (3) and Lanczos-4 (4), against cv2.resize.
TEST(ImageResize, CubicAreaLanczosMatchOpenCV) {
  const Image photo = Photo(), crop = PhotoCrop();
  ExpectSame(ResizeImage(photo, 61, 43, 2), "resize_cubic_down");
  ExpectSame(ResizeImage(crop, 97, 71, 2), "resize_cubic_up");
  ExpectSame(ResizeImage(photo, 61, 43, 4), "resize_lanczos_down");
  ExpectSame(ResizeImage(crop, 97, 71, 4), "resize_lanczos_up");
  ExpectSame(ResizeImage(photo, 61, 43, 3), "resize_area_down");
  ExpectSame(ResizeImage(crop, 13, 10, 3), "resize_area_third");
  ExpectSame(ResizeImage(crop, 10, 10, 3), "resize_area_blocks");
  ExpectSame(ResizeImage(crop, 97, 71, 3), "resize_area_up");
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

// inter_method 9 picks cubic to enlarge, area to shrink and bilinear
// otherwise; 10 draws one of 0-4 per resize from the generator (MXNet's
// GetInterMethod).
TEST(ImageAugmenter, AutoAndRandomInterpolation) {
  const Image photo = Photo();  // 150x103
  auto process = [&](int resize, int method, int seed, int out_w) {
    ImageAugParams p = Params(3, resize, out_w);
    p.resize = resize;
    p.inter_method = method;
    std::mt19937 rng(seed);
    return ImageAugmenter(p).Process(photo, &rng).data;
  };
  // 103 -> 206 (150 -> 300): both sides grow, cubic.
  EXPECT_EQ(process(206, 9, 0, 300), ResizeImage(photo, 300, 206, 2).data);
  // 103 -> 52 (150 -> 75): both shrink, area.
  EXPECT_EQ(process(52, 9, 0, 75), ResizeImage(photo, 75, 52, 3).data);
  // 103 -> 103 (150 -> 150): neither, bilinear (the identity).
  EXPECT_EQ(process(103, 9, 0, 150), photo.data);
  std::set<int> drawn;
  for (int seed = 0; seed < 12; ++seed) {
    std::mt19937 copy(seed);
    const int method = static_cast<int>(std::uniform_int_distribution<size_t>(0, 4)(copy));
    drawn.insert(method);
    EXPECT_EQ(process(52, 10, seed, 75), ResizeImage(photo, 75, 52, method).data) << seed;
  }
  EXPECT_GE(drawn.size(), 3u);
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
  p.random_resized_crop = true;
  p.max_random_scale = 1.5f;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument,
                    {"random_resized_crop conflicts", "max_random_scale"});
  p = Params(3, 8, 8);
  p.max_rotate_angle = 10;
  p.inter_method = 0;  // MXNet's warp refuses nearest
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument,
                    {"inter_method 0", "warp"});
  p = Params(3, 8, 8);
  p.max_rotate_angle = -3;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument,
                    {"max_rotate_angle", "-3"});
  p = Params(3, 8, 8);
  p.max_aspect_ratio = 1.5f;  // [-0.5, 2.5]
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument, {"aspect ratio"});
  p = Params(1, 8, 8);
  p.random_l = 10;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument,
                    {"random_h / random_s / random_l", "3"});
  p = Params(3, 8, 8);
  p.inter_method = 7;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kInvalidArgument,
                    {"inter_method must be 0-4, 9 or 10", "given 7"});
  p.inter_method = 9;
  p.max_rotate_angle = 10;
  test::ExpectError([&] { ImageAugmenter a(p); }, StatusCode::kNotImplemented,
                    {"affine warp", "given 9"});
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

TEST(ImageWarp, MatchesOpenCV) {
  const AffineWarp c = AffineAugMatrix(40, 30, 30, 0.2f, 0.8f, 1.2f, 0, 1e10f);
  EXPECT_EQ(c.width, 32);  // 0.8 * 40
  EXPECT_EQ(c.height, 24);
  ExpectSame(WarpAffineImage(PhotoCrop(), c.matrix, c.width, c.height, 50), "warp_crop");
  const AffineWarp p = AffineAugMatrix(150, 103, -17, -0.1f, 1.3f, 0.9f, 0, 120);
  EXPECT_EQ(p.width, 120);  // 1.3 * 150 and 1.3 * 103, bounded by max_img_size
  EXPECT_EQ(p.height, 120);
  ExpectSame(WarpAffineImage(Photo(), p.matrix, p.width, p.height, 255), "warp_photo");
  test::ExpectError([] { AffineAugMatrix(40, 30, 0, 0, 1, 1, 40000, 1e10f); },
                    StatusCode::kInvalidArgument, {"40000x40000", "32767"});
}

TEST(ImageWarp, Rotate90IsATransposedFlip) {
  // MXNet rotates about (n / 2, n / 2), half a pixel off the centre of an
  // n x n grid: source (x, y) lands on (y, n - x), so the destination's
  // row 0 would read column n (outside: the fill) and row r column n - r.
  const int n = 7;
  ImageAugParams p = Params(3, n, n);
  p.rotate = 90;
  p.fill_value = 200;
  ImageAugmenter aug(p);
  const Image src = CoordImage(n, n);
  std::mt19937 rng(3);
  const Image out = aug.Process(src, &rng);
  ASSERT_EQ(out.width, n);
  ASSERT_EQ(out.height, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      for (int k = 0; k < 3; ++k) {
        const int want = y == 0 ? 200 : src.at(x, n - y)[k];
        ASSERT_EQ(out.at(y, x)[k], want) << "(" << x << ", " << y << ") channel " << k;
      }
}

TEST(ImageWarp, ShearOfAConstantImageStaysConstantInside) {
  Image flat(16, 20, 3);
  std::fill(flat.data.begin(), flat.data.end(), uint8_t{90});
  ImageAugParams p = Params(3, 16, 20);
  p.max_shear_ratio = 0.5f;
  p.fill_value = 90;
  for (unsigned seed = 0; seed < 5; ++seed) {
    std::mt19937 rng(seed);
    const Image same = ImageAugmenter(p).Process(flat, &rng);
    EXPECT_TRUE(std::all_of(same.data.begin(), same.data.end(), [](uint8_t v) { return v == 90; }));
  }
  // Another fill: the border blends toward it, the centre keeps the image.
  p.fill_value = 10;
  std::mt19937 rng(4);
  const Image out = ImageAugmenter(p).Process(flat, &rng);
  EXPECT_EQ(out.at(8, 10)[0], 90);
  EXPECT_TRUE(
      std::all_of(out.data.begin(), out.data.end(), [](uint8_t v) { return v >= 10 && v <= 90; }));
  EXPECT_TRUE(std::any_of(out.data.begin(), out.data.end(), [](uint8_t v) { return v < 90; }));
}

TEST(ImageAugmenter, WarpDrawsShearAngleScaleThenRatio) {
  ImageAugParams p = Params(3, 40, 50);
  p.max_rotate_angle = 25;
  p.max_shear_ratio = 0.3f;
  p.min_random_scale = 0.8f;
  p.max_random_scale = 1.2f;
  p.max_aspect_ratio = 0.25f;  // ratio in [0.75, 1.25]
  p.fill_value = 0;
  ImageAugmenter aug(p);
  std::set<int> angles;
  for (unsigned seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(seed), def(seed);
    const Image out = aug.Process(Photo(), &rng);
    std::uniform_real_distribution<float> unit(0, 1);
    const float shear = unit(def) * 0.3f * 2 - 0.3f;
    const int angle = std::uniform_int_distribution<int>(-25, 25)(def);
    const float scale = unit(def) * (1.2f - 0.8f) + 0.8f;
    const float ratio = unit(def) * (1.25f - 0.75f) + 0.75f;
    const AffineWarp w = AffineAugMatrix(150, 103, angle, shear, scale, ratio, 0, 1e10f);
    const Image warped = WarpAffineImage(Photo(), w.matrix, w.width, w.height, 0);
    const Image want = CropImage(warped, (warped.width - 50) / 2, (warped.height - 40) / 2, 50, 40);
    ASSERT_EQ(out.data, want.data) << "seed " << seed;
    angles.insert(angle);
  }
  EXPECT_GT(angles.size(), 10u);
}

TEST(ImageHls, MatchesOpenCV) {
  const int shifts[3][3] = {{0, 0, 0}, {20, -15, 30}, {-40, 25, -60}};
  const char* refs[3] = {"hls_zero", "hls_a", "hls_b"};
  for (int i = 0; i < 3; ++i) {
    Image img = PhotoCrop();
    ShiftHls(&img, shifts[i][0], shifts[i][1], shifts[i][2]);
    ExpectSame(img, refs[i]);
  }
  Image gray(2, 2, 1);
  test::ExpectError([&] { ShiftHls(&gray, 1, 0, 0); }, StatusCode::kInvalidArgument,
                    {"RGB", "1 channel"});
}

TEST(ImageHls, RoundTripOfPrimariesAndGrayInClosedForm) {
  // Pure red: L = (1 + 0) / 2 * 255 = 127.5 -> 128 (ties to even), S = 1,
  // H = 0. Back: p2 = l + s - l s = 1, p1 = 2 l - p2 = 1 / 255, so
  // (255, 1, 1). Green (H = 120 degrees -> 60) the same way; a gray pixel
  // has S = 0 and comes back unchanged.
  Image img(1, 3, 3);
  const uint8_t in[9] = {255, 0, 0, 0, 255, 0, 77, 77, 77};
  std::copy_n(in, 9, img.data.begin());
  ShiftHls(&img, 0, 0, 0);
  EXPECT_EQ(img.data, (std::vector<uint8_t>{255, 1, 1, 1, 255, 1, 77, 77, 77}));
  // +60 hue (120 degrees) turns red into green; full lightness is white.
  Image red(1, 1, 3);
  std::copy_n(in, 3, red.data.begin());
  ShiftHls(&red, 60, 0, 0);
  EXPECT_EQ(red.data, (std::vector<uint8_t>{1, 255, 1}));
  std::copy_n(in, 3, red.data.begin());
  ShiftHls(&red, 0, 200, 0);
  EXPECT_EQ(red.data, (std::vector<uint8_t>{255, 255, 255}));
}

TEST(ImageAugmenter, HslJitterDrawsAndTruncatesItsOffsets) {
  ImageAugParams p = Params(3, 30, 40);
  ImageAugmenter none(p);
  std::mt19937 rng(0);
  EXPECT_EQ(none.Process(PhotoCrop(), &rng).data, PhotoCrop().data);  // zero ranges: skipped
  // Range 1: each offset lies in [-1, 1) and truncates to 0, leaving the
  // 8-bit round trip.
  p.random_h = p.random_s = p.random_l = 1;
  Image trip = PhotoCrop();
  ShiftHls(&trip, 0, 0, 0);
  for (unsigned seed = 0; seed < 5; ++seed) {
    std::mt19937 r(seed);
    EXPECT_EQ(ImageAugmenter(p).Process(PhotoCrop(), &r).data, trip.data);
  }
  p.random_h = 30, p.random_s = 40, p.random_l = 50;
  ImageAugmenter aug(p);
  for (unsigned seed = 0; seed < 10; ++seed) {
    std::mt19937 r(seed), def(seed);
    std::uniform_real_distribution<float> unit(0, 1);
    float d[3];
    for (float& v : d) {
      v = unit(def);
      v = (v + 4 * unit(def)) / 5;
    }
    Image want = PhotoCrop();
    ShiftHls(&want, static_cast<int>(d[0] * 30 * 2 - 30), static_cast<int>(d[2] * 50 * 2 - 50),
             static_cast<int>(d[1] * 40 * 2 - 40));
    ASSERT_EQ(aug.Process(PhotoCrop(), &r).data, want.data) << "seed " << seed;
  }
}

}  // namespace
}  // namespace weft
