// MXNet's color augmentations on 8-bit RGB images (weft/image_aug.h), with
// OpenCV's arithmetic: float products rounded to nearest (ties to even) and
// saturated, as cv::Mat::convertTo and cv::addWeighted do for 8-bit data.
#include <cmath>
#include <cstdint>

#include "weft/image_aug.h"
#include "weft/status.h"

namespace weft {
namespace {

uint8_t Saturate(float v) {
  const long r = std::lrint(v);
  return static_cast<uint8_t>(r < 0 ? 0 : r > 255 ? 255 : r);
}

// MXNet's ImageNet eigenvalues times eigenvectors (rows R, G, B), its
// DefaultImageAugmenter::eigvec.
constexpr float kEigVec[3][3] = {{55.46f * -0.5675f, 4.794f * 0.7192f, 1.148f * 0.4009f},
                                 {55.46f * -0.5808f, 4.794f * -0.0045f, 1.148f * -0.8140f},
                                 {55.46f * -0.5836f, 4.794f * -0.6948f, 1.148f * 0.4203f}};

// The gray value the contrast and saturation steps use (a gray image's own).
uint8_t GrayOf(const uint8_t* p, int channels) { return channels == 3 ? MXNetGray(p) : p[0]; }

}  // namespace

uint8_t MXNetGray(const uint8_t* rgb) {
  // cv::cvtColor(CV_RGB2GRAY) on MXNet's BGR pixel: OpenCV's R weight 4899
  // (0.299) lands on blue, its B weight 1868 (0.114) on red.
  return static_cast<uint8_t>((rgb[0] * 1868 + rgb[1] * 9617 + rgb[2] * 4899 + (1 << 13)) >> 14);
}

void AdjustBrightness(Image* img, float alpha) {
  for (uint8_t& v : img->data) v = Saturate(v * alpha);
}

void AdjustContrast(Image* img, float alpha) {
  double sum = 0;
  const size_t n = size_t(img->height) * img->width;
  for (size_t i = 0; i < n; ++i) sum += GrayOf(img->data.data() + i * img->channels, img->channels);
  const float mean = static_cast<float>(sum / static_cast<double>(n));
  const float beta = (1 - alpha) * mean;
  for (uint8_t& v : img->data) v = Saturate(v * alpha + beta);
}

void AdjustSaturation(Image* img, float alpha) {
  const float beta = 1 - alpha;
  const size_t n = size_t(img->height) * img->width;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = img->data.data() + i * img->channels;
    const float gray = GrayOf(p, img->channels);
    for (int k = 0; k < img->channels; ++k) p[k] = Saturate(p[k] * alpha + gray * beta);
  }
}

void AddPcaNoise(Image* img, const float alpha[3]) {
  if (img->channels != 3)
    Fail(StatusCode::kInvalidArgument, "pca_noise: needs an RGB image, given ", img->channels,
         " channel(s)");
  float delta[3];
  for (int c = 0; c < 3; ++c)
    delta[c] = kEigVec[c][0] * alpha[0] + kEigVec[c][1] * alpha[1] + kEigVec[c][2] * alpha[2];
  const size_t n = size_t(img->height) * img->width;
  for (size_t i = 0; i < n; ++i) {
    uint8_t* p = img->data.data() + i * img->channels;
    for (int k = 0; k < img->channels; ++k) {
      int v = p[k];
      v += delta[k];  // int += float: truncated toward zero, as in MXNet
      p[k] = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

}  // namespace weft
