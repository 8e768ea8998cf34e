// Launcher of the one elementwise map kernel behind the CUDA elementwise
// family (kernels/cuda/elemwise.cu) and of Activation's softrelu/softsign.
#ifndef WEFT_KERNELS_CUDA_ELEMWISE_CUH_
#define WEFT_KERNELS_CUDA_ELEMWISE_CUH_

#include "weft/op.h"

namespace weft {
namespace cuda {

// y = f(a, b, s); unary forward ops ignore b, backward ops take (ograd, v).
enum class MapOp : int {
  // unary forward (a = data)
  kRelu, kSigmoid, kTanh, kExp, kLog, kSqrt, kSquare, kAbs, kNegative, kSoftrelu, kSoftsign,
  // unary backward (a = ograd, b = output for relu/sigmoid/tanh/sqrt, input otherwise)
  kReluGrad, kSigmoidGrad, kTanhGrad, kSqrtGrad, kLogGrad, kSquareGrad, kAbsGrad,
  kSoftreluGrad, kSoftsignGrad,
  // binary (a = lhs, b = rhs)
  kAdd, kSub, kMul, kDiv,
  // with the scalar s (a = data)
  kPlusScalar, kMinusScalar, kRMinusScalar, kMulScalar, kDivScalar, kRDivScalar, kPowerScalar,
  // scalar backward (a = ograd, b = data)
  kRDivScalarGrad, kPowerScalarGrad,
};

// Runs y[i] = f(a[i], b[i], s) for i < n on ctx's stream with request
// `req` (kNull skips, kAdd accumulates). `b` may be null for ops that do
// not read it; `y` may alias `a` or `b`. float32/float64, else Error(kDType)
// naming `op`. Does not wait for the kernel.
void LaunchMap(const OpContext& ctx, MapOp f, DType t, const void* a, const void* b, double s,
               void* y, int64_t n, OpReq req, const char* op);

}  // namespace cuda
}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_ELEMWISE_CUH_
