// A stable descending sort of each segment of (key, value) pairs on the
// device (CUB's segmented radix sort), shared by _contrib_box_nms and
// _contrib_MultiBoxDetection (kernels/cuda/vision_box.cu,
// vision_multibox.cu), which order each batch's rows by score.
#ifndef WEFT_KERNELS_CUDA_SEGMENTED_SORT_CUH_
#define WEFT_KERNELS_CUDA_SEGMENTED_SORT_CUH_

#include <cub/device/device_segmented_radix_sort.cuh>

#include "cuda/cuda_util.h"

namespace weft {
namespace cuda {

// The sort key of a score: -0.0 becomes +0.0. The radix sort orders the two
// apart by their bits, where the CPU kernels' comparison sort holds them
// equal and keeps their input order.
template <typename T>
__device__ __forceinline__ T SortKey(T score) {
  return score == T(0) ? T(0) : score;
}

// Segment s is [offsets[s], offsets[s + 1]) of the `items` pairs; ties
// keep their input order. Queued on ctx's stream; the scratch is released
// in stream order.
template <typename K, typename V>
void SortSegmentsDescending(const OpContext& ctx, const K* keys, K* keys_out, const V* values,
                            V* values_out, int items, int segments, const int* offsets) {
  size_t bytes = 0;
  auto sort = [&](void* temp) {
    WEFT_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairsDescending(
        temp, bytes, keys, keys_out, values, values_out, items, segments, offsets, offsets + 1, 0,
        static_cast<int>(sizeof(K) * 8), StreamOf(ctx)));
  };
  sort(nullptr);  // the scratch size
  DeviceBuffer temp(ctx, bytes);
  sort(temp.get());
}

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_SEGMENTED_SORT_CUH_
