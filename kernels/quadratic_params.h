// quadratic's coefficients (y = a x^2 + b x + c), decoded once per node
// (ParamValues::Decoded) for the CPU (kernels/cpu/quadratic.cc) and CUDA
// (kernels/cuda/quadratic.cu) kernels.
#ifndef WEFT_KERNELS_QUADRATIC_PARAMS_H_
#define WEFT_KERNELS_QUADRATIC_PARAMS_H_

#include "weft/param.h"

namespace weft {

struct QuadraticParams {
  double a = 0, b = 0, c = 0;
  static QuadraticParams Decode(const ParamValues& p) {
    return {p.GetFloat("a"), p.GetFloat("b"), p.GetFloat("c")};
  }
};

}  // namespace weft

#endif  // WEFT_KERNELS_QUADRATIC_PARAMS_H_
