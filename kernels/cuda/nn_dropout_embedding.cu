// CUDA kernels of Dropout, Embedding and their gradients (semantics as
// kernels/cpu/nn_activation.cc and kernels/cpu/index_ops.cc, float32 and
// float64 values).
//
// Dropout draws one 64-bit seed from the context's random state (under its
// lock; the op is an RNG op, so draws follow push order) and derives each
// mask element from a counter-based hash of (seed, mask index): the masks
// are reproducible after Runtime::Seed and independent of the launch
// geometry, but are not the CPU generator's numbers. The mask has the
// data's shape with `axes` collapsed and is broadcast over them, as on the
// CPU. Embedding gathers rows (indices of any dtype but float16, clipped to
// [0, input_dim)); its weight gradient scatters with atomic adds, so rows
// hit by several indices sum in an unspecified order.

#include <type_traits>
#include <vector>

#include "cuda/broadcast_index.h"
#include "cuda/cuda_util.h"
#include "dropout_mask.h"
#include "shared_params.h"
#include "weft/dtype.h"
#include "weft/mutex.h"
#include "weft/runtime.h"

namespace weft {
namespace cuda {

namespace {

#define WEFT_GRID_LOOP(i, n)                                                             \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// A uniform double in [0, 1) from (seed, counter): SplitMix64's finaliser.
__device__ double Uniform(uint64_t seed, uint64_t counter) {
  uint64_t z = seed + (counter + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

template <typename T>
__device__ void Store(T* p, T v, int req) {
  if (req == static_cast<int>(OpReq::kNull)) return;
  *p = req == static_cast<int>(OpReq::kAdd) ? static_cast<T>(*p + v) : v;
}

// index maps a data element to its mask element (both operands alike).
template <typename T>
__global__ void DropoutKernel(BroadcastIndex index, uint64_t seed, double prob, T scale, const T* x,
                              T* y, T* m, int64_t n, int req_y, int req_m) {
  WEFT_GRID_LOOP(i, n) {
    int64_t mi, unused;
    index.Offsets(i, &mi, &unused);
    const T mv = Uniform(seed, static_cast<uint64_t>(mi)) < prob ? T(0) : scale;
    Store(&m[i], mv, req_m);
    Store(&y[i], static_cast<T>(x[i] * mv), req_y);
  }
}

// Inactive dropout: y = x, mask = 1.
template <typename T>
__global__ void PassKernel(const T* x, T* y, T* m, int64_t n, int req_y, int req_m) {
  WEFT_GRID_LOOP(i, n) {
    Store(&m[i], T(1), req_m);
    Store(&y[i], x[i], req_y);
  }
}

template <typename T>
__global__ void MulKernel(const T* a, const T* b, T* y, int64_t n, int req) {
  WEFT_GRID_LOOP(i, n) Store(&y[i], static_cast<T>(a[i] * b[i]), req);
}

// out: output, mask.
void DropoutForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "Dropout";
  UseDevice(ctx, op);
  const ParamValues& p = attrs.params;
  const DropoutParams& dp = p.Decoded<DropoutParams>();
  const double prob = dp.p;
  const bool active = (ctx.is_train || dp.always) && prob > 0;
  const Shape& s = in[0].shape;
  const int64_t n = s.Size();
  if (n == 0) return;
  const int ry = static_cast<int>(req[0]), rm = static_cast<int>(req[1]);
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    if (!active) {
      PassKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(in[0].data<T>(), out[0].data<T>(),
                                                              out[1].data<T>(), n, ry, rm);
      return;
    }
    const Shape ms = DropoutMaskShape(p, s);
    const BroadcastIndex index = MakeBroadcastIndex(ms, ms, s, op);
    if (!ctx.rng) Fail(StatusCode::kInternal, "operator Dropout: no random state");
    uint64_t seed;
    {
      weft::MutexLock lock(&ctx.rng->mu);
      seed = ctx.rng->engine();
    }
    const T scale = prob >= 1 ? T(0) : static_cast<T>(1.0 / (1.0 - prob));
    DropoutKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        index, seed, prob, scale, in[0].data<T>(), out[0].data<T>(), out[1].data<T>(), n, ry, rm);
  });
  Finish(ctx, op);
}

// in: ograd, mask; out: data grad = ograd * mask.
void DropoutBackward(const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                     const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_Dropout";
  UseDevice(ctx, op);
  const int64_t n = out[0].Size();
  if (req[0] == OpReq::kNull || n == 0) return;
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    MulKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), n, static_cast<int>(req[0]));
  });
  Finish(ctx, op);
}

template <typename I>
__device__ int64_t Row(I v, int64_t rows) {
  const int64_t r = static_cast<int64_t>(v);
  return r < 0 ? 0 : (r >= rows ? rows - 1 : r);
}

template <typename I, typename T>
__global__ void GatherRows(const I* idx, const T* w, T* y, int64_t rows, int64_t cols, int64_t n,
                           int req) {
  WEFT_GRID_LOOP(i, n) {
    const int64_t k = i / cols, j = i - k * cols;
    Store(&y[i], w[Row(idx[k], rows) * cols + j], req);
  }
}

template <typename I, typename T>
__global__ void ScatterAddRows(const I* idx, const T* g, T* dw, int64_t rows, int64_t cols,
                               int64_t n) {
  WEFT_GRID_LOOP(i, n) {
    const int64_t k = i / cols, j = i - k * cols;
    atomicAdd(&dw[Row(idx[k], rows) * cols + j], g[i]);
  }
}

// Index dtypes: every numeric dtype but float16 and bfloat16.
template <typename F>
void DispatchIndex(DType t, const char* op, F&& f) {
  DispatchDType(t, [&](auto i) {
    using I = decltype(i);
    if constexpr (kIsReducedFloat<I>)
      Fail(StatusCode::kDType, "operator ", op, " on the GPU: ", DTypeName(t),
           " indices are not supported");
    else
      f(i);
  });
}

// in: data (indices), weight.
void EmbeddingForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "Embedding";
  UseDevice(ctx, op);
  const EmbeddingParams& ep = attrs.params.Decoded<EmbeddingParams>();
  const int64_t rows = ep.rows, cols = ep.cols;
  const int64_t n = in[0].Size() * cols;
  if (req[0] == OpReq::kNull || n == 0) return;
  DispatchIndex(in[0].dtype, op, [&](auto i) {
    using I = decltype(i);
    DispatchFloat(in[1].dtype, op, [&](auto t) {
      using T = decltype(t);
      GatherRows<I, T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(in[0].data<I>(), in[1].data<T>(),
                                                                 out[0].data<T>(), rows, cols, n,
                                                                 static_cast<int>(req[0]));
    });
  });
  Finish(ctx, op);
}

// in: ograd, data; out: data grad (zeros), weight grad.
void EmbeddingBackward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_Embedding";
  UseDevice(ctx, op);
  cudaStream_t s = StreamOf(ctx);
  const EmbeddingParams& ep = attrs.params.Decoded<EmbeddingParams>();
  const int64_t rows = ep.rows, cols = ep.cols;
  if ((req[0] == OpReq::kWrite || req[0] == OpReq::kInplace) && out[0].Bytes() > 0)
    WEFT_CUDA_CHECK(cudaMemsetAsync(out[0].dptr, 0, out[0].Bytes(), s));
  if (req[1] != OpReq::kNull) {
    if (req[1] != OpReq::kAdd && out[1].Bytes() > 0)
      WEFT_CUDA_CHECK(cudaMemsetAsync(out[1].dptr, 0, out[1].Bytes(), s));
    const int64_t n = in[1].Size() * cols;
    if (n > 0) {
      DispatchIndex(in[1].dtype, op, [&](auto i) {
        using I = decltype(i);
        DispatchFloat(in[0].dtype, op, [&](auto t) {
          using T = decltype(t);
          ScatterAddRows<I, T><<<GridFor(n), kBlock, 0, s>>>(in[1].data<I>(), in[0].data<T>(),
                                                             out[1].data<T>(), rows, cols, n);
        });
      });
    }
  }
  Finish(ctx, op);
}

#undef WEFT_GRID_LOOP

}  // namespace

void RegisterNNDropoutEmbeddingCuda(KernelRegistry* reg) {
  reg->Add("Dropout", DeviceType::kGPU, {"cuda", 0, DropoutForward, true});
  reg->Add("_backward_Dropout", DeviceType::kGPU, {"cuda", 0, DropoutBackward, true});
  reg->Add("Embedding", DeviceType::kGPU, {"cuda", 0, EmbeddingForward, true});
  reg->Add("_backward_Embedding", DeviceType::kGPU, {"cuda", 0, EmbeddingBackward, true});
}

}  // namespace cuda
}  // namespace weft
