// CPU kernels of the loss-output operators (SoftmaxOutput, the regression
// outputs, MakeLoss, BlockGrad) and their gradient ops.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/nn_softmax.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// SoftmaxOutput's normalised axis as (outer, n, inner).
SoftmaxView SoftmaxOutputView(const ParamValues& p, const Shape& s) {
  if (p.GetBool("multi_output")) return SoftmaxAxisView(s, 1);
  if (p.GetBool("preserve_shape")) return SoftmaxAxisView(s, -1);
  SoftmaxView v;
  v.outer = s[0];
  v.n = s.ProdRange(1, s.ndim());
  return v;
}

void SoftmaxOutputForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const SoftmaxView v = SoftmaxOutputView(attrs.params, in[0].shape);
  DispatchFloat(in[0].dtype, "SoftmaxOutput", [&](auto t) {
    using T = decltype(t);
    SoftmaxLines<false, T>(v, T(1), in[0].data<T>(), req[0], out[0].data<T>());
  });
}

// in: ograd, output, label; out: data_grad, label_grad (zeros).
void SoftmaxOutputBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const ParamValues& p = attrs.params;
  const SoftmaxView v = SoftmaxOutputView(p, in[1].shape);
  const double scale = p.GetFloat("grad_scale");
  const double ignore = p.GetFloat("ignore_label");
  const bool use_ignore = p.GetBool("use_ignore");
  const bool out_grad = p.GetBool("out_grad");
  const double alpha = p.GetFloat("smooth_alpha");
  const std::string& norm = p.GetString("normalization");
  DispatchFloat(in[1].dtype, "_backward_SoftmaxOutput", [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    const T* y = in[1].data<T>();
    const T* label = in[2].data<T>();
    T* dx = out[0].data<T>();
    const int64_t lines = v.outer * v.inner, n = v.n, inner = v.inner;
    for (int64_t i = 0; i < lines; ++i) {
      const double l = static_cast<double>(label[i]);
      if (use_ignore && l == ignore) continue;
      const int64_t li = static_cast<int64_t>(l);
      if (l != static_cast<double>(li) || li < 0 || li >= n)
        Fail(StatusCode::kInvalidArgument, "operator SoftmaxOutput: label ", l, " at position ", i,
             " is not a class index in [0, ", n, ")");
    }
    double valid = static_cast<double>(lines);
    if (use_ignore) {
      valid = 0;
      for (int64_t i = 0; i < lines; ++i) valid += static_cast<double>(label[i]) != ignore ? 1 : 0;
    }
    double normaliser = 1;
    if (norm == "batch") normaliser = static_cast<double>(in[1].shape[0]);
    else if (norm == "valid") normaliser = std::max(valid, 1.0);
    const T k = static_cast<T>(scale / normaliser);
    const T off = n > 1 ? static_cast<T>(alpha / static_cast<double>(n - 1)) : T(0);
    const T on = static_cast<T>(1 - alpha);
    if (req[0] != OpReq::kNull) {
      ParallelFor(lines, [&](int64_t line) {
        const int64_t base = (line / inner) * n * inner + line % inner;
        const double l = static_cast<double>(label[line]);
        const bool skip = use_ignore && l == ignore;
        const int64_t li = static_cast<int64_t>(l);
        for (int64_t c = 0; c < n; ++c) {
          const int64_t e = base + c * inner;
          T g = skip ? T(0) : (y[e] - (c == li ? on : off)) * k;
          if (out_grad) g *= dy[e];
          Store(req[0], &dx[e], g);
        }
      });
    }
    if (req[1] == OpReq::kWrite || req[1] == OpReq::kInplace)
      std::memset(out[1].dptr, 0, out[1].Bytes());
  });
}

enum class RegKind { kLinear, kLogistic, kMAE };

template <RegKind kKind>
void RegressionForward(const OpContext&, const NodeAttrs&, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  DispatchFloat(in[0].dtype, "RegressionOutput", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    if (kKind == RegKind::kLogistic) {
      Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [](T a, T) { return T(1) / (T(1) + std::exp(-a)); });
    } else {
      Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [](T a, T) { return a; });
    }
  });
}

// in: output, label; out: data_grad, label_grad (zeros).
template <RegKind kKind>
void RegressionBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Shape& ls = in[1].shape;
  const double m = ls.ndim() == 0 || ls[0] == 0 ? 1.0 : static_cast<double>(ls.Size() / ls[0]);
  const double scale = attrs.params.GetFloat("grad_scale") / m;
  DispatchFloat(in[0].dtype, "_backward_RegressionOutput", [&](auto t) {
    using T = decltype(t);
    const T k = static_cast<T>(scale);
    const T* y = in[0].data<T>();
    const T* l = in[1].data<T>();
    T* dx = out[0].data<T>();
    const int64_t n = out[0].Size();
    if (kKind == RegKind::kMAE) {
      Map(req[0], y, l, dx, n, [k](T a, T b) { return k * T((a > b) - (a < b)); });
    } else {
      Map(req[0], y, l, dx, n, [k](T a, T b) { return k * (a - b); });
    }
    if (req[1] == OpReq::kWrite || req[1] == OpReq::kInplace)
      std::memset(out[1].dptr, 0, out[1].Bytes());
  });
}

void Identity(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  DispatchFloat(in[0].dtype, attrs.op->name.c_str(), [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [](T a, T) { return a; });
  });
}

// in: data; out: data_grad = grad_scale / normaliser.
void MakeLossBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const ParamValues& p = attrs.params;
  const std::string& norm = p.GetString("normalization");
  DispatchFloat(in[0].dtype, "_backward_MakeLoss", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    double normaliser = 1;
    if (norm == "batch") {
      normaliser = in[0].shape.ndim() > 0 ? static_cast<double>(in[0].shape[0]) : 1.0;
    } else if (norm == "valid") {
      const T thresh = static_cast<T>(p.GetFloat("valid_thresh"));
      double valid = 0;
      for (int64_t i = 0; i < in[0].Size(); ++i) valid += x[i] > thresh ? 1 : 0;
      normaliser = std::max(valid, 1.0);
    }
    const T g = static_cast<T>(p.GetFloat("grad_scale") / normaliser);
    Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [g](T, T) { return g; });
  });
}

}  // namespace

void RegisterNNLossCpu(KernelRegistry* reg) {
  reg->Add("SoftmaxOutput", DeviceType::kCPU, {"cpu", 0, SoftmaxOutputForward, true});
  reg->Add("_backward_SoftmaxOutput", DeviceType::kCPU, {"cpu", 0, SoftmaxOutputBackward, true});
  reg->Add("LinearRegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionForward<RegKind::kLinear>, true});
  reg->Add("LogisticRegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionForward<RegKind::kLogistic>, true});
  reg->Add("MAERegressionOutput", DeviceType::kCPU, {"cpu", 0, RegressionForward<RegKind::kMAE>, true});
  reg->Add("_backward_LinearRegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionBackward<RegKind::kLinear>, true});
  reg->Add("_backward_LogisticRegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionBackward<RegKind::kLogistic>, true});
  reg->Add("_backward_MAERegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionBackward<RegKind::kMAE>, true});
  reg->Add("MakeLoss", DeviceType::kCPU, {"cpu", 0, Identity, true});
  reg->Add("BlockGrad", DeviceType::kCPU, {"cpu", 0, Identity, true});
  reg->Add("_backward_MakeLoss", DeviceType::kCPU, {"cpu", 0, MakeLossBackward, true});
}

}  // namespace cpu
}  // namespace weft
