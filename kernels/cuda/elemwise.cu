// CUDA kernels of the elementwise family (semantics as kernels/cpu/
// elemwise_unary.cc, elemwise_binary.cc and elemwise_scalar.cc): unary ops
// and their gradients, elemwise_add/sub/mul/div and _backward_div, and the
// scalar ops and their gradients, for float32 and float64. One map kernel
// per dtype switches on the (uniform) op code, which keeps nvcc's work to
// two instantiations. Every kernel honours kNull/kWrite/kInplace/kAdd and
// tolerates an output aliasing an input (each element is read first).
#include "cuda/cuda_util.h"
#include "cuda/elemwise.cuh"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

template <typename T>
__device__ inline T Apply(MapOp f, T a, T b, T s) {
  switch (f) {
    case MapOp::kRelu: return a > T(0) ? a : T(0);
    case MapOp::kSigmoid: return T(1) / (T(1) + exp(-a));
    case MapOp::kTanh: return tanh(a);
    case MapOp::kExp: return exp(a);
    case MapOp::kLog: return log(a);
    case MapOp::kSqrt: return sqrt(a);
    case MapOp::kSquare: return a * a;
    case MapOp::kAbs: return fabs(a);
    case MapOp::kNegative: return -a;
    case MapOp::kSoftrelu: return (a > T(0) ? a : T(0)) + log1p(exp(-fabs(a)));
    case MapOp::kSoftsign: return a / (T(1) + fabs(a));
    case MapOp::kReluGrad: return b > T(0) ? a : T(0);
    case MapOp::kSigmoidGrad: return a * b * (T(1) - b);
    case MapOp::kTanhGrad: return a * (T(1) - b * b);
    case MapOp::kSqrtGrad: return T(0.5) * a / b;
    case MapOp::kLogGrad: return a / b;
    case MapOp::kSquareGrad: return T(2) * a * b;
    case MapOp::kAbsGrad: return b > T(0) ? a : (b < T(0) ? -a : T(0));
    case MapOp::kSoftreluGrad: return a / (T(1) + exp(-b));
    case MapOp::kSoftsignGrad: {
      const T d = T(1) + fabs(b);
      return a / (d * d);
    }
    case MapOp::kAdd: return a + b;
    case MapOp::kSub: return a - b;
    case MapOp::kMul: return a * b;
    case MapOp::kDiv: return a / b;
    case MapOp::kPlusScalar: return a + s;
    case MapOp::kMinusScalar: return a - s;
    case MapOp::kRMinusScalar: return s - a;
    case MapOp::kMulScalar: return a * s;
    case MapOp::kDivScalar: return a / s;
    case MapOp::kRDivScalar: return s / a;
    case MapOp::kPowerScalar: return pow(a, s);
    case MapOp::kRDivScalarGrad: return -a * s / (b * b);
    case MapOp::kPowerScalarGrad: return a * s * pow(b, s - T(1));
  }
  return T(0);
}

template <typename T>
__global__ void MapKernel(MapOp f, const T* a, const T* b, T s, T* y, int64_t n, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const T v = Apply(f, a[i], b ? b[i] : T(0), s);
    y[i] = add ? y[i] + v : v;
  }
}

// lhs_grad = g / r, rhs_grad = -g * l / r^2 (each with its request).
template <typename T>
__global__ void DivGrad(const T* g, const T* l, const T* r, T* dl, T* dr, int64_t n, int ql,
                        int qr) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const T gi = g[i], li = l[i], ri = r[i];
    const T q = gi / ri;
    if (ql == static_cast<int>(OpReq::kAdd)) dl[i] += q;
    else if (ql != static_cast<int>(OpReq::kNull)) dl[i] = q;
    if (qr == static_cast<int>(OpReq::kAdd)) dr[i] += -q * li / ri;
    else if (qr != static_cast<int>(OpReq::kNull)) dr[i] = -q * li / ri;
  }
}

// A kernel y = f(in[0], in[1] when `binary`, scalar parameter when `scalar`).
Kernel MapKernelFor(const char* name, MapOp f, bool binary, bool scalar) {
  KernelFn fn = [name, f, binary, scalar](const OpContext& ctx, const NodeAttrs& attrs,
                                          const std::vector<TBlob>& in,
                                          const std::vector<OpReq>& req,
                                          const std::vector<TBlob>& out) {
    UseDevice(ctx, name);
    const double s = scalar ? attrs.params.GetFloat("scalar") : 0.0;
    LaunchMap(ctx, f, in[0].dtype, in[0].dptr, binary ? in[1].dptr : nullptr, s, out[0].dptr,
              out[0].Size(), req[0], name);
    Finish(ctx, name);
  };
  return {"cuda", 0, fn, true};
}

void DivBackward(const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_div";
  UseDevice(ctx, op);
  const int64_t n = out[0].Size();
  if (n == 0) return;
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    DivGrad<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), out[0].data<T>(), out[1].data<T>(), n,
        static_cast<int>(req[0]), static_cast<int>(req[1]));
  });
  Finish(ctx, op);
}

}  // namespace

void LaunchMap(const OpContext& ctx, MapOp f, DType t, const void* a, const void* b, double s,
               void* y, int64_t n, OpReq req, const char* op) {
  if (req == OpReq::kNull || n == 0) return;
  DispatchFloat(t, op, [&](auto v) {
    using T = decltype(v);
    MapKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        f, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T>(s),
        static_cast<T*>(y), n, req == OpReq::kAdd);
  });
}

void RegisterElemwiseCuda(KernelRegistry* reg) {
  struct Entry {
    const char* name;
    MapOp f;
    bool binary, scalar;
  };
  static const Entry kEntries[] = {
      {"relu", MapOp::kRelu, false, false},
      {"sigmoid", MapOp::kSigmoid, false, false},
      {"tanh", MapOp::kTanh, false, false},
      {"exp", MapOp::kExp, false, false},
      {"log", MapOp::kLog, false, false},
      {"sqrt", MapOp::kSqrt, false, false},
      {"square", MapOp::kSquare, false, false},
      {"abs", MapOp::kAbs, false, false},
      {"negative", MapOp::kNegative, false, false},
      {"_backward_relu", MapOp::kReluGrad, true, false},
      {"_backward_sigmoid", MapOp::kSigmoidGrad, true, false},
      {"_backward_tanh", MapOp::kTanhGrad, true, false},
      {"_backward_sqrt", MapOp::kSqrtGrad, true, false},
      {"_backward_log", MapOp::kLogGrad, true, false},
      {"_backward_square", MapOp::kSquareGrad, true, false},
      {"_backward_abs", MapOp::kAbsGrad, true, false},
      {"elemwise_add", MapOp::kAdd, true, false},
      {"elemwise_sub", MapOp::kSub, true, false},
      {"elemwise_mul", MapOp::kMul, true, false},
      {"elemwise_div", MapOp::kDiv, true, false},
      {"_plus_scalar", MapOp::kPlusScalar, false, true},
      {"_minus_scalar", MapOp::kMinusScalar, false, true},
      {"_rminus_scalar", MapOp::kRMinusScalar, false, true},
      {"_mul_scalar", MapOp::kMulScalar, false, true},
      {"_div_scalar", MapOp::kDivScalar, false, true},
      {"_rdiv_scalar", MapOp::kRDivScalar, false, true},
      {"_power_scalar", MapOp::kPowerScalar, false, true},
      {"_backward_rdiv_scalar", MapOp::kRDivScalarGrad, true, true},
      {"_backward_power_scalar", MapOp::kPowerScalarGrad, true, true},
  };
  for (const Entry& e : kEntries)
    reg->Add(e.name, DeviceType::kGPU, MapKernelFor(e.name, e.f, e.binary, e.scalar));
  reg->Add("_backward_div", DeviceType::kGPU, {"cuda", 0, DivBackward, true});
}

}  // namespace cuda
}  // namespace weft
