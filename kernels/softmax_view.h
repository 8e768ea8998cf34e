// The lines a softmax normalises, as an (outer, n, inner) view of a
// row-major array, and what SoftmaxOutput's gradient computes on them:
// decided once on the host from the op's parameters, the data shape and the
// labels, so the CPU and CUDA kernels agree by construction. Plain host code
// that nvcc also compiles.
#ifndef WEFT_KERNELS_SOFTMAX_VIEW_H_
#define WEFT_KERNELS_SOFTMAX_VIEW_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "cpu/label_util.h"
#include "weft/op.h"
#include "weft/status.h"

namespace weft {

// The array viewed as (outer, n, inner), normalised over n.
struct SoftmaxView {
  int64_t outer = 1, n = 1, inner = 1;
};

// The view normalising `axis` (negative counts from the end) of `s`.
inline SoftmaxView SoftmaxAxisView(const Shape& s, int64_t axis) {
  SoftmaxView v;
  if (s.ndim() == 0) return v;
  if (axis < 0) axis += s.ndim();
  const int a = static_cast<int>(axis);
  v.outer = s.ProdRange(0, a);
  v.n = s[a];
  v.inner = s.ProdRange(a + 1, s.ndim());
  return v;
}

// The softmax family's parameters (softmax, log_softmax, softmin,
// SoftmaxActivation and their gradients), decoded once per node
// (ParamValues::Decoded); each only where the op declares it: the axis,
// SoftmaxActivation's mode "channel", and the temperature (1 when none).
struct SoftmaxParams {
  int64_t axis = -1;
  bool channel = false;
  double temperature = 1;
  static SoftmaxParams Decode(const ParamValues& p) {
    SoftmaxParams q;
    if (p.Has("axis")) q.axis = p.GetInt("axis");
    q.channel = p.Has("mode") && p.GetString("mode") == "channel";
    if (p.Has("temperature") && !p.IsNone("temperature")) q.temperature = p.GetFloat("temperature");
    return q;
  }
};

// SoftmaxOutput's parameters, decoded once per node (ParamValues::Decoded).
struct SoftmaxOutputParams {
  bool multi_output = false, preserve_shape = false, use_ignore = false, out_grad = false;
  int ignore = -1;  // int(ignore_label), as MXNet compares it
  double grad_scale = 1, smooth_alpha = 0;
  std::string normalization;
  static SoftmaxOutputParams Decode(const ParamValues& p) {
    SoftmaxOutputParams q;
    q.multi_output = p.GetBool("multi_output");
    q.preserve_shape = p.GetBool("preserve_shape");
    q.use_ignore = p.GetBool("use_ignore");
    q.out_grad = p.GetBool("out_grad");
    q.ignore = static_cast<int>(p.GetFloat("ignore_label"));
    q.grad_scale = p.GetFloat("grad_scale");
    q.smooth_alpha = p.GetFloat("smooth_alpha");
    q.normalization = p.GetString("normalization");
    return q;
  }
};

// SoftmaxOutput's normalised axis: the channel axis with multi_output, the
// last with preserve_shape, else everything after the batch axis.
inline SoftmaxView SoftmaxOutputView(const ParamValues& p, const Shape& s) {
  const SoftmaxOutputParams& q = p.Decoded<SoftmaxOutputParams>();
  if (q.multi_output) return SoftmaxAxisView(s, 1);
  if (q.preserve_shape) return SoftmaxAxisView(s, -1);
  SoftmaxView v;
  v.outer = s[0];
  v.n = s.ProdRange(1, s.ndim());
  return v;
}

// _backward_SoftmaxOutput as MXNet computes it. With probability labels
// (shaped as the data) every element's gradient is (y - label) * k. With
// class labels, line i = (o, s) of the view uses label[i], and element c of
// it gets (y - (c == label ? on : off)) * k, or 0 on an ignored line; times
// the output gradient with out_grad either way.
struct SoftmaxOutputGrad {
  SoftmaxView v;
  bool probability = false;
  double k = 1;            // grad_scale / normaliser
  double on = 1, off = 0;  // the smoothed one-hot
  bool use_ignore = false, out_grad = false;
  int ignore = 0;  // compared with int(label), as MXNet does

  bool Ignored(double label) const { return use_ignore && static_cast<int>(label) == ignore; }
};

// MXNet's "valid" count: labels whose int value differs from ignore_label
// (whatever use_ignore says), at least 1.
template <typename T>
double SoftmaxOutputValidCount(const T* label, int64_t n, int ignore) {
  double valid = 0;
  for (int64_t i = 0; i < n; ++i) valid += static_cast<int>(label[i]) != ignore ? 1 : 0;
  return std::max(valid, 1.0);
}

// The plan for data of shape `data` and labels of shape `label_shape`,
// whose values (`label`, on the host) are read only for class labels: the
// normaliser (multi_output: inner, or outer * inner with "batch"; otherwise
// 1, or the label count with "batch"; "valid" counts as above), smoothing
// (none with multi_output) and the check that every line not ignored has a
// class index in [0, n).
template <typename T>
SoftmaxOutputGrad PlanSoftmaxOutputGrad(const ParamValues& p, const Shape& data,
                                        const Shape& label_shape, const T* label) {
  const SoftmaxOutputParams& q = p.Decoded<SoftmaxOutputParams>();
  SoftmaxOutputGrad g;
  g.use_ignore = q.use_ignore;
  g.out_grad = q.out_grad;
  g.ignore = q.ignore;
  const double scale = q.grad_scale;
  if (label_shape == data) {
    g.probability = true;
    g.k = scale;
    return g;
  }
  const std::string& norm = q.normalization;
  const int64_t nlabel = label_shape.Size();
  double normaliser = 1, alpha = q.smooth_alpha;
  if (q.multi_output) {
    g.v = SoftmaxAxisView(data, 1);
    alpha = 0;
    if (norm == "batch")
      normaliser = static_cast<double>(g.v.inner * g.v.outer);
    else if (norm == "valid")
      normaliser = SoftmaxOutputValidCount(label, nlabel, g.ignore);
    else
      normaliser = static_cast<double>(g.v.inner);
  } else {
    g.v = SoftmaxOutputView(p, data);
    if (norm == "batch")
      normaliser = static_cast<double>(nlabel);
    else if (norm == "valid")
      normaliser = SoftmaxOutputValidCount(label, nlabel, g.ignore);
  }
  const int64_t lines = g.v.outer * g.v.inner;
  if (nlabel < lines)
    Fail(StatusCode::kShape, "operator SoftmaxOutput: input 'label' has ", nlabel, " values for ",
         lines, " softmax rows");
  for (int64_t i = 0; i < lines; ++i)
    if (!g.Ignored(static_cast<double>(label[i])))
      cpu::ClassIndex("SoftmaxOutput", label, i, g.v.n);
  g.k = scale / normaliser;
  g.off = g.v.n > 1 ? alpha / static_cast<double>(g.v.n - 1) : 0;
  g.on = 1 - alpha;
  return g;
}

}  // namespace weft

#endif  // WEFT_KERNELS_SOFTMAX_VIEW_H_
