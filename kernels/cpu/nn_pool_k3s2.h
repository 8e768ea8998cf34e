// Row kernels of max pooling with 3-wide stride-2 windows (kw = 3, sw = 2,
// ResNet's stem pool), used by kernels/cpu/nn_pool.cc (its only includer;
// the plane loops and the padded border windows are there).
//
// Split rows. An input row is split into its even and odd columns counted
// from column -pw: ev[j] = row[2j - pw], od[j] = row[2j + 1 - pw]. The window
// of output column ox is then ev[ox], od[ox], ev[ox + 1] (in that column
// order), so the loops over ox read unit-stride vectors instead of stride-2
// gathers. Only the interior output columns [lo, hi) (windows inside the row)
// are split. The window loops run in whole blocks of kSplitBlock (forward)
// or kCodeBlock (backward) columns (no scalar remainder loop, whose branches
// mispredict on random data): the split rows and the results have kSplitPad
// columns of slack past ow whose values are ignored, so a split row holds
// SplitStride(ow) values.
//
// Window codes (backward). Max-pooling backward sends each output's gradient
// to the first maximum of its window in row-major order. That position is
// kept as a small code 3 r + c: r = window row (counted from the unclipped
// window top oy * sh - ph), c = 0, 1, 2 for ev[ox], od[ox], ev[ox + 1] (the
// window's columns left to right); -1 for an empty window. Every window of a
// plane fits, including the clipped border ones (kh <= 3). The input
// gradient of input row iy then needs no scatter: in split form, with r the
// row of iy in the window of output row oy,
//   gE[j] = sum over oy of (code[oy][j] == 3r ? dy[oy][j] : 0)
//                        + (code[oy][j - 1] == 3r + 2 ? dy[oy][j - 1] : 0)
//   gO[j] = sum over oy of (code[oy][j] == 3r + 1 ? dy[oy][j] : 0)
// (output columns j - 1 and j are the windows that contain split column j),
// unit-stride selects, and the row of dx is gE, gO interleaved back.
#ifndef WEFT_KERNELS_CPU_NN_POOL_K3S2_H_
#define WEFT_KERNELS_CPU_NN_POOL_K3S2_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu/cpu_util.h"

namespace weft {
namespace cpu {
namespace {

// The backward row kernels are inlined into their caller, the cloned
// MaxPoolBackwardPlaneK3S2 (so they are compiled for its targets too): per
// row they run only a few blocks, and a call per row (with its vector
// constant set-up) costs as much.
#if defined(__GNUC__)
#define WEFT_K3S2_INLINE inline __attribute__((always_inline))
#else
#define WEFT_K3S2_INLINE inline
#endif

// WEFT_SIMD_CLONES plus an AVX-512 (x86-64-v4) clone, for the backward
// plane loop only: its compares and selects take one uop each with AVX-512
// mask registers, against a 2-3 uop variable blend with AVX2, and GCC 12
// runs its loops on 512-bit vectors (bare kernel on the benchmark shape,
// bench/README.md: 0.45-0.47 ms, against 0.58 ms for the AVX2 clone).
#if WEFT_HAVE_TARGET_CLONES
#define WEFT_K3S2_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WEFT_K3S2_CLONES
#endif

// kCodeBlock: the block of the backward's window loop, 16 so that the
// AVX-512 clone runs it on full 512-bit vectors (two 256-bit ones with AVX2).
constexpr int64_t kSplitBlock = 8, kCodeBlock = 16, kSplitPad = kCodeBlock + 16;
inline int64_t SplitStride(int64_t ow) { return ow + kSplitPad; }

// Splits the interior of one input row: `src` points at its column -pw;
// e[lo, hi] and o[lo, hi) are written (e[hi] is the last column of window
// hi - 1).
template <typename T>
WEFT_K3S2_INLINE void SplitRowK3S2(const T* src, int64_t lo, int64_t hi, T* e, T* o) {
#pragma omp simd
  for (int64_t j = lo; j < hi; ++j) {
    e[j] = src[2 * j];
    o[j] = src[2 * j + 1];
  }
  if (hi > lo) e[hi] = src[2 * hi];
}

// Splits NR rows from row y0 of the plane `xp` (width w) into `buf`
// (2 * NR * SplitStride(ow) values).
template <typename T, int NR>
inline void SplitRowsK3S2(const T* xp, int64_t w, int64_t pw, int64_t y0, int64_t lo, int64_t hi,
                          int64_t ow, T* buf, const T* (&ev)[NR], const T* (&od)[NR]) {
  for (int r = 0; r < NR; ++r) {
    T* e = buf + (2 * r) * SplitStride(ow);
    T* o = e + SplitStride(ow);
    SplitRowK3S2(xp + (y0 + r) * w - pw, lo, hi, e, o);
    ev[r] = e;
    od[r] = o;
  }
}

// Max of the interior windows over NR rows from row y0 into y[lo, hi), as
// MaxPoolPlane's generic loop (from -inf, take strictly greater: NaN inputs
// are skipped).
template <typename T, int NR>
WEFT_SIMD_CLONES void MaxRowK3S2(const T* xp, int64_t w, int64_t pw, int64_t y0, int64_t lo,
                                 int64_t hi, int64_t ow, T* buf, T* y) {
  const T* ev[NR];
  const T* od[NR];
  SplitRowsK3S2<T, NR>(xp, w, pw, y0, lo, hi, ow, buf, ev, od);
  for (int64_t o0 = lo; o0 < hi; o0 += kSplitBlock) {
#pragma omp simd
    for (int64_t ox = o0; ox < o0 + kSplitBlock; ++ox) {
      T m = -std::numeric_limits<T>::infinity();
      // Written out (no inner loop): GCC does not vectorise the ox loop otherwise.
      auto step = [&m](T v) { m = v > m ? v : m; };
      step(ev[0][ox]);
      step(od[0][ox]);
      step(ev[0][ox + 1]);
      if constexpr (NR >= 2) {
        step(ev[1][ox]);
        step(od[1][ox]);
        step(ev[1][ox + 1]);
      }
      if constexpr (NR >= 3) {
        step(ev[2][ox]);
        step(od[2][ox]);
        step(ev[2][ox + 1]);
      }
      y[ox] = m;
    }
  }
}

// A window code, as wide as T so the selects between T and codes vectorise
// lane for lane.
template <typename T>
using K3S2Code = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;

// Codes of the interior windows [lo, hi) of one output row whose NR input
// rows (split, evp[r] / odp[r]) are window rows r0, r0 + 1, ...: the first
// maximum in row-major order, as the generic loop (start from the window's
// first element, take strictly greater, so NaN is skipped unless first).
// Writes whole blocks: code[hi, hi + kCodeBlock) may be overwritten.
//
// The positions come in increasing order, so taking one is an integer max
// (AND + max) rather than a variable blend (2-3 uops on recent AVX2 cores).
template <typename T, int NR>
WEFT_K3S2_INLINE void ArgmaxCodeRowK3S2(const T* const* evp, const T* const* odp, int r0,
                                        int64_t lo, int64_t hi, K3S2Code<T>* code) {
  using Code = K3S2Code<T>;
  const T* ev[NR];
  const T* od[NR];
  for (int r = 0; r < NR; ++r) {
    ev[r] = evp[r];
    od[r] = odp[r];
  }
  Code base[NR];
  for (int r = 0; r < NR; ++r) base[r] = static_cast<Code>(3 * (r0 + r));
  for (int64_t o0 = lo; o0 < hi; o0 += kCodeBlock) {
#pragma omp simd
    for (int64_t ox = o0; ox < o0 + kCodeBlock; ++ox) {
      T b = ev[0][ox];
      Code k = base[0];
      // Written out (no inner loops): GCC does not vectorise the ox loop otherwise.
      auto step = [&b, &k](T v, Code pos) {
        const bool take = v > b;
        b = take ? v : b;
        k = std::max(k, take ? pos : Code(0));
      };
      step(od[0][ox], base[0] + 1);
      step(ev[0][ox + 1], base[0] + 2);
      if constexpr (NR >= 2) {
        step(ev[1][ox], base[1]);
        step(od[1][ox], base[1] + 1);
        step(ev[1][ox + 1], base[1] + 2);
      }
      if constexpr (NR >= 3) {
        step(ev[2][ox], base[2]);
        step(od[2][ox], base[2] + 1);
        step(ev[2][ox + 1], base[2] + 2);
      }
      code[ox] = k;
    }
  }
}

// Adds one output row's share to an input row's split gradient ge[0, n),
// go[0, n): `code` and `dy` are that output row's codes and gradient (valid
// from index -1; -1 codes where there is no window), r the input row's row
// in its windows.
template <typename T>
WEFT_K3S2_INLINE void GatherRowK3S2(const K3S2Code<T>* code, const T* dy, int r, int64_t n, T* ge,
                                    T* go) {
  using Code = K3S2Code<T>;
  const Code c0 = static_cast<Code>(3 * r), c1 = c0 + 1, c2 = c0 + 2;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const Code cj = code[j], cp = code[j - 1];
    const T dj = dy[j], dp = dy[j - 1];
    ge[j] += (cj == c0 ? dj : T(0)) + (cp == c2 ? dp : T(0));
    go[j] += cj == c1 ? dj : T(0);
  }
}

// Interleaves a split gradient back into a row of dx (width w): column x
// takes ge[(x + pw) / 2] when x + pw is even, else go[(x + pw) / 2];
// assigned, or added when `add` (req kAdd).
template <typename T>
WEFT_K3S2_INLINE void InterleaveRowK3S2(const T* ge, const T* go, int64_t w, int64_t pw, bool add,
                                        T* dx) {
  // Even columns x = 2k read a[k], odd ones x = 2k + 1 read b[k].
  const T* a = (pw & 1) ? go + (pw >> 1) : ge + (pw >> 1);
  const T* b = (pw & 1) ? ge + ((pw + 1) >> 1) : go + (pw >> 1);
  const int64_t n2 = w / 2;
  if (add) {
#pragma omp simd
    for (int64_t k = 0; k < n2; ++k) {
      dx[2 * k] += a[k];
      dx[2 * k + 1] += b[k];
    }
    if (w & 1) dx[w - 1] += a[n2];
  } else {
#pragma omp simd
    for (int64_t k = 0; k < n2; ++k) {
      dx[2 * k] = a[k];
      dx[2 * k + 1] = b[k];
    }
    if (w & 1) dx[w - 1] = a[n2];
  }
}

}  // namespace
}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_NN_POOL_K3S2_H_
