// Image augmentation with the semantics of MXNet 1.9.1's default augmenter
// (src/io/image_aug_default.cc) and ImageRecordIter's per-image steps: the
// kernels on 8-bit HWC images (weft/image.h), and ImageAugmenter, which
// runs them in MXNet's order with MXNet's random draws from a caller's
// generator.
//
// MXNet works on OpenCV's BGR images, Weft on RGB; every kernel here gives
// the pixels MXNet gives, in RGB order. Where MXNet's arithmetic depends on
// the channel order it is kept: its contrast and saturation compute the gray
// image with cv::cvtColor(CV_RGB2GRAY) on BGR data, so the gray weights are
// 0.114 R + 0.587 G + 0.299 B (OpenCV's fixed point, 14 bits). Resizing is
// OpenCV's cv::resize for MXNet's inter_method: 0 nearest, 1 bilinear (the
// default; 11-bit fixed point, 2x2 averaging for an exact halving as
// OpenCV switches to INTER_AREA there), 2 cubic, 3 area, 4 Lanczos-4, and
// for ImageAugmenter 9 (cubic to enlarge, area to shrink, else bilinear)
// and 10 (one of 0-4 at random per resize, as MXNet draws it). The affine
// warp (rotation, shear, random scale and aspect ratio) is cv::warpAffine,
// bilinear (OpenCV warps area as bilinear too), with a constant border;
// warping with 2, 4, 9 or 10 is kNotImplemented. Stateless kernels; an ImageAugmenter is
// immutable after construction and Process may run on several threads at
// once (each with its own generator).
#ifndef WEFT_IMAGE_AUG_H_
#define WEFT_IMAGE_AUG_H_

#include <random>
#include <string>
#include <vector>

#include "weft/image.h"
#include "weft/shape.h"

namespace weft {

// cv::resize(src, dst, Size(width, height), 0, 0, inter_method) for
// inter_method 0 (nearest), 1 (bilinear), 2 (cubic), 3 (area) or 4
// (Lanczos-4). Throws kInvalidArgument for a size < 1 or another method.
Image ResizeImage(const Image& src, int width, int height, int inter_method);
// The `width` x `height` region at (x, y). Throws kInvalidArgument when it
// is not inside `src`.
Image CropImage(const Image& src, int x, int y, int width, int height);
// cv::copyMakeBorder(BORDER_CONSTANT, fill): `pad` pixels of `fill` on each side.
Image PadImage(const Image& src, int pad, int fill);
// cv::warpAffine(src, dst, matrix, Size(width, height), INTER_LINEAR,
// BORDER_CONSTANT, fill): `matrix` (row major 2x3) maps source to
// destination coordinates; a destination pixel reads the source bilinearly
// at the inverse image of its position (OpenCV's 1/32-pixel fixed point),
// taps outside the source reading `fill` (clamped to [0, 255]). A width or
// height <= 0 means the source's size, as in OpenCV.
Image WarpAffineImage(const Image& src, const float matrix[6], int width, int height, int fill);
// MXNet's affine augmentation matrix for a `cols` x `rows` image: rotation
// by `angle` degrees, shear `shear` ((x, y) -> (x + shear * y, y)), scale
// and aspect ratio (width / height), centred in an output of
// clamp(scale * side, min_img_size, max_img_size) per side (float, then
// truncated for the size as cv::Size does), computed in MXNet's float steps.
// Throws kInvalidArgument when a side would exceed 32767.
struct AffineWarp {
  float matrix[6];
  int width, height;
};
AffineWarp AffineAugMatrix(int cols, int rows, int angle, float shear, float scale, float ratio,
                           float min_img_size, float max_img_size);
// Mirrors each row (left <-> right) in place.
void FlipLeftRight(Image* img);
// MXNet's tools/im2rec.py transform before packing: with `center_crop` the
// central square (margin (long - short) / 2); with `resize` > 0 the shorter
// side resized to `resize` and the longer to long * resize / short (integer
// division), bilinear (cv2.resize's default). Throws kInvalidArgument for
// resize < 0.
Image Im2RecTransform(Image img, bool center_crop, int resize);

// MXNet's color jitter steps on an RGB image (in place): brightness
// (convertTo(alpha)), contrast (convertTo(alpha, (1 - alpha) * gray mean)),
// saturation (addWeighted(img, alpha, gray, 1 - alpha)); each result
// rounded to nearest and saturated to [0, 255]. On a gray image contrast
// uses its own mean and saturation changes nothing (MXNet's OpenCV calls
// would reject a one-channel image).
void AdjustBrightness(Image* img, float alpha);
void AdjustContrast(Image* img, float alpha);
void AdjustSaturation(Image* img, float alpha);
// MXNet's gray value of an RGB pixel (see above).
uint8_t MXNetGray(const uint8_t* rgb);
// MXNet's PCA (AlexNet) lighting noise with the draws `alpha` (R, G, B
// order of the draws): each channel plus its eigen-combination, truncated
// toward zero as MXNet's int += float is, then saturated.
void AddPcaNoise(Image* img, const float alpha[3]);
// MXNet's HSL jitter on an RGB image (in place): OpenCV's 8-bit
// cvtColor(BGR2HLS) (H in [0, 180), L and S in [0, 255]), `dh`, `dl`, `ds`
// added and clamped to [0, 180] / [0, 255] / [0, 255], and back with
// cvtColor(HLS2BGR). Not the identity for zero offsets (the 8-bit round trip
// rounds). Throws kInvalidArgument for a gray image.
void ShiftHls(Image* img, int dh, int dl, int ds);

// The augmenter's parameters, named and defaulted as MXNet's
// DefaultImageAugmentParam, plus its `rotate_list` (a list of angles, one
// drawn per image; MXNet reads it from the leftover keyword arguments).
struct ImageAugParams {
  Shape data_shape;  // (channels, height, width) of the output image
  int resize = -1;   // shorter side resized to this first (-1: no)
  bool rand_crop = false;
  bool random_resized_crop = false;
  int max_rotate_angle = 0;  // rotation drawn from [-v, v] degrees
  int rotate = -1;           // > 0: this rotation instead
  std::vector<int> rotate_list;
  float max_aspect_ratio = 0;
  float min_aspect_ratio = -1;  // -1: None (then [1 - max, 1 + max])
  float max_shear_ratio = 0;
  float min_random_scale = 1, max_random_scale = 1;
  float min_random_area = 1, max_random_area = 1;
  float min_img_size = 0, max_img_size = 1e10f;
  int max_crop_size = -1, min_crop_size = -1;
  float brightness = 0, contrast = 0, saturation = 0, pca_noise = 0;
  int random_h = 0, random_s = 0, random_l = 0;
  int inter_method = 1;
  int pad = 0, fill_value = 255;
};

class ImageAugmenter {
 public:
  // Validates `params` as MXNet does (data_shape of rank 3 with nonzero
  // extents; random_resized_crop without rand_crop or crop sizes; area and
  // ratio ranges ordered and positive; no nearest interpolation for the
  // affine warp; HSL jitter only on 3 channels; inter_method 0-4, 9 or
  // 10); throws kInvalidArgument naming the parameter, kNotImplemented for
  // a warp with inter_method 2, 4, 9 or 10.
  explicit ImageAugmenter(const ImageAugParams& params);

  // MXNet's DefaultImageAugmenter::Process: resize, the affine warp (when
  // rotation, shear, random scale, aspect ratio without random_resized_crop
  // or an image size bound is set), pad, the crop (random resized,
  // random-size, random or center), color jitter in a random order, HSL
  // jitter, PCA noise. Returns a data_shape[1] x data_shape[2] image. Throws
  // kInvalidArgument when the image is smaller than a crop it needs.
  Image Process(Image src, std::mt19937* rng) const;

  const ImageAugParams& params() const { return params_; }

 private:
  bool NeedsWarp() const;
  // MXNet's GetInterMethod: inter_method, or for 9 and 10 the method for
  // resizing old_w x old_h to new_w x new_h (10 draws from `rng`).
  int Method(int old_w, int old_h, int new_w, int new_h, std::mt19937* rng) const;
  Image Warp(const Image& res, std::mt19937* rng) const;
  void HslJitter(Image* res, std::mt19937* rng) const;
  Image Crop(Image res, std::mt19937* rng) const;
  Image RandomResizedCrop(const Image& res, std::mt19937* rng, bool* cropped) const;
  Image CenterCrop(Image res, std::mt19937* rng) const;
  void ColorJitter(Image* res, std::mt19937* rng) const;

  ImageAugParams params_;
  float min_ratio_ = 1, max_ratio_ = 1;
};

}  // namespace weft

#endif  // WEFT_IMAGE_AUG_H_
