// CropImage, PadImage, FlipLeftRight, Im2RecTransform (weft/image_aug.h).
#include <algorithm>
#include <cstring>

#include "weft/image_aug.h"
#include "weft/status.h"

namespace weft {

Image CropImage(const Image& src, int x, int y, int width, int height) {
  if (x < 0 || y < 0 || width < 1 || height < 1 || int64_t{x} + width > src.width ||
      int64_t{y} + height > src.height)
    Fail(StatusCode::kInvalidArgument, "CropImage: region ", width, "x", height, " at (", x, ", ",
         y, ") is not inside the ", src.width, "x", src.height, " image");
  Image dst(height, width, src.channels);
  for (int r = 0; r < height; ++r)
    std::memcpy(dst.at(r, 0), src.at(y + r, x), size_t(width) * src.channels);
  return dst;
}

Image PadImage(const Image& src, int pad, int fill) {
  if (pad < 0) Fail(StatusCode::kInvalidArgument, "PadImage: pad must be >= 0, given ", pad);
  Image dst(src.height + 2 * pad, src.width + 2 * pad, src.channels);
  std::fill(dst.data.begin(), dst.data.end(), static_cast<uint8_t>(std::clamp(fill, 0, 255)));
  for (int r = 0; r < src.height; ++r)
    std::memcpy(dst.at(r + pad, pad), src.at(r, 0), size_t(src.width) * src.channels);
  return dst;
}

void FlipLeftRight(Image* img) {
  const int c = img->channels;
  for (int y = 0; y < img->height; ++y)
    for (int l = 0, r = img->width - 1; l < r; ++l, --r)
      std::swap_ranges(img->at(y, l), img->at(y, l) + c, img->at(y, r));
}

Image Im2RecTransform(Image img, bool center_crop, int resize) {
  if (resize < 0)
    Fail(StatusCode::kInvalidArgument, "im2rec: resize must be >= 0 (0: keep the size), given ",
         resize);
  if (center_crop && img.height != img.width) {
    if (img.height > img.width)
      img = CropImage(img, 0, (img.height - img.width) / 2, img.width, img.width);
    else
      img = CropImage(img, (img.width - img.height) / 2, 0, img.height, img.height);
  }
  if (resize > 0) {
    int64_t w = resize, h = resize;
    if (img.height > img.width)
      h = int64_t{img.height} * resize / img.width;
    else
      w = int64_t{img.width} * resize / img.height;
    img = ResizeImage(img, static_cast<int>(w), static_cast<int>(h), 1);
  }
  return img;
}

}  // namespace weft
