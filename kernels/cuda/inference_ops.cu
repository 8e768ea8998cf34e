// CUDA kernels of the inference passes' ops (core/src/op/inference_ops.cc;
// semantics as kernels/cpu/inference_ops.cc): _bn_fold (float32/float64,
// the scale in double as on the CPU), the epilogue of the cuDNN
// _fused_Convolution (bias, sum and activation in one pass; float16 and
// bfloat16 too, in float) and the per-channel sum of the reduced floats'
// convolution bias gradient.
#include <cmath>

#include "cuda/cuda_util.h"
#include "cuda/inference_ops.h"
#include "cuda/reduced_float.cuh"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

constexpr int kAdd = static_cast<int>(OpReq::kAdd), kWrite = static_cast<int>(OpReq::kWrite);

// One thread per element of the weight; the channel's first inner element
// also writes the bias.
template <typename T>
__global__ void BnFoldKernel(const T* w, const T* bias, const T* gamma, const T* beta,
                             const T* mean, const T* var, T* wo, T* bo, int64_t channels,
                             int64_t inner, double eps, bool fix_gamma, bool add_w, bool add_b,
                             bool write_b) {
  const int64_t n = channels * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t c = i / inner;
    const double sd =
        (fix_gamma ? 1.0 : static_cast<double>(gamma[c])) / sqrt(static_cast<double>(var[c]) + eps);
    StoreReq(add_w ? kAdd : kWrite, &wo[i], static_cast<T>(w[i] * static_cast<T>(sd)));
    if (write_b && i % inner == 0) {
      const double b = bias ? static_cast<double>(bias[c]) : 0.0;
      StoreReq(add_b ? kAdd : kWrite, &bo[c], static_cast<T>((b - mean[c]) * sd + beta[c]));
    }
  }
}

void BnFoldCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_bn_fold";
  UseDevice(ctx, op);
  const BnFoldParams& q = attrs.params.Decoded<BnFoldParams>();
  const size_t k = q.has_bias ? 2 : 1;  // gamma's input index
  const int64_t channels = in[0].shape[0];
  const int64_t inner = channels > 0 ? in[0].Size() / channels : 0;
  if (channels == 0 || inner == 0 || (req[0] == OpReq::kNull && req[1] == OpReq::kNull)) return;
  WEFT_CHECK(req[0] != OpReq::kNull) << "_bn_fold on the GPU writes its weight";
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    BnFoldKernel<T><<<GridFor(channels * inner), kBlock, 0, StreamOf(ctx)>>>(
        in[0].data<T>(), q.has_bias ? in[1].data<T>() : nullptr, in[k].data<T>(),
        in[k + 1].data<T>(), in[k + 2].data<T>(), in[k + 3].data<T>(), out[0].data<T>(),
        out[1].data<T>(), channels, inner, q.eps, q.fix_gamma, req[0] == OpReq::kAdd,
        req[1] == OpReq::kAdd, req[1] != OpReq::kNull);
  });
  Finish(ctx, op);
}

// act as cpu::FusedConvAct::Apply (a NaN passes through).
template <typename T>
__device__ T Act(int kind, T v, T lo, T hi) {
  if (kind == cpu::FusedConvAct::kRelu) return v < T(0) ? T(0) : v;
  if (kind == cpu::FusedConvAct::kClip) return v > hi ? hi : (v < lo ? lo : v);
  return v;
}

// In float for float16/bfloat16 data (Acc), rounded once when stored.
template <typename T>
__global__ void EpilogueKernel(const T* conv, const T* bias, const T* sum, T* y, int64_t n,
                               int64_t channels, int64_t inner, int kind, Acc<T> lo, Acc<T> hi,
                               bool add) {
  using A = Acc<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    A v = conv ? static_cast<A>(conv[i]) : A(0);
    if (bias) v += static_cast<A>(bias[i / inner % channels]);
    if (sum) v += static_cast<A>(sum[i]);
    v = Act(kind, v, lo, hi);
    y[i] = StoreAs<T>(add ? static_cast<A>(y[i]) + v : v);
  }
}

// One block per channel: the block's threads stride over the channel's
// elements, then reduce in shared memory.
template <typename T>
__global__ void ChannelSumKernel(const T* dy, int64_t outer, int64_t channels, int64_t inner,
                                 int req, T* db) {
  using A = Acc<T>;
  __shared__ A part[kBlock];
  const int64_t c = blockIdx.x;
  A s = A(0);
  for (int64_t j = threadIdx.x; j < outer * inner; j += blockDim.x)
    s += static_cast<A>(dy[((j / inner) * channels + c) * inner + j % inner]);
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) StoreReq(req, &db[c], part[0]);
}

}  // namespace

void LaunchChannelSum(const OpContext& ctx, DType t, const void* dy, int64_t outer,
                      int64_t channels, int64_t inner, OpReq req, void* db) {
  if (req == OpReq::kNull || channels == 0) return;
  DispatchDeviceFloat(t, "_backward_Convolution", [&](auto v) {
    using T = decltype(v);
    ChannelSumKernel<T><<<static_cast<unsigned>(channels), kBlock, 0, StreamOf(ctx)>>>(
        static_cast<const T*>(dy), outer, channels, inner, static_cast<int>(req),
        static_cast<T*>(db));
  });
}

void LaunchConvEpilogue(const OpContext& ctx, DType t, const cpu::FusedConvAct& act,
                        const void* conv, const void* bias, const void* sum, void* y, int64_t n,
                        int64_t channels, int64_t inner, OpReq req) {
  if (req == OpReq::kNull || n == 0) return;
  DispatchDeviceFloat(t, "_fused_Convolution", [&](auto v) {
    using T = decltype(v);
    EpilogueKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        static_cast<const T*>(conv), static_cast<const T*>(bias), static_cast<const T*>(sum),
        static_cast<T*>(y), n, channels, inner, static_cast<int>(act.kind),
        static_cast<Acc<T>>(act.lo), static_cast<Acc<T>>(act.hi), req == OpReq::kAdd);
  });
}

void RegisterInferenceOpsCuda(KernelRegistry* reg) {
  reg->Add("_bn_fold", DeviceType::kGPU, {"cuda", 0, BnFoldCuda, true});
}

}  // namespace cuda
}  // namespace weft
