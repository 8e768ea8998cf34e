// ImageAugmenter (weft/image_aug.h): MXNet 1.9.1's DefaultImageAugmenter::
// Process step by step, with its random draws in its order (uniform float
// and int distributions of the caller's std::mt19937, MXNet's engine).
#include <algorithm>
#include <cmath>
#include <utility>

#include "weft/image_aug.h"
#include "weft/status.h"

namespace weft {
namespace {

void CheckParams(const ImageAugParams& p) {
  const Shape& s = p.data_shape;
  if (s.ndim() != 3 || s[0] <= 0 || s[1] <= 0 || s[2] <= 0)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: data_shape must be (channels, height, ",
         "width) with nonzero extents, given ", s);
  if (s[0] != 1 && s[0] != 3)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: data_shape[0] (channels) must be 1 or 3, ",
         "given ", s[0]);
  if (p.resize != -1 && p.resize < 1)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: resize must be -1 or positive, given ",
         p.resize);
  if ((p.inter_method < 0 || p.inter_method > 4) && p.inter_method != 9 && p.inter_method != 10)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: inter_method must be 0-4, 9 or 10, ",
         "given ", p.inter_method);
  if (p.pad < 0) Fail(StatusCode::kInvalidArgument, "ImageAugmenter: pad must be >= 0");
  if (p.pca_noise > 0 && s[0] != 3)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: pca_noise needs 3 channels, data_shape ",
         s);
  if (p.max_rotate_angle < 0)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: max_rotate_angle must be >= 0, given ",
         p.max_rotate_angle);
  if (p.min_random_scale <= 0 || p.min_random_scale > p.max_random_scale)
    Fail(StatusCode::kInvalidArgument,
         "ImageAugmenter: need 0 < min_random_scale <= ", "max_random_scale, given [",
         p.min_random_scale, ", ", p.max_random_scale, "]");
  if (p.min_img_size > p.max_img_size)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: min_img_size ", p.min_img_size,
         " > max_img_size ", p.max_img_size);
  if ((p.random_h != 0 || p.random_s != 0 || p.random_l != 0) && s[0] != 3)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: random_h / random_s / random_l need 3 ",
         "channels, data_shape ", s);
}

}  // namespace

ImageAugmenter::ImageAugmenter(const ImageAugParams& params) : params_(params) {
  CheckParams(params_);
  const ImageAugParams& p = params_;
  if (p.min_aspect_ratio >= 0) {
    min_ratio_ = p.min_aspect_ratio;
    max_ratio_ = p.max_aspect_ratio;
  } else {
    min_ratio_ = 1 - p.max_aspect_ratio;
    max_ratio_ = 1 + p.max_aspect_ratio;
  }
  if (NeedsWarp()) {
    if (p.inter_method == 0)
      Fail(StatusCode::kInvalidArgument, "ImageAugmenter: inter_method 0 (nearest) cannot warp ",
           "(rotation, shear, random scale, aspect ratio or image size bounds); MXNet accepts ",
           "1, 2, 3, 4, 9 or 10 there");
    if (p.inter_method != 1 && p.inter_method != 3)
      Fail(StatusCode::kNotImplemented, "ImageAugmenter: the affine warp (rotation, shear, ",
           "random scale, aspect ratio or image size bounds) is bilinear: inter_method 1 or 3 ",
           "(area, which OpenCV warps bilinearly), given ", p.inter_method);
    if (!p.random_resized_crop && min_ratio_ <= 0)
      Fail(StatusCode::kInvalidArgument, "ImageAugmenter: the aspect ratio range must be ",
           "positive, given [", min_ratio_, ", ", max_ratio_, "]");
  }
  if (p.random_resized_crop) {
    if (p.rand_crop || p.min_crop_size != -1 || p.max_crop_size != -1 || p.min_random_scale != 1 ||
        p.max_random_scale != 1)
      Fail(StatusCode::kInvalidArgument, "ImageAugmenter: random_resized_crop conflicts with ",
           "min_random_scale, max_random_scale, rand_crop, min_crop_size and max_crop_size");
    if (min_ratio_ <= 0 || min_ratio_ > max_ratio_ || p.min_random_area > p.max_random_area)
      Fail(StatusCode::kInvalidArgument, "ImageAugmenter: random_resized_crop needs 0 < ",
           "min_aspect_ratio <= max_aspect_ratio and min_random_area <= max_random_area, given ",
           "ratio [", min_ratio_, ", ", max_ratio_, "], area [", p.min_random_area, ", ",
           p.max_random_area, "]");
  }
}

Image ImageAugmenter::Process(Image src, std::mt19937* rng) const {
  const ImageAugParams& p = params_;
  Image res = std::move(src);
  if (p.resize != -1) {
    int64_t h = p.resize, w = p.resize;
    if (res.height > res.width)
      h = int64_t{p.resize} * res.height / res.width;
    else
      w = int64_t{p.resize} * res.width / res.height;
    res = ResizeImage(res, static_cast<int>(w), static_cast<int>(h),
                      Method(res.width, res.height, static_cast<int>(w), static_cast<int>(h), rng));
  }
  if (NeedsWarp()) res = Warp(res, rng);
  if (p.pad > 0) res = PadImage(res, p.pad, p.fill_value);
  res = Crop(std::move(res), rng);
  if (p.brightness > 0 || p.contrast > 0 || p.saturation > 0) ColorJitter(&res, rng);
  if (p.random_h != 0 || p.random_s != 0 || p.random_l != 0) HslJitter(&res, rng);
  if (p.pca_noise > 0) {
    std::normal_distribution<float> normal(0, p.pca_noise);
    float alpha[3];
    for (float& a : alpha) a = normal(*rng);
    AddPcaNoise(&res, alpha);
  }
  return res;
}

int ImageAugmenter::Method(int old_w, int old_h, int new_w, int new_h, std::mt19937* rng) const {
  const int m = params_.inter_method;
  if (m == 9) {
    if (new_w > old_w && new_h > old_h) return 2;
    if (new_w < old_w && new_h < old_h) return 3;
    return 1;
  }
  if (m == 10) return static_cast<int>(std::uniform_int_distribution<size_t>(0, 4)(*rng));
  return m;
}

bool ImageAugmenter::NeedsWarp() const {
  const ImageAugParams& p = params_;
  return p.max_rotate_angle > 0 || p.max_shear_ratio > 0 || p.rotate > 0 ||
         !p.rotate_list.empty() || p.max_random_scale != 1 || p.min_random_scale != 1 ||
         (!p.random_resized_crop && (min_ratio_ != 1 || max_ratio_ != 1)) ||
         p.max_img_size != 1e10f || p.min_img_size != 0;
}

// MXNet's draws: shear, angle (always, then overridden by rotate or
// rotate_list), scale and ratio (without random_resized_crop).
Image ImageAugmenter::Warp(const Image& res, std::mt19937* rng) const {
  const ImageAugParams& p = params_;
  std::uniform_real_distribution<float> unit(0, 1);
  const float shear = unit(*rng) * p.max_shear_ratio * 2 - p.max_shear_ratio;
  int angle = std::uniform_int_distribution<int>(-p.max_rotate_angle, p.max_rotate_angle)(*rng);
  if (p.rotate > 0) angle = p.rotate;
  if (!p.rotate_list.empty()) {
    const int last = static_cast<int>(p.rotate_list.size()) - 1;
    angle = p.rotate_list[std::uniform_int_distribution<int>(0, last)(*rng)];
  }
  float scale = 1, ratio = 1;
  if (!p.random_resized_crop) {
    scale = unit(*rng) * (p.max_random_scale - p.min_random_scale) + p.min_random_scale;
    ratio = unit(*rng) * (max_ratio_ - min_ratio_) + min_ratio_;
  }
  const AffineWarp w = AffineAugMatrix(res.width, res.height, angle, shear, scale, ratio,
                                       p.min_img_size, p.max_img_size);
  return WarpAffineImage(res, w.matrix, w.width, w.height, p.fill_value);
}

// MXNet's offsets: each the mean of one draw and four times another, over
// five, mapped to [-v, v] and truncated toward zero; H, then S, then L.
void ImageAugmenter::HslJitter(Image* res, std::mt19937* rng) const {
  const ImageAugParams& p = params_;
  std::uniform_real_distribution<float> unit(0, 1);
  float r[3];
  for (float& v : r) {
    v = unit(*rng);
    v += 4 * unit(*rng);
    v = v / 5;
  }
  const int dh = static_cast<int>(r[0] * p.random_h * 2 - p.random_h);
  const int ds = static_cast<int>(r[1] * p.random_s * 2 - p.random_s);
  const int dl = static_cast<int>(r[2] * p.random_l * 2 - p.random_l);
  ShiftHls(res, dh, dl, ds);
}

Image ImageAugmenter::Crop(Image res, std::mt19937* rng) const {
  const ImageAugParams& p = params_;
  const int out_h = static_cast<int>(p.data_shape[1]), out_w = static_cast<int>(p.data_shape[2]);
  if (p.random_resized_crop) {
    bool cropped = false;
    Image out = RandomResizedCrop(res, rng, &cropped);
    if (cropped) return out;
  } else if (p.max_crop_size != -1 || p.min_crop_size != -1) {
    if (res.width < p.max_crop_size || res.height < p.max_crop_size ||
        p.max_crop_size < p.min_crop_size)
      Fail(StatusCode::kInvalidArgument, "ImageAugmenter: a ", res.width, "x", res.height,
           " image is smaller than max_crop_size ", p.max_crop_size,
           " (or max_crop_size < min_crop_size ", p.min_crop_size, ")");
    const int size = std::uniform_int_distribution<int>(p.min_crop_size, p.max_crop_size)(*rng);
    int y = res.height - size, x = res.width - size;
    if (p.rand_crop) {
      y = std::uniform_int_distribution<int>(0, y)(*rng);
      x = std::uniform_int_distribution<int>(0, x)(*rng);
    } else {
      y /= 2, x /= 2;
    }
    return ResizeImage(CropImage(res, x, y, size, size), out_w, out_h,
                       Method(size, size, out_w, out_h, rng));
  }
  return CenterCrop(std::move(res), rng);
}

Image ImageAugmenter::RandomResizedCrop(const Image& res, std::mt19937* rng, bool* cropped) const {
  const ImageAugParams& p = params_;
  *cropped = false;
  if (p.min_random_area == 1 && p.max_random_area == 1 && min_ratio_ == 1 && max_ratio_ == 1)
    return Image();
  std::uniform_real_distribution<float> area_dist(p.min_random_area, p.max_random_area);
  std::uniform_real_distribution<float> ratio_dist(min_ratio_, max_ratio_);
  std::uniform_real_distribution<float> unit(0, 1);
  const float area = static_cast<float>(res.height) * res.width;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const float target = area * area_dist(*rng);
    const float ratio = ratio_dist(*rng);
    int h = static_cast<int>(std::round(std::sqrt(target / ratio)));
    int w = static_cast<int>(std::round(std::sqrt(target * ratio)));
    if (unit(*rng) > 0.5) std::swap(h, w);
    if (h <= res.height && w <= res.width) {
      const int y = std::uniform_int_distribution<int>(0, res.height - h)(*rng);
      const int x = std::uniform_int_distribution<int>(0, res.width - w)(*rng);
      *cropped = true;
      const int out_w = static_cast<int>(p.data_shape[2]),
                out_h = static_cast<int>(p.data_shape[1]);
      return ResizeImage(CropImage(res, x, y, w, h), out_w, out_h, Method(w, h, out_w, out_h, rng));
    }
  }
  return Image();
}

Image ImageAugmenter::CenterCrop(Image res, std::mt19937* rng) const {
  const ImageAugParams& p = params_;
  const int out_h = static_cast<int>(p.data_shape[1]), out_w = static_cast<int>(p.data_shape[2]);
  if (res.height < out_h) {
    const int cols = static_cast<int>(static_cast<float>(out_h) / res.height * res.width);
    res = ResizeImage(res, cols, out_h, Method(res.width, res.height, cols, out_h, rng));
  }
  if (res.width < out_w) {
    const int rows = static_cast<int>(static_cast<float>(out_w) / res.width * res.height);
    res = ResizeImage(res, out_w, rows, Method(res.width, res.height, out_w, rows, rng));
  }
  if (res.height < out_h || res.width < out_w)
    Fail(StatusCode::kInvalidArgument, "ImageAugmenter: a ", res.width, "x", res.height,
         " image is smaller than data_shape's ", out_w, "x", out_h, " after resizing");
  int y = res.height - out_h, x = res.width - out_w;
  if (p.rand_crop) {
    y = std::uniform_int_distribution<int>(0, y)(*rng);
    x = std::uniform_int_distribution<int>(0, x)(*rng);
  } else {
    y /= 2, x /= 2;
  }
  if (x == 0 && y == 0 && res.width == out_w && res.height == out_h) return res;
  return CropImage(res, x, y, out_w, out_h);
}

void ImageAugmenter::ColorJitter(Image* res, std::mt19937* rng) const {
  const ImageAugParams& p = params_;
  const float alpha_b =
      1.0f + std::uniform_real_distribution<float>(-p.brightness, p.brightness)(*rng);
  const float alpha_c = 1.0f + std::uniform_real_distribution<float>(-p.contrast, p.contrast)(*rng);
  const float alpha_s =
      1.0f + std::uniform_real_distribution<float>(-p.saturation, p.saturation)(*rng);
  int order[3] = {0, 1, 2};
  std::shuffle(std::begin(order), std::end(order), *rng);
  for (int step : order) {
    if (step == 0) AdjustBrightness(res, alpha_b);
    if (step == 1) AdjustContrast(res, alpha_c);
    if (step == 2) AdjustSaturation(res, alpha_s);
  }
}

}  // namespace weft
