// Index arithmetic of the CUDA broadcasting kernels: the offsets into both
// operands of each output element, numpy/MXNet rules (shapes aligned on the
// right, extent-1 and missing axes repeated). Plain host C++ as well, so
// that the CPU test suite checks it against the CPU broadcast kernels
// without a GPU (tests/kernels/broadcast_index_test.cc).
#ifndef WEFT_KERNELS_CUDA_BROADCAST_INDEX_H_
#define WEFT_KERNELS_CUDA_BROADCAST_INDEX_H_

#include <cstdint>

#include "host_device.h"
#include "weft/shape.h"
#include "weft/status.h"

namespace weft {
namespace cuda {

struct BroadcastIndex {
  static constexpr int kMaxDims = 8;
  int ndim = 0;
  int64_t out_stride[kMaxDims] = {};  // row-major strides of the output
  int64_t a_stride[kMaxDims] = {};    // lhs strides, 0 on repeated axes
  int64_t b_stride[kMaxDims] = {};    // rhs strides, 0 on repeated axes

  // The offsets into lhs and rhs of output element i.
  WEFT_HOST_DEVICE void Offsets(int64_t i, int64_t* ia, int64_t* ib) const {
    int64_t oa = 0, ob = 0;
    for (int d = 0; d < ndim; ++d) {
      const int64_t q = i / out_stride[d];
      i -= q * out_stride[d];
      oa += q * a_stride[d];
      ob += q * b_stride[d];
    }
    *ia = oa;
    *ib = ob;
  }
};

// The index of out = lhs (op) rhs; `out` is their broadcast shape (shape
// inference checked it). Error(kNotImplemented) beyond kMaxDims axes.
inline BroadcastIndex MakeBroadcastIndex(const Shape& lhs, const Shape& rhs, const Shape& out,
                                         const char* op) {
  BroadcastIndex x;
  if (out.ndim() > BroadcastIndex::kMaxDims)
    Fail(StatusCode::kNotImplemented, "operator ", op, " on the GPU: ", out.ndim(),
         " axes, at most ", BroadcastIndex::kMaxDims);
  x.ndim = out.ndim();
  int64_t so = 1, sa = 1, sb = 1;
  for (int d = x.ndim - 1; d >= 0; --d) {
    const int da = d - (x.ndim - lhs.ndim()), db = d - (x.ndim - rhs.ndim());
    const int64_t ea = da >= 0 ? lhs[da] : 1, eb = db >= 0 ? rhs[db] : 1;
    x.out_stride[d] = so;
    x.a_stride[d] = ea == 1 ? 0 : sa;
    x.b_stride[d] = eb == 1 ? 0 : sb;
    so *= out[d];
    sa *= ea;
    sb *= eb;
  }
  return x;
}

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_BROADCAST_INDEX_H_
