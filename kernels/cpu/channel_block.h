// Reorders between plain channel-first data (N, C, S) (S: the spatial size)
// and the channel-blocked layout (N, C / b, S, b) of weft/channel_block.h.
// Used by the CPU kernels of _layout_block and the reference
// _fused_Convolution on blocked data.
#ifndef WEFT_KERNELS_CPU_CHANNEL_BLOCK_H_
#define WEFT_KERNELS_CPU_CHANNEL_BLOCK_H_

#include <cstdint>

#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {

// dst (blocked) = src (plain) when kToBlocked, else dst (plain) = src
// (blocked). Parallel over (N, C / b); c must be a multiple of b.
template <bool kToBlocked, typename T>
void ReorderChannelBlocks(const T* src, T* dst, int64_t n, int64_t c, int64_t s, int64_t b) {
  const int64_t cb = c / b, plane = s * b;
#pragma omp parallel for schedule(static) if (n * c * s >= kParallelGrain)
  for (int64_t nb = 0; nb < n * cb; ++nb) {
    const int64_t base = nb * plane;  // the same offset in both layouts
    for (int64_t j = 0; j < b; ++j) {
      for (int64_t p = 0; p < s; ++p) {
        if constexpr (kToBlocked) {
          dst[base + p * b + j] = src[base + j * s + p];
        } else {
          dst[base + j * s + p] = src[base + p * b + j];
        }
      }
    }
  }
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CHANNEL_BLOCK_H_
