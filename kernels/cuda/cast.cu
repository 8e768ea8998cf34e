// CUDA kernels of Cast, amp_cast, amp_multicast and their gradient ops for
// every dtype pair, float16 and bfloat16 included (semantics as
// kernels/cpu/index_ops.cc): a value converted to a reduced float goes
// through float and rounds to nearest even (cuda_fp16/cuda_bf16's _rn
// conversions, as weft/float16.h on the CPU); one read from a reduced float
// is exact in float; req=add into a reduced float adds in double and
// rounds once.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "cuda/cuda_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// How an element is stored: a plain C++ type, or the 16 bits of a float16
// (kHalf) or bfloat16 (kBf16).
enum Kind { kPlain = 0, kHalf = 1, kBf16 = 2 };

template <typename T>
constexpr int KindOf = std::is_same_v<T, Half>       ? kHalf
                       : std::is_same_v<T, BFloat16> ? kBf16
                                                     : kPlain;
template <typename T>
using Storage = std::conditional_t<kIsReducedFloat<T>, uint16_t, T>;

// Element i's value: a reduced float read exactly as float.
template <int K, typename S>
__device__ auto Load(const S* p, int64_t i) {
  if constexpr (K == kHalf)
    return __half2float(__ushort_as_half(p[i]));
  else if constexpr (K == kBf16)
    return __bfloat162float(__ushort_as_bfloat16(p[i]));
  else
    return p[i];
}

// `v` converted to the storage of kind K (a reduced float through float).
template <int K, typename S, typename V>
__device__ S To(V v) {
  if constexpr (K == kHalf)
    return __half_as_ushort(__float2half_rn(static_cast<float>(v)));
  else if constexpr (K == kBf16)
    return __bfloat16_as_ushort(__float2bfloat16_rn(static_cast<float>(v)));
  else
    return static_cast<S>(v);
}

template <int KI, typename SI, int KO, typename SO>
__global__ void CastKernel(const SI* x, SO* y, int64_t n, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const SO v = To<KO, SO>(Load<KI>(x, i));
    if (!add) {
      y[i] = v;
    } else if constexpr (KO == kPlain) {
      y[i] = static_cast<SO>(y[i] + v);
    } else {
      const double sum = static_cast<double>(Load<KO>(y, i)) + static_cast<double>(Load<KO>(&v, 0));
      y[i] = To<KO, SO>(sum);
    }
  }
}

template <typename I, typename O>
void Launch(const TBlob& in, const TBlob& out, int64_t n, bool add, cudaStream_t s) {
  constexpr int ki = KindOf<I>, ko = KindOf<O>;
  using SI = Storage<I>;
  using SO = Storage<O>;
  CastKernel<ki, SI, ko, SO><<<GridFor(n), kBlock, 0, s>>>(static_cast<const SI*>(in.dptr),
                                                           static_cast<SO*>(out.dptr), n, add);
}

// out = in converted to out's dtype, under `req`.
void Convert(const OpContext& ctx, const TBlob& in, OpReq req, const TBlob& out) {
  if (req == OpReq::kNull || out.Size() == 0) return;
  const int64_t n = out.Size();
  cudaStream_t s = StreamOf(ctx);
  if (in.dtype == out.dtype && req != OpReq::kAdd) {
    if (in.dptr != out.dptr)
      WEFT_CUDA_CHECK(cudaMemcpyAsync(out.dptr, in.dptr, out.Bytes(), cudaMemcpyDeviceToDevice, s));
    return;
  }
  DispatchDType(in.dtype, [&](auto a) {
    DispatchDType(out.dtype, [&](auto b) {
      Launch<decltype(a), decltype(b)>(in, out, n, req == OpReq::kAdd, s);
    });
  });
}

template <const char* kName>
void CastCuda(const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, kName);
  Convert(ctx, in[0], req[0], out[0]);
  Finish(ctx, kName);
}

// amp_multicast and its gradient: out[i] = in[i] converted (the dtypes fixed
// by inference).
void ConvertEachCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = attrs.op->name.c_str();
  UseDevice(ctx, op);
  for (size_t i = 0; i < out.size(); ++i) Convert(ctx, in[i], req[i], out[i]);
  Finish(ctx, op);
}

constexpr char kCast[] = "Cast", kBackwardCast[] = "_backward_Cast", kAmpCast[] = "amp_cast",
               kBackwardAmpCast[] = "_backward_amp_cast";

}  // namespace

void RegisterCastCuda(KernelRegistry* reg) {
  reg->Add("Cast", DeviceType::kGPU, WithReducedFloats({"cuda", 0, CastCuda<kCast>, true}));
  reg->Add("_backward_Cast", DeviceType::kGPU,
           WithReducedFloats({"cuda", 0, CastCuda<kBackwardCast>, true}));
  reg->Add("amp_cast", DeviceType::kGPU, WithReducedFloats({"cuda", 0, CastCuda<kAmpCast>, true}));
  reg->Add("_backward_amp_cast", DeviceType::kGPU,
           WithReducedFloats({"cuda", 0, CastCuda<kBackwardAmpCast>, true}));
  for (const char* op : {"amp_multicast", "_backward_amp_multicast"})
    reg->Add(op, DeviceType::kGPU, WithReducedFloats({"cuda", 0, ConvertEachCuda, true}));
}

}  // namespace cuda
}  // namespace weft
