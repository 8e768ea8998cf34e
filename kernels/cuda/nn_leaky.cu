// CUDA kernels of LeakyReLU and _backward_LeakyReLU (semantics as
// kernels/cpu/nn_activation.cc, float32/float64): leaky, rrelu (the mean
// slope, as the CPU), elu, selu, gelu and prelu with a per-channel (axis 1)
// or shared gamma. One elementwise kernel per direction switching on the
// activation; prelu's gamma gradient is a block per channel summing
// dy * x over the non-positive inputs (double accumulator).
#include <cmath>
#include <string>
#include <vector>

#include "cuda/cuda_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

enum class Act { kLeaky, kElu, kSelu, kGelu, kPrelu };

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;
constexpr double kInvSqrt2 = 0.70710678118654752440084436210485;
constexpr double kInvSqrt2Pi = 0.39894228040143267793994605993438;

Act ActOf(const NodeAttrs& attrs) {
  const std::string& a = attrs.params.Decoded<LeakyParams>().act;
  if (a == "leaky" || a == "rrelu") return Act::kLeaky;
  if (a == "elu") return Act::kElu;
  if (a == "selu") return Act::kSelu;
  if (a == "gelu") return Act::kGelu;
  return Act::kPrelu;
}

// leaky's slope, rrelu's mean bound, elu's alpha (LeakyParams).
double SlopeOf(const NodeAttrs& attrs) { return attrs.params.Decoded<LeakyParams>().slope; }

// prelu's channel view (outer, c, inner): c = axis 1 unless gamma is shared
// or the data has one axis.
struct Channels {
  int64_t c = 1, inner = 1;
  bool shared = true;
  __device__ int64_t Of(int64_t i) const { return shared ? 0 : (i / inner) % c; }
};

Channels ChannelsOf(const Shape& s, int64_t gsize) {
  Channels ch;
  if (s.ndim() < 2 || gsize == 1) {
    ch.inner = s.Size();
    return ch;
  }
  ch.shared = false;
  ch.c = s[1];
  ch.inner = s.ProdRange(2, s.ndim());
  return ch;
}

template <typename T>
__device__ void Store(T* p, T v, bool add) {
  *p = add ? static_cast<T>(*p + v) : v;
}

template <typename T>
__global__ void LeakyKernel(Act act, T slope, Channels ch, const T* gamma, const T* x, T* y,
                            int64_t n, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const T a = x[i];
    T v;
    switch (act) {
      case Act::kLeaky:
        v = a > T(0) ? a : slope * a;
        break;
      case Act::kElu:
        v = a > T(0) ? a : slope * expm1(a);
        break;
      case Act::kSelu:
        v = static_cast<T>(kSeluLambda) * (a > T(0) ? a : static_cast<T>(kSeluAlpha) * expm1(a));
        break;
      case Act::kGelu:
        v = T(0.5) * a * (T(1) + erf(a * static_cast<T>(kInvSqrt2)));
        break;
      default:
        v = a > T(0) ? a : gamma[ch.Of(i)] * a;
        break;
    }
    Store(&y[i], v, add);
  }
}

template <typename T>
__global__ void LeakyGradKernel(Act act, T slope, Channels ch, const T* gamma, const T* dy,
                                const T* x, T* dx, int64_t n, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const T g = dy[i], a = x[i];
    T v;
    switch (act) {
      case Act::kLeaky:
        v = a > T(0) ? g : slope * g;
        break;
      case Act::kElu:
        v = a > T(0) ? g : g * slope * exp(a);
        break;
      case Act::kSelu:
        v = static_cast<T>(kSeluLambda) * g *
            (a > T(0) ? T(1) : static_cast<T>(kSeluAlpha) * exp(a));
        break;
      case Act::kGelu: {
        const T cdf = T(0.5) * (T(1) + erf(a * static_cast<T>(kInvSqrt2)));
        const T pdf = static_cast<T>(kInvSqrt2Pi) * exp(T(-0.5) * a * a);
        v = g * (cdf + a * pdf);
        break;
      }
      default:
        v = a > T(0) ? g : gamma[ch.Of(i)] * g;
        break;
    }
    Store(&dx[i], v, add);
  }
}

// dgamma[j] = sum over channel j's elements of (x <= 0 ? dy * x : 0); one
// block per channel (grid-stride), `outer` rows of `inner` elements each.
template <typename T>
__global__ void PreluGammaGrad(Channels ch, int64_t outer, const T* dy, const T* x, T* dg,
                               bool add) {
  __shared__ double part[kBlock];
  const int64_t per = outer * ch.inner;
  for (int64_t j = blockIdx.x; j < ch.c; j += gridDim.x) {
    double s = 0;
    for (int64_t k = threadIdx.x; k < per; k += blockDim.x) {
      const int64_t i = ((k / ch.inner) * ch.c + j) * ch.inner + k % ch.inner;
      const T a = x[i];
      if (!(a > T(0))) s += static_cast<double>(dy[i]) * static_cast<double>(a);
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
      __syncthreads();
    }
    if (threadIdx.x == 0) Store(&dg[j], static_cast<T>(part[0]), add);
    __syncthreads();
  }
}

// in: data[, gamma].
void LeakyForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "LeakyReLU";
  UseDevice(ctx, op);
  const int64_t n = out[0].Size();
  if (req[0] == OpReq::kNull || n == 0) return;
  const Act act = ActOf(attrs);
  const bool prelu = act == Act::kPrelu;
  const Channels ch = prelu ? ChannelsOf(in[0].shape, in[1].Size()) : Channels{};
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    LeakyKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        act, static_cast<T>(prelu ? 0.0 : SlopeOf(attrs)), ch, prelu ? in[1].data<T>() : nullptr,
        in[0].data<T>(), out[0].data<T>(), n, req[0] == OpReq::kAdd);
  });
  Finish(ctx, op);
}

// in: ograd, data[, gamma]; out: data_grad[, gamma_grad].
void LeakyBackward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_LeakyReLU";
  UseDevice(ctx, op);
  const int64_t n = in[1].Size();
  if (n == 0) return;
  const Act act = ActOf(attrs);
  const bool prelu = act == Act::kPrelu;
  const Channels ch = prelu ? ChannelsOf(in[1].shape, in[2].Size()) : Channels{};
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    const T* gamma = prelu ? in[2].data<T>() : nullptr;
    if (req[0] != OpReq::kNull)
      LeakyGradKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
          act, static_cast<T>(prelu ? 0.0 : SlopeOf(attrs)), ch, gamma, in[0].data<T>(),
          in[1].data<T>(), out[0].data<T>(), n, req[0] == OpReq::kAdd);
    if (prelu && out.size() > 1 && req[1] != OpReq::kNull) {
      const int64_t outer = n / (ch.c * ch.inner);
      const int grid = static_cast<int>(ch.c < 65535 ? ch.c : 65535);
      PreluGammaGrad<T><<<grid, kBlock, 0, StreamOf(ctx)>>>(
          ch, outer, in[0].data<T>(), in[1].data<T>(), out[1].data<T>(), req[1] == OpReq::kAdd);
    }
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterNNLeakyCuda(KernelRegistry* reg) {
  reg->Add("LeakyReLU", DeviceType::kGPU, {"cuda", 0, LeakyForward, true});
  reg->Add("_backward_LeakyReLU", DeviceType::kGPU, {"cuda", 0, LeakyBackward, true});
}

}  // namespace cuda
}  // namespace weft
