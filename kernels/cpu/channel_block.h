// Reorders between plain channel-first data (N, C, S) (S: the spatial size)
// and the channel-blocked layout (N, ceil(C / b), S, b) of
// weft/channel_block.h, whose padded lanes are written as zeros. Used by
// the CPU kernels of _layout_block and the reference _fused_Convolution on
// blocked data.
#ifndef WEFT_KERNELS_CPU_CHANNEL_BLOCK_H_
#define WEFT_KERNELS_CPU_CHANNEL_BLOCK_H_

#include <algorithm>
#include <cstdint>

#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {

// dst (blocked) = src (plain) when kToBlocked, else dst (plain) = src
// (blocked). Parallel over (N, ceil(C / b)).
template <bool kToBlocked, typename T>
void ReorderChannelBlocks(const T* src, T* dst, int64_t n, int64_t c, int64_t s, int64_t b) {
  const int64_t cb = (c + b - 1) / b;
#pragma omp parallel for schedule(static) if (n * c * s >= kParallelGrain)
  for (int64_t nb = 0; nb < n * cb; ++nb) {
    const int64_t image = nb / cb, c0 = (nb % cb) * b, lanes = std::min(b, c - c0);
    T* blocked_dst = kToBlocked ? dst + nb * s * b : nullptr;
    const T* blocked_src = kToBlocked ? nullptr : src + nb * s * b;
    const int64_t plain_off = (image * c + c0) * s;
    for (int64_t j = 0; j < lanes; ++j) {
      for (int64_t p = 0; p < s; ++p) {
        if constexpr (kToBlocked) {
          blocked_dst[p * b + j] = src[plain_off + j * s + p];
        } else {
          dst[plain_off + j * s + p] = blocked_src[p * b + j];
        }
      }
    }
    if constexpr (kToBlocked) {
      for (int64_t p = 0; p < s; ++p)
        for (int64_t j = lanes; j < b; ++j) blocked_dst[p * b + j] = T(0);
    }
  }
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_CHANNEL_BLOCK_H_
