// Building blocks of the convolution-family CPU kernels: im2col / col2im on
// one sample's channel block and a row-major GEMM (OpenBLAS sgemm/dgemm
// when built with it, a plain loop otherwise), over the ConvGeom of
// nn_geometry.h.
//
// A 1-D convolution is the 2-D one with H = 1 and a (1, k) kernel. The
// column matrix of `channels` input channels has channels*kh*kw rows and
// oh*ow columns: col[(c*kh + i)*kw + j][y*ow + x] =
// in[c][y*sh - ph + i*dh][x*sw - pw + j*dw] (0 outside the input).
// Stateless; thread-safe.
#ifndef WEFT_KERNELS_CPU_IM2COL_H_
#define WEFT_KERNELS_CPU_IM2COL_H_

#include <algorithm>
#include <cblas.h>

#include <cstdint>
#include <cstring>

#include "nn_geometry.h"
#include "weft/op.h"

namespace weft {
namespace cpu {

// Range [*lo, *hi) of output positions o in [0, n_out) whose input index
// o*stride + off lies in [0, n_in).
inline void ValidRange(int64_t n_out, int64_t n_in, int64_t stride, int64_t off, int64_t* lo,
                       int64_t* hi) {
  // o*stride + off >= 0  <=>  o >= ceil(-off / stride)
  int64_t l = off >= 0 ? 0 : (-off + stride - 1) / stride;
  // o*stride + off < n_in  <=>  o < ceil((n_in - off) / stride)
  int64_t h = n_in - off <= 0 ? 0 : (n_in - off + stride - 1) / stride;
  *lo = std::min(l, n_out);
  *hi = std::max(*lo, std::min(h, n_out));
}

// Fills `col` (channels*kh*kw rows of oh*ow) from `in` (channels, h, w).
template <typename T>
void Im2Col(const ConvGeom& g, int64_t channels, const T* in, T* col) {
  const int64_t rows = channels * g.kh * g.kw, P = g.OutSpatial();
#pragma omp parallel for schedule(static) if (rows * P >= (int64_t{1} << 16))
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t c = r / (g.kh * g.kw), i = (r / g.kw) % g.kh, j = r % g.kw;
    const T* src = in + c * g.h * g.w;
    T* dst = col + r * P;
    const int64_t offx = j * g.dw - g.pw;
    int64_t xlo, xhi;
    ValidRange(g.ow, g.w, g.sw, offx, &xlo, &xhi);
    for (int64_t y = 0; y < g.oh; ++y) {
      T* d = dst + y * g.ow;
      const int64_t iy = y * g.sh - g.ph + i * g.dh;
      if (iy < 0 || iy >= g.h) {
        for (int64_t x = 0; x < g.ow; ++x) d[x] = T(0);
        continue;
      }
      const T* s = src + iy * g.w + offx;
      for (int64_t x = 0; x < xlo; ++x) d[x] = T(0);
      if (g.sw == 1) {
        for (int64_t x = xlo; x < xhi; ++x) d[x] = s[x];
      } else {
        const int64_t sw = g.sw;
        for (int64_t x = xlo; x < xhi; ++x) d[x] = s[x * sw];
      }
      for (int64_t x = xhi; x < g.ow; ++x) d[x] = T(0);
    }
  }
}

// Adds the columns `col` back into `in` (channels, h, w): the adjoint of
// Im2Col. Channels are independent, so they are split over threads.
template <typename T>
void Col2ImAdd(const ConvGeom& g, int64_t channels, const T* col, T* in) {
  const int64_t K = g.kh * g.kw, P = g.OutSpatial();
#pragma omp parallel for schedule(static) if (channels * K * P >= (int64_t{1} << 16) && \
                                              channels > 1)
  for (int64_t c = 0; c < channels; ++c) {
    T* dst = in + c * g.h * g.w;
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        const T* src = col + ((c * g.kh + i) * g.kw + j) * P;
        const int64_t offx = j * g.dw - g.pw;
        int64_t xlo, xhi;
        ValidRange(g.ow, g.w, g.sw, offx, &xlo, &xhi);
        for (int64_t y = 0; y < g.oh; ++y) {
          const int64_t iy = y * g.sh - g.ph + i * g.dh;
          if (iy < 0 || iy >= g.h) continue;
          T* d = dst + iy * g.w + offx;
          const T* s = src + y * g.ow;
          if (g.sw == 1) {
            for (int64_t x = xlo; x < xhi; ++x) d[x] += s[x];
          } else {
            const int64_t sw = g.sw;
            for (int64_t x = xlo; x < xhi; ++x) d[x * sw] += s[x];
          }
        }
      }
    }
  }
}

// C = alpha * op(A) . op(B) + beta * C, row-major; op(A) is m x k, op(B)
// k x n. beta == 0 overwrites C without reading it.
inline void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
inline void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                 int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

inline CBLAS_TRANSPOSE CblasTr(bool t) { return t ? CblasTrans : CblasNoTrans; }
inline void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, CblasTr(ta), CblasTr(tb), static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
}
inline void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                 int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, CblasTr(ta), CblasTr(tb), static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), alpha, a, static_cast<blasint>(lda),
              b, static_cast<blasint>(ldb), beta, c, static_cast<blasint>(ldc));
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_IM2COL_H_
