// CPU kernels of the shape operators: the reshaping ones copy the elements
// (nothing when the output aliases the input); transpose walks the output
// in order with an odometer over the permuted input strides, a row at a
// time (a memcpy per row when the last axis stays last).
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// out = in[0] elementwise (any dtype), honouring req.
void CopyKernel(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  if (req[0] == OpReq::kAdd) {
    DispatchDType(in[0].dtype, [&](auto t) {
      using T = decltype(t);
      const T* x = in[0].data<T>();
      T* y = out[0].data<T>();
      ParallelFor(out[0].Size(), [&](int64_t i) { AddTo(&y[i], x[i]); });
    });
    return;
  }
  if (out[0].dptr != in[0].dptr) std::memcpy(out[0].dptr, in[0].dptr, out[0].Bytes());
}

std::vector<int> TransposePerm(const NodeAttrs& attrs, int nd) {
  const Shape& axes = attrs.params.Decoded<TransposeParams>().axes;
  std::vector<int> perm(nd);
  for (int i = 0; i < nd; ++i) {
    if (!axes.ndim_known() || axes.ndim() == 0)
      perm[i] = nd - 1 - i;
    else
      perm[i] = static_cast<int>(axes[i] < 0 ? axes[i] + nd : axes[i]);
  }
  return perm;
}

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

void TransposeKernel(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const std::vector<int> perm = TransposePerm(attrs, in[0].shape.ndim());
  DispatchDType(in[0].dtype, [&](auto t) {
    using T = decltype(t);
    TransposeLoop(in[0].data<T>(), in[0].shape, perm, req[0], out[0].data<T>());
  });
}

}  // namespace

void RegisterShapeOpsCpu(KernelRegistry* reg) {
  for (const char* op : {"Flatten", "Reshape", "reshape_like", "expand_dims", "squeeze"})
    reg->Add(op, DeviceType::kCPU, WithReducedFloats({"cpu", 0, CopyKernel, true}));
  reg->Add("transpose", DeviceType::kCPU, WithReducedFloats({"cpu", 0, TransposeKernel, true}));
}

}  // namespace cpu
}  // namespace weft
