// The resize methods behind ResizeImage (weft/image_aug.h) that live in
// their own files. Not installed.
#ifndef WEFT_CORE_SRC_IO_IMAGE_RESIZE_INTERNAL_H_
#define WEFT_CORE_SRC_IO_IMAGE_RESIZE_INTERNAL_H_

#include "weft/image.h"

namespace weft {
namespace io {

// OpenCV's INTER_CUBIC (ksize 4) or INTER_LANCZOS4 (ksize 8) for 8-bit
// images (image_resize_kernel.cc). REQUIRES: positive sizes.
Image ResizeKernel(const Image& src, int width, int height, int ksize);

// OpenCV's INTER_AREA for 8-bit images when neither side grows
// (image_resize_area.cc); 2x in both directions is ResizeImage's own case.
Image ResizeAreaDown(const Image& src, int width, int height);

}  // namespace io
}  // namespace weft

#endif  // WEFT_CORE_SRC_IO_IMAGE_RESIZE_INTERNAL_H_
