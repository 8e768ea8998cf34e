// Launcher of the one elementwise map kernel behind the CUDA elementwise
// family (kernels/cuda/elemwise.cu) and of Activation's softrelu/softsign.
#ifndef WEFT_KERNELS_CUDA_ELEMWISE_CUH_
#define WEFT_KERNELS_CUDA_ELEMWISE_CUH_

#include "cuda/broadcast_index.h"
#include "weft/op.h"

namespace weft {
namespace cuda {

// y = f(a, b, s, s2); unary forward ops ignore b, backward ops take (ograd, v).
enum class MapOp : int {
  // unary forward (a = data)
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kSqrt,
  kSquare,
  kAbs,
  kNegative,
  kSoftrelu,
  kSoftsign,
  kErf,
  kRsqrt,
  kReciprocal,
  // unary backward (a = ograd, b = output for relu/sigmoid/tanh/sqrt, input otherwise)
  kReluGrad,
  kSigmoidGrad,
  kTanhGrad,
  kSqrtGrad,
  kLogGrad,
  kSquareGrad,
  kAbsGrad,
  kSoftreluGrad,
  kSoftsignGrad,
  kErfGrad,
  kRsqrtGrad,
  kReciprocalGrad,
  // binary (a = lhs, b = rhs); maximum/minimum propagate a NaN lhs, else pick by > / <;
  // the comparisons give 0 or 1
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kMinimum,
  kPower,
  kEqual,
  kNotEqual,
  kGreater,
  kGreaterEqual,
  kLesser,
  kLesserEqual,
  // with the scalar s (a = data); the comparisons give 0 or 1
  kPlusScalar,
  kMinusScalar,
  kRMinusScalar,
  kMulScalar,
  kDivScalar,
  kRDivScalar,
  kPowerScalar,
  kMaximumScalar,
  kMinimumScalar,
  kEqualScalar,
  kNotEqualScalar,
  kGreaterScalar,
  kGreaterEqualScalar,
  kLesserScalar,
  kLesserEqualScalar,
  // clip(s * a + s2, 0, 1) (s = alpha, s2 = beta)
  kHardSigmoid,
  // scalar backward (a = ograd, b = data)
  kRDivScalarGrad,
  kPowerScalarGrad,
  kMaximumScalarGrad,
  kMinimumScalarGrad,
  kHardSigmoidGrad,
};

// Runs y[i] = f(a[i], b[i], s, s2) for i < n on ctx's stream with request
// `req` (kNull skips, kAdd accumulates); s and s2 are cast to the dtype
// (float for float16/bfloat16, which compute in float and round once).
// `b` may be null for ops that do not read it; `y` may alias `a` or `b`.
// float32/float64/float16/bfloat16, else Error(kDType) naming `op`. Does not wait for the
// kernel.
void LaunchMap(const OpContext& ctx, MapOp f, DType t, const void* a, const void* b, double s,
               void* y, int64_t n, OpReq req, const char* op, double s2 = 0.0);

// y[i] = f(a[ia], b[ib]) for the n output elements, (ia, ib) from `index`
// (a binary MapOp), with request `req`; as LaunchMap otherwise.
void LaunchBroadcastMap(const OpContext& ctx, MapOp f, DType t, const void* a, const void* b,
                        const BroadcastIndex& index, void* y, int64_t n, OpReq req, const char* op);

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_ELEMWISE_CUH_
