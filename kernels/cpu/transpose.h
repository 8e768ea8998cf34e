// TransposeLoop: y = x with its axes permuted, the loop of the transpose
// kernel (kernels/cpu/shape_ops.cc), shared with the kernels that reorder
// an operand before a GEMM (kernels/cpu/einsum.cc). Stateless.
#ifndef WEFT_KERNELS_CPU_TRANSPOSE_H_
#define WEFT_KERNELS_CPU_TRANSPOSE_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "weft/shape.h"

namespace weft {
namespace cpu {

// y (of x's extents permuted: y's axis i is x's axis perm[i]) from x
// (row-major, shape xs), honouring req (kAdd accumulates). Walks the
// output in order with an odometer over the permuted input strides, a row
// at a time; split over the OpenMP threads when large.
template <typename T>
void TransposeLoop(const T* x, const Shape& xs, const std::vector<int>& perm, OpReq req, T* y) {
  const int nd = xs.ndim();
  std::vector<int64_t> xstride(nd, 1);
  for (int i = nd - 2; i >= 0; --i) xstride[i] = xstride[i + 1] * xs[i + 1];
  std::vector<int64_t> ydim(nd), ystride_in(nd);
  for (int i = 0; i < nd; ++i) {
    ydim[i] = xs[perm[i]];
    ystride_in[i] = xstride[perm[i]];
  }
  const int64_t total = xs.Size();
  if (nd == 0) {
    if (total) Store(req, y, x[0]);
    return;
  }
  const int64_t inner = ydim[nd - 1], inner_stride = ystride_in[nd - 1];
  const int64_t rows = inner > 0 ? total / inner : 0;
  // A last axis that stays last (a transformer's (0, 2, 1, 3) head split)
  // moves whole rows: copied as such, and split over the threads by
  // elements, not rows (a head split has few, long rows).
  const bool row_copy = inner_stride == 1 && req != OpReq::kAdd;
#pragma omp parallel for schedule(static) if (total >= kParallelGrain)
  for (int64_t r = 0; r < rows; ++r) {
    // Source offset of output row r (all axes but the last).
    int64_t rem = r, src = 0;
    for (int i = nd - 2; i >= 0; --i) {
      src += (rem % ydim[i]) * ystride_in[i];
      rem /= ydim[i];
    }
    T* yr = y + r * inner;
    if (row_copy)
      std::memcpy(yr, x + src, inner * sizeof(T));
    else
      for (int64_t j = 0; j < inner; ++j) Store(req, &yr[j], x[src + j * inner_stride]);
  }
}

}  // namespace cpu
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_TRANSPOSE_H_
