// Parameter structs that an op's CPU and CUDA kernels share, each decoded
// once per node (ParamValues::Decoded) so that neither looks names up per
// call. Ops with more than parameters to share keep theirs next to the
// shared geometry (nn_geometry.h, softmax_view.h, box_nms.h, ...).
#ifndef WEFT_KERNELS_SHARED_PARAMS_H_
#define WEFT_KERNELS_SHARED_PARAMS_H_

#include <cstdint>
#include <string>

#include "weft/param.h"

namespace weft {

// ------------------------------------------- Activation, LeakyReLU, Dropout

struct ActParams {
  std::string act;  // act_type
  static ActParams Decode(const ParamValues& p) { return {p.GetString("act_type")}; }
};

struct LeakyParams {
  std::string act;   // act_type
  double slope = 0;  // of negative inputs: leaky's slope, rrelu's mean bound, elu's alpha
  static LeakyParams Decode(const ParamValues& p) {
    LeakyParams q{p.GetString("act_type"), p.GetFloat("slope")};
    if (q.act == "rrelu") q.slope = (p.GetFloat("lower_bound") + p.GetFloat("upper_bound")) / 2;
    return q;
  }
};

struct DropoutParams {
  double p = 0;
  bool always = false;  // mode "always": also outside training
  static DropoutParams Decode(const ParamValues& p) {
    return {p.GetFloat("p"), p.GetString("mode") == "always"};
  }
};

// ----------------------------------------------------------------- Embedding

struct EmbeddingParams {
  int64_t rows = 0, cols = 0;  // input_dim, output_dim
  static EmbeddingParams Decode(const ParamValues& p) {
    return {p.GetInt("input_dim"), p.GetInt("output_dim")};
  }
};

// ------------------------------------------------------ LayerNorm, GroupNorm

struct LayerNormParams {
  int64_t axis = -1;
  double eps = 1e-5;
  static LayerNormParams Decode(const ParamValues& p) {
    return {p.GetInt("axis"), p.GetFloat("eps")};
  }
};

struct GroupNormParams {
  int64_t groups = 1;  // num_groups
  double eps = 1e-5;
  static GroupNormParams Decode(const ParamValues& p) {
    return {p.GetInt("num_groups"), p.GetFloat("eps")};
  }
};

// ------------------------------------------------------------- Sequence ops

// SequenceMask's value only where the op declares it.
struct SequenceParams {
  bool batch_major = false;  // axis 1
  bool use_length = false;   // use_sequence_length
  double value = 0;
  static SequenceParams Decode(const ParamValues& p) {
    SequenceParams q;
    q.batch_major = p.GetInt("axis") == 1;
    q.use_length = p.GetBool("use_sequence_length");
    if (p.Has("value")) q.value = p.GetFloat("value");
    return q;
  }
};

// ---------------------------------------------------------- Optimizer updates

// Read as float (MXNet's); momentum, beta1, beta2 and epsilon only where the
// op declares them.
struct OptParams {
  float lr = 0, wd = 0, rescale = 1, clip = -1;  // rescale_grad, clip_gradient
  float momentum = 0, beta1 = 0, beta2 = 0, epsilon = 0;
  static OptParams Decode(const ParamValues& p) {
    auto f = [&p](const char* name) { return static_cast<float>(p.GetFloat(name)); };
    OptParams o;
    o.lr = f("lr");
    o.wd = f("wd");
    o.rescale = f("rescale_grad");
    o.clip = f("clip_gradient");
    if (p.Has("momentum")) o.momentum = f("momentum");
    if (p.Has("beta1")) o.beta1 = f("beta1");
    if (p.Has("beta2")) o.beta2 = f("beta2");
    if (p.Has("epsilon")) o.epsilon = f("epsilon");
    return o;
  }
};

// ------------------------------------------------ transpose, Concat, split

struct TransposeParams {
  Shape axes;
  static TransposeParams Decode(const ParamValues& p) { return {p.GetShape("axes")}; }
};

struct ConcatParams {
  int64_t dim = 1;
  static ConcatParams Decode(const ParamValues& p) { return {p.GetInt("dim")}; }
};

// SliceChannel's and slice_axis's axis.
struct SplitAxisParams {
  int64_t axis = 0;
  static SplitAxisParams Decode(const ParamValues& p) { return {p.GetInt("axis")}; }
};

// ------------------------------------------------------------ Elementwise

// The scalar ops' `scalar` and `is_int`.
struct ScalarOperand {
  double scalar = 1;
  bool is_int = true;
  static ScalarOperand Decode(const ParamValues& p) {
    return {p.GetFloat("scalar"), p.GetBool("is_int")};
  }
};

// hard_sigmoid's alpha and beta, rounded to float32 (MXNet's real_t).
struct HardSigmoidParams {
  float alpha = 0.2f, beta = 0.5f;
  static HardSigmoidParams Decode(const ParamValues& p) {
    return {static_cast<float>(p.GetFloat("alpha")), static_cast<float>(p.GetFloat("beta"))};
  }
};

// _full's value.
struct FullParams {
  double value = 0;
  static FullParams Decode(const ParamValues& p) { return {p.GetFloat("value")}; }
};

// quadratic's coefficients: y = a x^2 + b x + c.
struct QuadraticParams {
  double a = 0, b = 0, c = 0;
  static QuadraticParams Decode(const ParamValues& p) {
    return {p.GetFloat("a"), p.GetFloat("b"), p.GetFloat("c")};
  }
};

// --------------------------------------------------------------- _bn_fold
struct BnFoldParams {
  bool has_bias = false, fix_gamma = true;
  double eps = 1e-3;
  static BnFoldParams Decode(const ParamValues& p) {
    return {!p.GetBool("no_bias"), p.GetBool("fix_gamma"), p.GetFloat("eps")};
  }
};

}  // namespace weft

#endif  // WEFT_KERNELS_SHARED_PARAMS_H_
