// CUDA kernels of sum, mean, max, min, prod, nansum, nanprod, norm and their
// gradients, and _broadcast_backward_reduce with LaunchSumTo (the sum to a
// broadcast operand's shape, cuda/reduce.cuh) (semantics as
// kernels/cpu/reduce.cc and broadcast.cc; float32/float64 here, the
// integer reductions stay on the CPU kernels). Which axes are reduced is
// decided by the shared kernels/reduce_axes.h.
//
// Forward: the input is viewed as kept axes x reduced axes (extent-1 axes
// dropped, neighbours of the same kind merged); each block reduces the
// elements of one output position (grid-stride over outputs), its threads
// striding over the reduced positions and combining in shared memory, with
// a double accumulator as the CPU. Backward: one thread per input element,
// dx = ograd[o] * grad(x, out[o]) where o is the element's output position
// (a broadcast of the keepdims-shaped ograd, cuda/broadcast_index.h).
#include <cmath>
#include <vector>

#include "cuda/broadcast_index.h"
#include "cuda/cuda_util.h"
#include "cuda/reduce.cuh"
#include "reduce_axes.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

constexpr int kMaxAxes = BroadcastIndex::kMaxDims;

// Row-major axes (extent, input stride) decomposing a linear position.
struct AxisSet {
  int n = 0;
  int64_t extent[kMaxAxes] = {};
  int64_t stride[kMaxAxes] = {};
  __device__ int64_t Offset(int64_t i) const {
    int64_t off = 0;
    for (int d = n - 1; d >= 0; --d) {
      off += (i % extent[d]) * stride[d];
      i /= extent[d];
    }
    return off;
  }
};

struct ReduceGeometry {
  AxisSet kept, reduced;
  int64_t num_kept = 1, num_reduced = 1;
};

// `flags` marks the reduced axes of `data`.
ReduceGeometry MakeGeometry(const std::vector<bool>& flags, const Shape& data, const char* op) {
  std::vector<int64_t> extents, strides;
  std::vector<bool> reduced;
  int64_t stride = 1;
  std::vector<int64_t> stride_of(data.ndim());
  for (int i = data.ndim() - 1; i >= 0; --i) {
    stride_of[i] = stride;
    stride *= data[i];
  }
  for (int i = 0; i < data.ndim(); ++i) {
    if (data[i] == 1) continue;
    if (!extents.empty() && reduced.back() == flags[i]) {  // contiguous neighbours merge
      extents.back() *= data[i];
      strides.back() = stride_of[i];
    } else {
      extents.push_back(data[i]);
      strides.push_back(stride_of[i]);
      reduced.push_back(flags[i]);
    }
  }
  ReduceGeometry g;
  for (size_t i = 0; i < extents.size(); ++i) {
    AxisSet& s = reduced[i] ? g.reduced : g.kept;
    if (s.n == kMaxAxes)
      Fail(StatusCode::kNotImplemented, "operator ", op, " on the GPU: more than ", kMaxAxes,
           " alternating kept/reduced axes");
    s.extent[s.n] = extents[i];
    s.stride[s.n] = strides[i];
    ++s.n;
    (reduced[i] ? g.num_reduced : g.num_kept) *= extents[i];
  }
  return g;
}

// Reducers on the double accumulator: Init, Add (one element), Merge (two
// partial results).
__device__ bool IsNan(double x) { return x != x; }
struct SumR {
  static __device__ double Init() { return 0; }
  static __device__ double Add(double a, double x) { return a + x; }
  static __device__ double Merge(double a, double b) { return a + b; }
};
struct MaxR {
  static __device__ double Init() { return -INFINITY; }
  static __device__ double Add(double a, double x) {
    return (x > a || IsNan(x)) && !IsNan(a) ? x : a;
  }
  static __device__ double Merge(double a, double b) { return Add(a, b); }
};
struct MinR {
  static __device__ double Init() { return INFINITY; }
  static __device__ double Add(double a, double x) {
    return (x < a || IsNan(x)) && !IsNan(a) ? x : a;
  }
  static __device__ double Merge(double a, double b) { return Add(a, b); }
};
struct ProdR {
  static __device__ double Init() { return 1; }
  static __device__ double Add(double a, double x) { return a * x; }
  static __device__ double Merge(double a, double b) { return a * b; }
};
struct NanSumR {
  static __device__ double Init() { return 0; }
  static __device__ double Add(double a, double x) { return IsNan(x) ? a : a + x; }
  static __device__ double Merge(double a, double b) { return a + b; }
};
struct NanProdR {
  static __device__ double Init() { return 1; }
  static __device__ double Add(double a, double x) { return IsNan(x) ? a : a * x; }
  static __device__ double Merge(double a, double b) { return a * b; }
};
struct L1R {
  static __device__ double Init() { return 0; }
  static __device__ double Add(double a, double x) { return a + fabs(x); }
  static __device__ double Merge(double a, double b) { return a + b; }
};
struct L2R {
  static __device__ double Init() { return 0; }
  static __device__ double Add(double a, double x) { return a + x * x; }
  static __device__ double Merge(double a, double b) { return a + b; }
};

// What is done with the accumulated value: kept, divided by the count
// (mean), or its square root (the 2-norm).
enum class Post { kNone, kMean, kSqrt };

template <typename R, typename T>
__global__ void ReduceKernel(ReduceGeometry g, const T* x, T* y, bool add, Post post) {
  __shared__ double part[kBlock];
  for (int64_t k = blockIdx.x; k < g.num_kept; k += gridDim.x) {
    const T* xk = x + g.kept.Offset(k);
    double a = R::Init();
    for (int64_t r = threadIdx.x; r < g.num_reduced; r += blockDim.x)
      a = R::Add(a, static_cast<double>(xk[g.reduced.Offset(r)]));
    part[threadIdx.x] = a;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) part[threadIdx.x] = R::Merge(part[threadIdx.x], part[threadIdx.x + w]);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      double v = part[0];
      if (post == Post::kMean)
        v = g.num_reduced ? v / static_cast<double>(g.num_reduced) : NAN;
      else if (post == Post::kSqrt)
        v = sqrt(v);
      y[k] = add ? static_cast<T>(y[k] + static_cast<T>(v)) : static_cast<T>(v);
    }
    __syncthreads();
  }
}

// Threads per block: a power of two covering the reduced count, 32..kBlock.
int BlockFor(int64_t num_reduced) {
  int t = 32;
  while (t < kBlock && t < num_reduced) t *= 2;
  return t;
}

// Launches ReduceKernel<R> over `x` (shape `data`, the axes in `flags`
// reduced) into `y` with request `req`; does not wait.
template <typename R>
void LaunchReduce(const OpContext& ctx, DType t, const void* x, const Shape& data,
                  const std::vector<bool>& flags, void* y, OpReq req, Post post, const char* op) {
  if (req == OpReq::kNull) return;
  const ReduceGeometry g = MakeGeometry(flags, data, op);
  if (g.num_kept == 0) return;
  DispatchFloat(t, op, [&](auto v) {
    using T = decltype(v);
    const int grid = static_cast<int>(g.num_kept < 65535 ? g.num_kept : 65535);
    ReduceKernel<R, T><<<grid, BlockFor(g.num_reduced), 0, StreamOf(ctx)>>>(
        g, static_cast<const T*>(x), static_cast<T*>(y), req == OpReq::kAdd, post);
  });
}

template <typename R>
void ReduceForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out, Post post) {
  const char* op = attrs.op->name.c_str();
  UseDevice(ctx, op);
  if (out[0].Size() == 0) return;
  LaunchReduce<R>(ctx, in[0].dtype, in[0].dptr, in[0].shape,
                  ReducedAxisFlags(attrs, in[0].shape.ndim()), out[0].dptr, req[0], post, op);
  Finish(ctx, op);
}

// Gradient factors grad(x, y) of each reduction (y: the forward output, 0
// when the op has no `out` input); `scale` is mean's count ratio.
enum class Grad { kOne, kScale, kEq, kProd, kNanSum, kNanProd, kSign, kL2 };

__device__ double GradFactor(Grad f, double x, double y, double scale) {
  switch (f) {
    case Grad::kOne:
      return 1;
    case Grad::kScale:
      return scale;
    case Grad::kEq:
      return x == y ? 1 : 0;
    case Grad::kProd:
      return y / x;
    case Grad::kNanSum:
      return IsNan(x) ? 0 : 1;
    case Grad::kNanProd:
      return IsNan(x) ? 0 : y / x;
    case Grad::kSign:
      return static_cast<double>((x > 0) - (x < 0));
    case Grad::kL2:
      return y == 0 ? 0 : x / y;
  }
  return 0;
}

template <typename T>
__global__ void ReduceGradKernel(BroadcastIndex index, Grad f, double scale, const T* g, const T* x,
                                 const T* y, T* dx, int64_t n, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    int64_t o, unused;
    index.Offsets(i, &o, &unused);
    const double yv = y ? static_cast<double>(y[o]) : 0.0;
    const T v = static_cast<T>(static_cast<double>(g[o]) *
                               GradFactor(f, static_cast<double>(x[i]), yv, scale));
    dx[i] = add ? static_cast<T>(dx[i] + v) : v;
  }
}

// in = (ograd, data[, out]); out = (data grad).
void ReduceBackward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out, Grad f) {
  const char* op = attrs.op->name.c_str();
  UseDevice(ctx, op);
  const int64_t n = in[1].Size();
  if (req[0] == OpReq::kNull || n == 0) return;
  const Shape& data = in[1].shape;
  const std::vector<bool> flags = ReducedAxisFlags(attrs, data.ndim());
  Shape kept = data;  // the keepdims shape of ograd
  for (int i = 0; i < data.ndim(); ++i)
    if (flags[i]) kept[i] = 1;
  const BroadcastIndex index = MakeBroadcastIndex(kept, kept, data, op);
  const double scale = static_cast<double>(in[0].Size()) / static_cast<double>(n);
  if (in[0].dtype != in[1].dtype)
    Fail(StatusCode::kDType, "operator ", op, " on the GPU: ograd has dtype ",
         DTypeName(in[0].dtype), ", data ", DTypeName(in[1].dtype), "; expected the same");
  DispatchFloat(in[1].dtype, op, [&](auto t) {
    using T = decltype(t);
    const T* y = in.size() > 2 ? in[2].data<T>() : nullptr;
    ReduceGradKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        index, f, scale, in[0].data<T>(), in[1].data<T>(), y, out[0].data<T>(), n,
        req[0] == OpReq::kAdd);
  });
  Finish(ctx, op);
}

#define WEFT_REDUCE_KERNEL(Name, ...)                                                   \
  void Name(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in, \
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {             \
    __VA_ARGS__;                                                                        \
  }

WEFT_REDUCE_KERNEL(SumForward, ReduceForward<SumR>(ctx, attrs, in, req, out, Post::kNone))
WEFT_REDUCE_KERNEL(MeanForward, ReduceForward<SumR>(ctx, attrs, in, req, out, Post::kMean))
WEFT_REDUCE_KERNEL(MaxForward, ReduceForward<MaxR>(ctx, attrs, in, req, out, Post::kNone))
WEFT_REDUCE_KERNEL(MinForward, ReduceForward<MinR>(ctx, attrs, in, req, out, Post::kNone))
WEFT_REDUCE_KERNEL(ProdForward, ReduceForward<ProdR>(ctx, attrs, in, req, out, Post::kNone))
WEFT_REDUCE_KERNEL(NanSumForward, ReduceForward<NanSumR>(ctx, attrs, in, req, out, Post::kNone))
WEFT_REDUCE_KERNEL(NanProdForward, ReduceForward<NanProdR>(ctx, attrs, in, req, out, Post::kNone))
WEFT_REDUCE_KERNEL(NormForward, {
  if (attrs.params.Decoded<NormOrdParams>().ord == 1)
    ReduceForward<L1R>(ctx, attrs, in, req, out, Post::kNone);
  else
    ReduceForward<L2R>(ctx, attrs, in, req, out, Post::kSqrt);
})

WEFT_REDUCE_KERNEL(SumBackward, ReduceBackward(ctx, attrs, in, req, out, Grad::kOne))
WEFT_REDUCE_KERNEL(MeanBackward, ReduceBackward(ctx, attrs, in, req, out, Grad::kScale))
WEFT_REDUCE_KERNEL(MaxBackward, ReduceBackward(ctx, attrs, in, req, out, Grad::kEq))
WEFT_REDUCE_KERNEL(MinBackward, ReduceBackward(ctx, attrs, in, req, out, Grad::kEq))
WEFT_REDUCE_KERNEL(ProdBackward, ReduceBackward(ctx, attrs, in, req, out, Grad::kProd))
WEFT_REDUCE_KERNEL(NanSumBackward, ReduceBackward(ctx, attrs, in, req, out, Grad::kNanSum))
WEFT_REDUCE_KERNEL(NanProdBackward, ReduceBackward(ctx, attrs, in, req, out, Grad::kNanProd))
WEFT_REDUCE_KERNEL(NormBackward,
                   ReduceBackward(ctx, attrs, in, req, out,
                                  attrs.params.Decoded<NormOrdParams>().ord == 1 ? Grad::kSign
                                                                                 : Grad::kL2))

#undef WEFT_REDUCE_KERNEL

// _broadcast_backward_reduce(ograd, like): ograd summed to like's shape.
void BroadcastBackwardReduce(const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_broadcast_backward_reduce";
  UseDevice(ctx, op);
  LaunchSumTo(ctx, in[0].dtype, in[0].dptr, in[0].shape, out[0].dptr, out[0].shape, req[0], op);
  Finish(ctx, op);
}

}  // namespace

void LaunchSumTo(const OpContext& ctx, DType t, const void* src, const Shape& big, void* dst,
                 const Shape& small, OpReq req, const char* op) {
  const int lead = big.ndim() - small.ndim();
  std::vector<bool> flags(big.ndim());
  for (int i = 0; i < big.ndim(); ++i) flags[i] = i < lead || small[i - lead] == 1;
  LaunchReduce<SumR>(ctx, t, src, big, flags, dst, req, Post::kNone, op);
}

void RegisterReduceCuda(KernelRegistry* reg) {
  const std::pair<const char*, KernelFn> kernels[] = {
      {"sum", SumForward},
      {"mean", MeanForward},
      {"max", MaxForward},
      {"min", MinForward},
      {"prod", ProdForward},
      {"nansum", NanSumForward},
      {"nanprod", NanProdForward},
      {"norm", NormForward},
      {"_backward_sum", SumBackward},
      {"_backward_mean", MeanBackward},
      {"_backward_max", MaxBackward},
      {"_backward_min", MinBackward},
      {"_backward_prod", ProdBackward},
      {"_backward_nansum", NanSumBackward},
      {"_backward_nanprod", NanProdBackward},
      {"_backward_norm", NormBackward},
      {"_broadcast_backward_reduce", BroadcastBackwardReduce}};
  for (const auto& [name, fn] : kernels) reg->Add(name, DeviceType::kGPU, {"cuda", 0, fn, true});
}

}  // namespace cuda
}  // namespace weft
