// CUDA kernels of _zeros, _ones, _full, zeros_like and ones_like for every
// dtype (semantics as kernels/cpu/init.cc): a zero write is a memset, any
// other fill one kernel; float16 outputs get the half bit pattern of the
// value rounded to nearest even (cuda_fp16's conversion, as the CPU's);
// req=add is refused for float16 and an integer dtype refuses a value it
// cannot hold, with the CPU's messages.
#include <cuda_fp16.h>

#include <cstring>
#include <limits>
#include <type_traits>

#include "cuda/cuda_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

template <typename T>
__global__ void FillKernel(T* y, int64_t n, T v, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    y[i] = add ? static_cast<T>(y[i] + v) : v;
}

void Fill(const OpContext& ctx, const char* op, double value, OpReq req, const TBlob& out) {
  UseDevice(ctx, op);
  const int64_t n = out.Size();
  if (req == OpReq::kNull || n == 0) return;
  cudaStream_t s = StreamOf(ctx);
  const bool add = req == OpReq::kAdd;
  DispatchDType(out.dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (kIsReducedFloat<T>) {
      if (add)
        Fail(StatusCode::kDType, "operator ", op, ": req=add is not supported for ",
             DTypeName(out.dtype), " outputs");
      const uint16_t bits = FromDouble<T>(value).bits;  // rounded to nearest even
      FillKernel<uint16_t>
          <<<GridFor(n), kBlock, 0, s>>>(static_cast<uint16_t*>(out.dptr), n, bits, false);
    } else {
      if constexpr (std::is_integral<T>::value) {
        if (!(value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
              value <= static_cast<double>(std::numeric_limits<T>::max())))
          Fail(StatusCode::kInvalidArgument, "operator ", op, ": value ", value,
               " is not representable in dtype ", DTypeName(out.dtype));
      }
      if (value == 0 && !add) {
        WEFT_CUDA_CHECK(cudaMemsetAsync(out.dptr, 0, out.Bytes(), s));
      } else {
        FillKernel<T><<<GridFor(n), kBlock, 0, s>>>(out.data<T>(), n, static_cast<T>(value), add);
      }
    }
  });
  Finish(ctx, op);
}

template <int kValue>
void FillConstant(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>&,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill(ctx, attrs.op->name.c_str(), kValue, req[0], out[0]);
}

void Full(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>&,
          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  Fill(ctx, "_full", attrs.params.Decoded<FullParams>().value, req[0], out[0]);
}

}  // namespace

void RegisterInitCuda(KernelRegistry* reg) {
  // The fills write float16 and bfloat16 bits themselves.
  reg->Add("_zeros", DeviceType::kGPU, WithReducedFloats({"cuda", 0, FillConstant<0>, true}));
  reg->Add("_ones", DeviceType::kGPU, WithReducedFloats({"cuda", 0, FillConstant<1>, true}));
  reg->Add("_full", DeviceType::kGPU, WithReducedFloats({"cuda", 0, Full, true}));
  reg->Add("zeros_like", DeviceType::kGPU, WithReducedFloats({"cuda", 0, FillConstant<0>, true}));
  reg->Add("ones_like", DeviceType::kGPU, WithReducedFloats({"cuda", 0, FillConstant<1>, true}));
}

}  // namespace cuda
}  // namespace weft
