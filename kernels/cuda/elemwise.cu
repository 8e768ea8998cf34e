// CUDA kernels of the elementwise family (semantics as kernels/cpu/
// elemwise_unary.cc, elemwise_unary_math.cc, elemwise_binary.cc,
// elemwise_scalar.cc and elemwise_compare.cc): unary ops and their
// gradients (with erf, rsqrt, reciprocal, hard_sigmoid and
// _contrib_div_sqrt_dim), elemwise_add/sub/mul/div, same-shape
// _maximum/_minimum and their two-output gradients, _power and the six
// comparisons, the scalar ops (with _maximum/_minimum_scalar and the six
// scalar comparisons) and their gradients, and the broadcasting forward
// ops (broadcast_add/sub/mul/div/maximum/minimum/power and the six
// comparisons; kernels/cpu/broadcast.cc) with the gradients of div,
// maximum, minimum and power, for float32 and float64; the map and
// broadcast forward kernels also for float16 and bfloat16 (in float). One
// map kernel per dtype switches on the (uniform) op code, which keeps
// nvcc's work to four instantiations. Every kernel honours kNull/kWrite/kInplace/kAdd and
// tolerates an output aliasing an input (each element is read first).
#include <cmath>

#include "cuda/cuda_util.h"
#include "cuda/elemwise.cuh"
#include "cuda/reduce.cuh"
#include "cuda/reduced_float.cuh"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// 2 / sqrt(pi), the scale of erf's derivative.
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

// NaN-propagating maximum/minimum as the CPU (a NaN lhs wins; ties give a).
template <typename T>
__host__ __device__ inline T Max(T a, T b) {
  return a != a ? a : (a > b ? a : b);
}
template <typename T>
__host__ __device__ inline T Min(T a, T b) {
  return a != a ? a : (a < b ? a : b);
}

// (host too, so that a host build can check the formulas against the CPU)
template <typename T>
__host__ __device__ inline T Apply(MapOp f, T a, T b, T s, T s2) {
  switch (f) {
    case MapOp::kRelu:
      return a > T(0) || a != a ? a : T(0);  // keeps NaN, as the CPU
    case MapOp::kSigmoid:
      return T(1) / (T(1) + exp(-a));
    case MapOp::kTanh:
      return tanh(a);
    case MapOp::kExp:
      return exp(a);
    case MapOp::kLog:
      return log(a);
    case MapOp::kSqrt:
      return sqrt(a);
    case MapOp::kSquare:
      return a * a;
    case MapOp::kAbs:
      return fabs(a);
    case MapOp::kNegative:
      return -a;
    case MapOp::kSoftrelu:
      return (a > T(0) ? a : T(0)) + log1p(exp(-fabs(a)));
    case MapOp::kSoftsign:
      return a / (T(1) + fabs(a));
    case MapOp::kErf:
      return erf(a);
    case MapOp::kRsqrt:
      return T(1) / sqrt(a);  // not rsqrt(): the CPU rounds twice
    case MapOp::kReciprocal:
      return T(1) / a;
    case MapOp::kReluGrad:
      return b > T(0) ? a : (b != b ? b : T(0));  // NaN at NaN
    case MapOp::kSigmoidGrad:
      return a * b * (T(1) - b);
    case MapOp::kTanhGrad:
      return a * (T(1) - b * b);
    case MapOp::kSqrtGrad:
      return T(0.5) * a / b;
    case MapOp::kLogGrad:
      return a / b;
    case MapOp::kSquareGrad:
      return T(2) * a * b;
    case MapOp::kAbsGrad:
      return b > T(0) ? a : (b < T(0) ? -a : T(0));
    case MapOp::kSoftreluGrad:
      return a / (T(1) + exp(-b));
    case MapOp::kSoftsignGrad: {
      const T d = T(1) + fabs(b);
      return a / (d * d);
    }
    case MapOp::kErfGrad:  // the factor in double, as the CPU
      return a * static_cast<T>(kTwoOverSqrtPi * exp(-static_cast<double>(b) * b));
    case MapOp::kRsqrtGrad:
      return a * (T(-0.5) / (sqrt(b) * b));
    case MapOp::kReciprocalGrad:
      return a * (T(-1) / (b * b));
    case MapOp::kAdd:
      return a + b;
    case MapOp::kSub:
      return a - b;
    case MapOp::kMul:
      return a * b;
    case MapOp::kDiv:
      return a / b;
    case MapOp::kMaximum:
      return Max(a, b);
    case MapOp::kMinimum:
      return Min(a, b);
    case MapOp::kPower:
      return pow(a, b);
    case MapOp::kEqual:
      return T(a == b);
    case MapOp::kNotEqual:
      return T(a != b);
    case MapOp::kGreater:
      return T(a > b);
    case MapOp::kGreaterEqual:
      return T(a >= b);
    case MapOp::kLesser:
      return T(a < b);
    case MapOp::kLesserEqual:
      return T(a <= b);
    case MapOp::kPlusScalar:
      return a + s;
    case MapOp::kMinusScalar:
      return a - s;
    case MapOp::kRMinusScalar:
      return s - a;
    case MapOp::kMulScalar:
      return a * s;
    case MapOp::kDivScalar:
      return a / s;
    case MapOp::kRDivScalar:
      return s / a;
    case MapOp::kPowerScalar:
      return pow(a, s);
    case MapOp::kMaximumScalar:
      return Max(a, s);
    case MapOp::kMinimumScalar:
      return Min(a, s);
    case MapOp::kEqualScalar:
      return T(a == s);
    case MapOp::kNotEqualScalar:
      return T(a != s);
    case MapOp::kGreaterScalar:
      return T(a > s);
    case MapOp::kGreaterEqualScalar:
      return T(a >= s);
    case MapOp::kLesserScalar:
      return T(a < s);
    case MapOp::kLesserEqualScalar:
      return T(a <= s);
    case MapOp::kHardSigmoid: {
      const T y = s * a + s2;
      return y > T(1) ? T(1) : (y < T(0) ? T(0) : y);
    }
    case MapOp::kRDivScalarGrad:
      return -a * s / (b * b);
    case MapOp::kPowerScalarGrad:
      return a * s * pow(b, s - T(1));
    case MapOp::kMaximumScalarGrad:
      return b >= s ? a : T(0);
    case MapOp::kMinimumScalarGrad:
      return b <= s ? a : T(0);
    case MapOp::kHardSigmoidGrad: {
      const T y = s * b + s2;
      return y > T(0) && y < T(1) ? a * s : T(0);
    }
  }
  return T(0);
}

// float16/bfloat16 elements compute in float (Acc) and round once when
// stored, as the CPU's float32 fallback.
template <typename T>
__global__ void MapKernel(MapOp f, const T* a, const T* b, Acc<T> s, Acc<T> s2, T* y, int64_t n,
                          bool add) {
  using A = Acc<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const A v = Apply(f, static_cast<A>(a[i]), b ? static_cast<A>(b[i]) : A(0), s, s2);
    y[i] = StoreAs<T>(add ? static_cast<A>(y[i]) + v : v);
  }
}

template <typename T>
__global__ void BroadcastMapKernel(MapOp f, BroadcastIndex index, const T* a, const T* b, T* y,
                                   int64_t n, bool add) {
  using A = Acc<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    int64_t ia, ib;
    index.Offsets(i, &ia, &ib);
    const A v = Apply(f, static_cast<A>(a[ia]), static_cast<A>(b[ib]), A(0), A(0));
    y[i] = StoreAs<T>(add ? static_cast<A>(y[i]) + v : v);
  }
}

// The binary gradients with two outputs on (ograd, lhs, rhs).
enum class BinGrad : int { kDiv, kMaximum, kMinimum, kPower };

// div: lhs_grad = g / r, rhs_grad = -g * l / r^2; maximum: g to lhs where
// l >= r, to rhs where l < r; minimum: g to lhs where l <= r, to rhs where
// l > r (a NaN in l or r sends nothing to either side, as on the CPU);
// power: lhs_grad = g * l^(r - 1) * r, rhs_grad = g * l^r * log(l).
template <typename T>
__host__ __device__ inline void ApplyBinaryGrad(BinGrad f, T g, T l, T r, T* dl, T* dr) {
  if (f == BinGrad::kDiv) {
    *dl = g / r;
    *dr = -*dl * l / r;
  } else if (f == BinGrad::kPower) {
    *dl = g * pow(l, r - T(1)) * r;
    *dr = g * pow(l, r) * log(l);
  } else {
    const bool is_max = f == BinGrad::kMaximum;
    *dl = (is_max ? l >= r : l <= r) ? g : T(0);
    *dr = (is_max ? l < r : l > r) ? g : T(0);
  }
}

// ApplyBinaryGrad over n elements, each output with its request.
template <typename T>
__global__ void BinaryGrad(BinGrad f, const T* g, const T* l, const T* r, T* dl, T* dr, int64_t n,
                           int ql, int qr) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    T vl, vr;
    ApplyBinaryGrad(f, g[i], l[i], r[i], &vl, &vr);
    StoreReq(ql, &dl[i], vl);
    StoreReq(qr, &dr[i], vr);
  }
}

// The broadcasting form: (tl, tr)[i] = ApplyBinaryGrad at output element
// i, with the operands' elements from `index`; full-size terms that
// LaunchSumTo then sums to each operand's shape.
template <typename T>
__global__ void BroadcastBinaryGrad(BinGrad f, BroadcastIndex index, const T* g, const T* l,
                                    const T* r, T* tl, T* tr, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    int64_t ia, ib;
    index.Offsets(i, &ia, &ib);
    ApplyBinaryGrad(f, g[i], l[ia], r[ib], &tl[i], &tr[i]);
  }
}

// Where a map kernel's scalars come from.
enum class Scalars {
  kNone,
  kScalar,     // s = `scalar`
  kAlphaBeta,  // s, s2 = `alpha`, `beta`, rounded to float32 (MXNet's real_t)
  kSqrtDim,    // s = sqrt(data's last dimension)
};

// The scalars (s, s2) of a map kernel from its parameters and data shape.
void ScalarsOf(Scalars sc, const NodeAttrs& attrs, const Shape& data, double* s, double* s2) {
  *s = *s2 = 0.0;
  if (sc == Scalars::kScalar) {
    *s = attrs.params.Decoded<ScalarOperand>().scalar;
  } else if (sc == Scalars::kAlphaBeta) {
    const HardSigmoidParams& hp = attrs.params.Decoded<HardSigmoidParams>();
    *s = hp.alpha;
    *s2 = hp.beta;
  } else if (sc == Scalars::kSqrtDim) {
    *s = std::sqrt(static_cast<double>(data[data.ndim() - 1]));
  }
}

// The ops of the map kernel: y = f(in[0], in[1] when `binary`, the scalars).
struct MapEntry {
  const char* name;
  MapOp f;
  bool binary;
  Scalars sc;
};
constexpr Scalars kNo = Scalars::kNone, kS = Scalars::kScalar;
const MapEntry kMapEntries[] = {
    {"relu", MapOp::kRelu, false, kNo},
    {"sigmoid", MapOp::kSigmoid, false, kNo},
    {"tanh", MapOp::kTanh, false, kNo},
    {"exp", MapOp::kExp, false, kNo},
    {"log", MapOp::kLog, false, kNo},
    {"sqrt", MapOp::kSqrt, false, kNo},
    {"square", MapOp::kSquare, false, kNo},
    {"abs", MapOp::kAbs, false, kNo},
    {"negative", MapOp::kNegative, false, kNo},
    {"erf", MapOp::kErf, false, kNo},
    {"rsqrt", MapOp::kRsqrt, false, kNo},
    {"reciprocal", MapOp::kReciprocal, false, kNo},
    {"hard_sigmoid", MapOp::kHardSigmoid, false, Scalars::kAlphaBeta},
    {"_contrib_div_sqrt_dim", MapOp::kDivScalar, false, Scalars::kSqrtDim},
    {"_backward_relu", MapOp::kReluGrad, true, kNo},
    {"_backward_sigmoid", MapOp::kSigmoidGrad, true, kNo},
    {"_backward_tanh", MapOp::kTanhGrad, true, kNo},
    {"_backward_sqrt", MapOp::kSqrtGrad, true, kNo},
    {"_backward_log", MapOp::kLogGrad, true, kNo},
    {"_backward_square", MapOp::kSquareGrad, true, kNo},
    {"_backward_abs", MapOp::kAbsGrad, true, kNo},
    {"_backward_erf", MapOp::kErfGrad, true, kNo},
    {"_backward_rsqrt", MapOp::kRsqrtGrad, true, kNo},
    {"_backward_reciprocal", MapOp::kReciprocalGrad, true, kNo},
    {"_backward_hard_sigmoid", MapOp::kHardSigmoidGrad, true, Scalars::kAlphaBeta},
    {"elemwise_add", MapOp::kAdd, true, kNo},
    {"elemwise_sub", MapOp::kSub, true, kNo},
    {"elemwise_mul", MapOp::kMul, true, kNo},
    {"elemwise_div", MapOp::kDiv, true, kNo},
    {"_maximum", MapOp::kMaximum, true, kNo},
    {"_minimum", MapOp::kMinimum, true, kNo},
    {"_power", MapOp::kPower, true, kNo},
    {"_equal", MapOp::kEqual, true, kNo},
    {"_not_equal", MapOp::kNotEqual, true, kNo},
    {"_greater", MapOp::kGreater, true, kNo},
    {"_greater_equal", MapOp::kGreaterEqual, true, kNo},
    {"_lesser", MapOp::kLesser, true, kNo},
    {"_lesser_equal", MapOp::kLesserEqual, true, kNo},
    {"_plus_scalar", MapOp::kPlusScalar, false, kS},
    {"_minus_scalar", MapOp::kMinusScalar, false, kS},
    {"_rminus_scalar", MapOp::kRMinusScalar, false, kS},
    {"_mul_scalar", MapOp::kMulScalar, false, kS},
    {"_div_scalar", MapOp::kDivScalar, false, kS},
    {"_rdiv_scalar", MapOp::kRDivScalar, false, kS},
    {"_power_scalar", MapOp::kPowerScalar, false, kS},
    {"_maximum_scalar", MapOp::kMaximumScalar, false, kS},
    {"_minimum_scalar", MapOp::kMinimumScalar, false, kS},
    {"_equal_scalar", MapOp::kEqualScalar, false, kS},
    {"_not_equal_scalar", MapOp::kNotEqualScalar, false, kS},
    {"_greater_scalar", MapOp::kGreaterScalar, false, kS},
    {"_greater_equal_scalar", MapOp::kGreaterEqualScalar, false, kS},
    {"_lesser_scalar", MapOp::kLesserScalar, false, kS},
    {"_lesser_equal_scalar", MapOp::kLesserEqualScalar, false, kS},
    {"_backward_rdiv_scalar", MapOp::kRDivScalarGrad, true, kS},
    {"_backward_power_scalar", MapOp::kPowerScalarGrad, true, kS},
    {"_backward_maximum_scalar", MapOp::kMaximumScalarGrad, true, kS},
    {"_backward_minimum_scalar", MapOp::kMinimumScalarGrad, true, kS},
};

// The broadcasting forward ops: y = f(lhs, rhs) with numpy broadcasting.
struct BroadcastEntry {
  const char* name;
  MapOp f;
};
const BroadcastEntry kBroadcastEntries[] = {
    {"broadcast_add", MapOp::kAdd},
    {"broadcast_sub", MapOp::kSub},
    {"broadcast_mul", MapOp::kMul},
    {"broadcast_div", MapOp::kDiv},
    {"broadcast_maximum", MapOp::kMaximum},
    {"broadcast_minimum", MapOp::kMinimum},
    {"broadcast_power", MapOp::kPower},
    {"broadcast_equal", MapOp::kEqual},
    {"broadcast_not_equal", MapOp::kNotEqual},
    {"broadcast_greater", MapOp::kGreater},
    {"broadcast_greater_equal", MapOp::kGreaterEqual},
    {"broadcast_lesser", MapOp::kLesser},
    {"broadcast_lesser_equal", MapOp::kLesserEqual},
};

Kernel BroadcastKernelFor(const char* name, MapOp f) {
  KernelFn fn = [name, f](const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    UseDevice(ctx, name);
    const BroadcastIndex index = MakeBroadcastIndex(in[0].shape, in[1].shape, out[0].shape, name);
    LaunchBroadcastMap(ctx, f, in[0].dtype, in[0].dptr, in[1].dptr, index, out[0].dptr,
                       out[0].Size(), req[0], name);
    Finish(ctx, name);
  };
  return {"cuda", 0, fn, true};
}

struct BinaryGradEntry {
  const char* name;
  BinGrad f;
};
const BinaryGradEntry kBinaryGradEntries[] = {
    {"_backward_div", BinGrad::kDiv},
    {"_backward_maximum", BinGrad::kMaximum},
    {"_backward_minimum", BinGrad::kMinimum},
    {"_backward_power", BinGrad::kPower},
};

// The broadcasting gradients (ograd, lhs, rhs) -> (lhs_grad, rhs_grad) of
// the broadcast ops above that have one.
const BinaryGradEntry kBroadcastGradEntries[] = {
    {"_backward_broadcast_div", BinGrad::kDiv},
    {"_backward_broadcast_maximum", BinGrad::kMaximum},
    {"_backward_broadcast_minimum", BinGrad::kMinimum},
    {"_backward_broadcast_power", BinGrad::kPower},
};

Kernel MapKernelFor(const char* name, MapOp f, bool binary, Scalars sc) {
  KernelFn fn = [name, f, binary, sc](const OpContext& ctx, const NodeAttrs& attrs,
                                      const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                                      const std::vector<TBlob>& out) {
    UseDevice(ctx, name);
    double s, s2;
    ScalarsOf(sc, attrs, in[0].shape, &s, &s2);
    LaunchMap(ctx, f, in[0].dtype, in[0].dptr, binary ? in[1].dptr : nullptr, s, out[0].dptr,
              out[0].Size(), req[0], name, s2);
    Finish(ctx, name);
  };
  return {"cuda", 0, fn, true};
}

// A kernel of a BinaryGrad gradient: (ograd, lhs, rhs) -> (lhs_grad, rhs_grad).
Kernel BinaryGradKernelFor(const char* name, BinGrad f) {
  KernelFn fn = [name, f](const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    UseDevice(ctx, name);
    const int64_t n = out[0].Size();
    if (n == 0) return;
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      BinaryGrad<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
          f, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), out[0].data<T>(), out[1].data<T>(),
          n, static_cast<int>(req[0]), static_cast<int>(req[1]));
    });
    Finish(ctx, name);
  };
  return {"cuda", 0, fn, true};
}

// A kernel of a broadcasting gradient: the full-size terms in scratch
// buffers, each summed to its operand's shape.
Kernel BroadcastGradKernelFor(const char* name, BinGrad f) {
  KernelFn fn = [name, f](const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    UseDevice(ctx, name);
    const Shape& big = in[0].shape;
    const int64_t n = big.Size();
    if (n == 0) return;
    const BroadcastIndex index = MakeBroadcastIndex(in[1].shape, in[2].shape, big, name);
    DispatchFloat(in[0].dtype, name, [&](auto t) {
      using T = decltype(t);
      DeviceBuffer tl(ctx, n * sizeof(T)), tr(ctx, n * sizeof(T));
      BroadcastBinaryGrad<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
          f, index, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), tl.as<T>(), tr.as<T>(), n);
      LaunchSumTo(ctx, in[0].dtype, tl.get(), big, out[0].dptr, out[0].shape, req[0], name);
      LaunchSumTo(ctx, in[0].dtype, tr.get(), big, out[1].dptr, out[1].shape, req[1], name);
      Finish(ctx, name);  // before the scratch buffers are released
    });
  };
  return {"cuda", 0, fn, true};
}

}  // namespace

void LaunchMap(const OpContext& ctx, MapOp f, DType t, const void* a, const void* b, double s,
               void* y, int64_t n, OpReq req, const char* op, double s2) {
  if (req == OpReq::kNull || n == 0) return;
  DispatchDeviceFloat(t, op, [&](auto v) {
    using T = decltype(v);
    MapKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        f, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<Acc<T>>(s),
        static_cast<Acc<T>>(s2), static_cast<T*>(y), n, req == OpReq::kAdd);
  });
}

void LaunchBroadcastMap(const OpContext& ctx, MapOp f, DType t, const void* a, const void* b,
                        const BroadcastIndex& index, void* y, int64_t n, OpReq req,
                        const char* op) {
  if (req == OpReq::kNull || n == 0) return;
  DispatchDeviceFloat(t, op, [&](auto v) {
    using T = decltype(v);
    BroadcastMapKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        f, index, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n,
        req == OpReq::kAdd);
  });
}

void RegisterElemwiseCuda(KernelRegistry* reg) {
  for (const MapEntry& e : kMapEntries)
    reg->Add(e.name, DeviceType::kGPU,
             WithReducedFloats(MapKernelFor(e.name, e.f, e.binary, e.sc)));
  for (const BroadcastEntry& e : kBroadcastEntries)
    reg->Add(e.name, DeviceType::kGPU, WithReducedFloats(BroadcastKernelFor(e.name, e.f)));
  for (const BinaryGradEntry& e : kBinaryGradEntries)
    reg->Add(e.name, DeviceType::kGPU, BinaryGradKernelFor(e.name, e.f));
  for (const BinaryGradEntry& e : kBroadcastGradEntries)
    reg->Add(e.name, DeviceType::kGPU, BroadcastGradKernelFor(e.name, e.f));
}

}  // namespace cuda
}  // namespace weft
