// CPU kernels of the shape operators: the reshaping ones copy the elements
// (nothing when the output aliases the input); transpose walks the output
// in order with an odometer over the permuted input strides, a row at a
// time (a memcpy per row when the last axis stays last; cpu/transpose.h).
#include <cstring>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/transpose.h"
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
