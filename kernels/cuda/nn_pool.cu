// CUDA kernels of Pooling and _backward_Pooling (semantics as
// core/src/op/nn_pool.cc and kernels/cpu/nn_pool.cc).
//
// cuDNN runs every case it computes exactly as the CPU reference: max, avg
// (count_include_pad on or off) and sum (avg including padding times the
// window size), global_pool, and pooling_convention full when it rounds
// like valid on every axis ((x + 2*pad - k) divisible by stride). It cannot
// express the extra, partial last window of `full` (cuDNN pads both sides
// equally and divides by the whole window), nor windows lying wholly in the
// padding (pad >= kernel, where the reference gives 0), nor cudnn_off; those
// cases run the direct kernels below, which follow the reference window by
// window (max routes the gradient to the first maximum in row-major order).
// float16 data: cuDNN's half pooling (but the max gradient); bfloat16
// (whose legacy cuDNN support is not documented), the float16 max gradient
// (ties) and the direct cases: the direct kernels, in float.
// The cuDNN gradient needs the forward output, which it recomputes into
// scratch memory since _backward_Pooling receives only (ograd, data).
#include <string>

#include "cuda/cuda_handles.h"
#include "cuda/reduced_float.cuh"
#include "nn_geometry.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// Pooling's cudnn_off, decoded once per node (ParamValues::Decoded).
struct CudnnOff {
  bool off = false;
  static CudnnOff Decode(const ParamValues& p) { return {p.GetBool("cudnn_off")}; }
};

// Whether cuDNN computes exactly what the reference does (see the top).
bool CudnnMatches(const PoolGeom& g, const ParamValues& p, DType t) {
  if (p.Decoded<CudnnOff>().off || t == DType::kBFloat16) return false;
  auto axis_ok = [](int64_t x, int64_t o, int64_t k, int64_t s, int64_t pad) {
    return pad < k && x + 2 * pad >= k && (x + 2 * pad - k) / s + 1 == o;
  };
  return axis_ok(g.h, g.oh, g.kh, g.sh, g.ph) && axis_ok(g.w, g.ow, g.kw, g.sw, g.pw);
}

// ---------------------------------------------------------------- direct

struct Window {
  int64_t y0, y1, x0, x1, count;
};

__device__ Window WindowAt(const PoolGeom& g, int64_t oy, int64_t ox) {
  Window win;
  const int64_t ys = oy * g.sh - g.ph, xs = ox * g.sw - g.pw;
  const int64_t ye = min(ys + g.kh, g.h + g.ph), xe = min(xs + g.kw, g.w + g.pw);
  const int64_t padded = (ye - ys) * (xe - xs);
  win.y0 = max(ys, int64_t(0));
  win.x0 = max(xs, int64_t(0));
  win.y1 = max(win.y0, min(ye, g.h));
  win.x1 = max(win.x0, min(xe, g.w));
  win.count = g.count_include_pad ? padded : (win.y1 - win.y0) * (win.x1 - win.x0);
  return win;
}

// Plane offset of the first maximum of `win` (row-major, strict >).
template <typename T>
__device__ int64_t ArgMax(const PoolGeom& g, const T* xp, const Window& win) {
  using A = Acc<T>;
  int64_t best = win.y0 * g.w + win.x0;
  A best_v = static_cast<A>(xp[best]);
  for (int64_t iy = win.y0; iy < win.y1; ++iy)
    for (int64_t ix = win.x0; ix < win.x1; ++ix)
      if (static_cast<A>(xp[iy * g.w + ix]) > best_v) {
        best_v = static_cast<A>(xp[iy * g.w + ix]);
        best = iy * g.w + ix;
      }
  return best;
}

// In float for float16/bfloat16 (Acc), rounded once when stored.
template <typename T>
__global__ void PoolFwdDirect(PoolGeom g, const T* x, T* y, bool add) {
  using A = Acc<T>;
  const int64_t P = g.oh * g.ow, total = g.planes * P;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t pl = i / P, oy = (i % P) / g.ow, ox = i % g.ow;
    const T* xp = x + pl * g.h * g.w;
    const Window win = WindowAt(g, oy, ox);
    A v = A(0);
    if (win.y0 < win.y1 && win.x0 < win.x1) {
      if (g.kind == PoolKind::kMax) {
        v = static_cast<A>(xp[ArgMax(g, xp, win)]);
      } else {
        for (int64_t iy = win.y0; iy < win.y1; ++iy)
          for (int64_t ix = win.x0; ix < win.x1; ++ix) v += static_cast<A>(xp[iy * g.w + ix]);
        if (g.kind == PoolKind::kAvg) v /= static_cast<A>(win.count);
      }
    }
    y[i] = StoreAs<T>(add ? static_cast<A>(y[i]) + v : v);
  }
}

// One thread per input element, gathering from the windows covering it.
template <typename T>
__global__ void PoolBwdDirect(PoolGeom g, const T* dy, const T* x, T* dx, bool add) {
  using A = Acc<T>;
  const int64_t HW = g.h * g.w, total = g.planes * HW;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t pl = i / HW, iy = (i % HW) / g.w, ix = i % g.w;
    const T* xp = x + pl * HW;
    const T* dyp = dy + pl * g.oh * g.ow;
    // Windows start at o*s - p and cover k elements: o in [lo, hi].
    const int64_t ylo = max(int64_t(0), (iy + g.ph - g.kh + g.sh) / g.sh);
    const int64_t yhi = min(g.oh - 1, (iy + g.ph) / g.sh);
    const int64_t xlo = max(int64_t(0), (ix + g.pw - g.kw + g.sw) / g.sw);
    const int64_t xhi = min(g.ow - 1, (ix + g.pw) / g.sw);
    A s = A(0);
    for (int64_t oy = ylo; oy <= yhi; ++oy) {
      if (oy * g.sh - g.ph > iy || oy * g.sh - g.ph + g.kh <= iy) continue;
      for (int64_t ox = xlo; ox <= xhi; ++ox) {
        if (ox * g.sw - g.pw > ix || ox * g.sw - g.pw + g.kw <= ix) continue;
        const Window win = WindowAt(g, oy, ox);
        const A d = static_cast<A>(dyp[oy * g.ow + ox]);
        if (g.kind == PoolKind::kMax) {
          if (ArgMax(g, xp, win) == iy * g.w + ix) s += d;
        } else {
          s += g.kind == PoolKind::kAvg ? d / static_cast<A>(win.count) : d;
        }
      }
    }
    dx[i] = StoreAs<T>(add ? static_cast<A>(dx[i]) + s : s);
  }
}

// ----------------------------------------------------------------- cuDNN

struct CudnnPool {
  PoolDesc pool;
  TensorDesc x, y;
  double alpha = 1.0;  // window size for sum pooling

  CudnnPool(const PoolGeom& g, DType t, const char* op) {
    cudnnPoolingMode_t mode = CUDNN_POOLING_MAX_DETERMINISTIC;
    if (g.kind == PoolKind::kSum) {
      mode = CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
      alpha = static_cast<double>(g.kh * g.kw);
    } else if (g.kind == PoolKind::kAvg) {
      mode = g.count_include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                 : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    }
    WEFT_CUDNN_CHECK(cudnnSetPooling2dDescriptor(
        pool.d, mode, CUDNN_PROPAGATE_NAN, CudnnDim(g.kh, op), CudnnDim(g.kw, op),
        CudnnDim(g.ph, op), CudnnDim(g.pw, op), CudnnDim(g.sh, op), CudnnDim(g.sw, op)));
    x.Set(t, 1, g.planes, g.h, g.w, op);
    y.Set(t, 1, g.planes, g.oh, g.ow, op);
  }
};

void PoolingCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "Pooling";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const PoolGeom g = MakePoolGeom(attrs.params, in[0].shape, out[0].shape);
  const DType t = in[0].dtype;
  if (CudnnMatches(g, attrs.params, t)) {
    CudnnPool c(g, t, op);
    const Scalar alpha(t, c.alpha), beta(t, BetaOf(req[0]));
    WEFT_CUDNN_CHECK(cudnnPoolingForward(CudnnHandle(ctx), c.pool.d, alpha.ptr(), c.x.d, in[0].dptr,
                                         beta.ptr(), c.y.d, out[0].dptr));
  } else {
    DispatchDeviceFloat(t, op, [&](auto v) {
      using T = decltype(v);
      PoolFwdDirect<T><<<GridFor(out[0].Size()), kBlock, 0, StreamOf(ctx)>>>(
          g, in[0].data<T>(), out[0].data<T>(), req[0] == OpReq::kAdd);
    });
  }
  Finish(ctx, op);
}

// in: ograd, data; out: data_grad.
void PoolingBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                         const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_Pooling";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const PoolGeom g = MakePoolGeom(attrs.params, in[1].shape, in[0].shape);
  const DType t = in[0].dtype;
  // float16 data has ties where its float32 source had none, and cuDNN does
  // not say which maximum gets the gradient: the direct kernel's first one.
  const bool max_ties = t == DType::kFloat16 && g.kind == PoolKind::kMax;
  if (CudnnMatches(g, attrs.params, t) && !max_ties) {
    CudnnPool c(g, t, op);
    cudnnHandle_t h = CudnnHandle(ctx);
    DeviceBuffer y(ctx, in[0].Bytes());
    const Scalar one(t, 1.0), zero(t, 0.0), alpha(t, c.alpha), beta(t, BetaOf(req[0]));
    WEFT_CUDNN_CHECK(
        cudnnPoolingForward(h, c.pool.d, one.ptr(), c.x.d, in[1].dptr, zero.ptr(), c.y.d, y.get()));
    WEFT_CUDNN_CHECK(cudnnPoolingBackward(h, c.pool.d, alpha.ptr(), c.y.d, y.get(), c.y.d,
                                          in[0].dptr, c.x.d, in[1].dptr, beta.ptr(), c.x.d,
                                          out[0].dptr));
  } else {
    DispatchDeviceFloat(t, op, [&](auto v) {
      using T = decltype(v);
      PoolBwdDirect<T><<<GridFor(out[0].Size()), kBlock, 0, StreamOf(ctx)>>>(
          g, in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), req[0] == OpReq::kAdd);
    });
  }
  Finish(ctx, op);
}

}  // namespace

void RegisterNNPoolCuda(KernelRegistry* reg) {
  reg->Add("Pooling", DeviceType::kGPU, WithReducedFloats({"cudnn", 0, PoolingCuda, true}));
  reg->Add("_backward_Pooling", DeviceType::kGPU,
           WithReducedFloats({"cudnn", 0, PoolingBackwardCuda, true}));
}

}  // namespace cuda
}  // namespace weft
