// CUDA kernels of the reshaping operators (Flatten, Reshape, reshape_like,
// expand_dims, squeeze: the elements copied as they are), identity and
// ElementWiseSum (semantics as kernels/cpu/shape_ops.cc and
// kernels/cpu/elemwise_sum.cc): a write is a device-to-device copy
// (nothing when the output aliases the input), an add one accumulating
// kernel; the reshaping ops add float32/float64/float16/bfloat16, identity
// every dtype (the reduced floats in float, rounded once). ElementWiseSum (float32/float64) sums
// the first two inputs in one pass that applies req, then accumulates the rest, in the CPU's order;
// its output may alias its first input.
#include <type_traits>

#include "cuda/cuda_util.h"
#include "cuda/reduced_float.cuh"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

template <typename T>
__global__ void AccumulateKernel(T* y, const T* x, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    y[i] = StoreAs<T>(static_cast<Acc<T>>(y[i]) + static_cast<Acc<T>>(x[i]));
}

// y = x0 + x1, or y += x0 + x1 with `add`.
template <typename T>
__global__ void Sum2Kernel(T* y, const T* x0, const T* x1, int64_t n, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const T v = x0[i] + x1[i];
    y[i] = add ? y[i] + v : v;
  }
}

template <typename T>
void Accumulate(cudaStream_t s, const TBlob& x, const TBlob& y) {
  const int64_t n = y.Size();
  if (n > 0) AccumulateKernel<T><<<GridFor(n), kBlock, 0, s>>>(y.data<T>(), x.data<T>(), n);
}

void CopyD2D(cudaStream_t s, const TBlob& x, const TBlob& y) {
  if (y.dptr != x.dptr && y.Bytes() > 0)
    WEFT_CUDA_CHECK(cudaMemcpyAsync(y.dptr, x.dptr, y.Bytes(), cudaMemcpyDeviceToDevice, s));
}

// The reshaping ops: any dtype copied, the float dtypes added.
void ReshapeCopyCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = attrs.op->name.c_str();
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  cudaStream_t s = StreamOf(ctx);
  if (req[0] == OpReq::kAdd) {
    DispatchDeviceFloat(in[0].dtype, op,
                        [&](auto t) { Accumulate<decltype(t)>(s, in[0], out[0]); });
  } else {
    CopyD2D(s, in[0], out[0]);
  }
  Finish(ctx, op);
}

// identity: any dtype, written or added.
void IdentityCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = attrs.op ? attrs.op->name.c_str() : "identity";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  cudaStream_t s = StreamOf(ctx);
  if (req[0] != OpReq::kAdd) {
    CopyD2D(s, in[0], out[0]);
  } else {
    DispatchDType(out[0].dtype,
                  [&](auto t) { Accumulate<DeviceElem<decltype(t)>>(s, in[0], out[0]); });
  }
  Finish(ctx, op);
}

void ElementWiseSumCuda(const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "ElementWiseSum";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  cudaStream_t s = StreamOf(ctx);
  DispatchFloat(out[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    const int64_t n = out[0].Size();
    if (n == 0) return;
    const bool add = req[0] == OpReq::kAdd;
    if (in.size() == 1) {
      if (add)
        Accumulate<T>(s, in[0], out[0]);
      else
        CopyD2D(s, in[0], out[0]);
      return;
    }
    Sum2Kernel<T>
        <<<GridFor(n), kBlock, 0, s>>>(out[0].data<T>(), in[0].data<T>(), in[1].data<T>(), n, add);
    for (size_t k = 2; k < in.size(); ++k) Accumulate<T>(s, in[k], out[0]);
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterShapeOpsCuda(KernelRegistry* reg) {
  for (const char* op : {"Flatten", "Reshape", "reshape_like", "expand_dims", "squeeze"})
    reg->Add(op, DeviceType::kGPU, WithReducedFloats({"cuda", 0, ReshapeCopyCuda, true}));
  reg->Add("identity", DeviceType::kGPU, WithReducedFloats({"cuda", 0, IdentityCuda, true}));
  reg->Add("ElementWiseSum", DeviceType::kGPU, {"cuda", 0, ElementWiseSumCuda, true});
}

}  // namespace cuda
}  // namespace weft
