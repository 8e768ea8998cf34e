// CPU kernels of the loss-output operators (SoftmaxOutput, the regression
// outputs, MakeLoss, BlockGrad) and their gradient ops.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/label_util.h"
#include "cpu/nn_softmax.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

void SoftmaxOutputForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                          const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const SoftmaxView v = SoftmaxOutputView(attrs.params, in[0].shape);
  DispatchFloat(in[0].dtype, "SoftmaxOutput", [&](auto t) {
    using T = decltype(t);
    SoftmaxLines<false, T>(v, T(1), in[0].data<T>(), req[0], out[0].data<T>());
  });
}

// in: ograd, output, label; out: data_grad, label_grad (zeros). What it
// computes is planned in kernels/softmax_view.h (shared with CUDA);
// semantics in core/src/op/nn_loss.cc.
void SoftmaxOutputBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                           const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  DispatchFloat(in[1].dtype, "_backward_SoftmaxOutput", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *y = in[1].data<T>(), *label = in[2].data<T>();
    T* dx = out[0].data<T>();
    if (req[1] == OpReq::kWrite || req[1] == OpReq::kInplace)
      std::memset(out[1].dptr, 0, out[1].Bytes());
    if (req[0] == OpReq::kNull) return;
    const SoftmaxOutputGrad g =
        PlanSoftmaxOutputGrad(attrs.params, in[1].shape, in[2].shape, label);
    const T k = static_cast<T>(g.k);
    if (g.probability) {
      const int64_t size = in[1].shape.Size();
      if (g.out_grad) {
        ParallelFor(size, [&](int64_t i) { Store(req[0], &dx[i], k * (y[i] - label[i]) * dy[i]); });
      } else {
        Map(req[0], y, label, dx, size, [k](T a, T b) { return (a - b) * k; });
      }
      return;
    }
    const int64_t lines = g.v.outer * g.v.inner, n = g.v.n, inner = g.v.inner;
    const T off = static_cast<T>(g.off), on = static_cast<T>(g.on);
    ParallelFor(lines, [&](int64_t line) {
      const int64_t base = (line / inner) * n * inner + line % inner;
      const bool skip = g.Ignored(static_cast<double>(label[line]));
      const int64_t li = skip ? -1 : static_cast<int64_t>(label[line]);
      for (int64_t c = 0; c < n; ++c) {
        const int64_t e = base + c * inner;
        T g_e = skip ? T(0) : (y[e] - (c == li ? on : off)) * k;
        if (g.out_grad) g_e *= dy[e];
        Store(req[0], &dx[e], g_e);
      }
    });
  });
}

// SVMOutput's, the regression outputs' and MakeLoss's parameters, decoded
// once per node (ParamValues::Decoded).
struct SVMParams {
  double margin = 1, coef = 1;  // margin, regularization_coefficient
  bool linear = false;          // use_linear
  static SVMParams Decode(const ParamValues& p) {
    return {p.GetFloat("margin"), p.GetFloat("regularization_coefficient"),
            p.GetBool("use_linear")};
  }
};
struct GradScaleParams {
  double grad_scale = 1;
  static GradScaleParams Decode(const ParamValues& p) { return {p.GetFloat("grad_scale")}; }
};
struct MakeLossParams {
  double grad_scale = 1, valid_thresh = 0;
  std::string normalization;
  static MakeLossParams Decode(const ParamValues& p) {
    return {p.GetFloat("grad_scale"), p.GetFloat("valid_thresh"), p.GetString("normalization")};
  }
};

// in: output, label; out: data_grad, label_grad (zeros).
void SVMOutputBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const SVMParams& sp = attrs.params.Decoded<SVMParams>();
  const Shape& s = in[0].shape;
  const int64_t K = s.ndim() > 0 ? s[s.ndim() - 1] : 1, rows = s.Size() / std::max<int64_t>(K, 1);
  const double margin = sp.margin, coef = sp.coef;
  const bool linear = sp.linear;
  DispatchFloat(in[0].dtype, "_backward_SVMOutput", [&](auto t) {
    using T = decltype(t);
    const T *y = in[0].data<T>(), *label = in[1].data<T>();
    T* dx = out[0].data<T>();
    if (req[1] == OpReq::kWrite || req[1] == OpReq::kInplace)
      std::memset(out[1].dptr, 0, out[1].Bytes());
    if (req[0] == OpReq::kNull) return;
    for (int64_t r = 0; r < rows; ++r) ClassIndex("SVMOutput", label, r, K);
    const T m = static_cast<T>(margin), c = static_cast<T>(coef);
    ParallelFor(rows, [&](int64_t r) {
      const int64_t k = static_cast<int64_t>(label[r]);
      for (int64_t j = 0; j < K; ++j) {
        const T x = y[r * K + j];
        T g;
        if (linear)
          g = j == k ? -c * T(m > x) : c * T(m > -x);
        else
          g = j == k ? (m > x ? T(-2) * c * (m - x) : T(0)) : (m > -x ? T(2) * c * (m + x) : T(0));
        Store(req[0], &dx[r * K + j], g);
      }
    });
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
      Map(req[0], x, x, out[0].data<T>(), out[0].Size(),
          [](T a, T) { return T(1) / (T(1) + std::exp(-a)); });
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
  const double scale = attrs.params.Decoded<GradScaleParams>().grad_scale / m;
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
  const MakeLossParams& mp = attrs.params.Decoded<MakeLossParams>();
  const std::string& norm = mp.normalization;
  DispatchFloat(in[0].dtype, "_backward_MakeLoss", [&](auto t) {
    using T = decltype(t);
    const T* x = in[0].data<T>();
    double normaliser = 1;
    if (norm == "batch") {
      normaliser = in[0].shape.ndim() > 0 ? static_cast<double>(in[0].shape[0]) : 1.0;
    } else if (norm == "valid") {
      const T thresh = static_cast<T>(mp.valid_thresh);
      double valid = 0;
      for (int64_t i = 0; i < in[0].Size(); ++i) valid += x[i] > thresh ? 1 : 0;
      normaliser = std::max(valid, 1.0);
    }
    const T g = static_cast<T>(mp.grad_scale / normaliser);
    Map(req[0], x, x, out[0].data<T>(), out[0].Size(), [g](T, T) { return g; });
  });
}

}  // namespace

void RegisterNNLossCpu(KernelRegistry* reg) {
  reg->Add("SoftmaxOutput", DeviceType::kCPU, {"cpu", 0, SoftmaxOutputForward, true});
  reg->Add("_backward_SoftmaxOutput", DeviceType::kCPU, {"cpu", 0, SoftmaxOutputBackward, true});
  reg->Add("SVMOutput", DeviceType::kCPU, {"cpu", 0, Identity, true});
  reg->Add("_backward_SVMOutput", DeviceType::kCPU, {"cpu", 0, SVMOutputBackward, true});
  reg->Add("LinearRegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionForward<RegKind::kLinear>, true});
  reg->Add("LogisticRegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionForward<RegKind::kLogistic>, true});
  reg->Add("MAERegressionOutput", DeviceType::kCPU,
           {"cpu", 0, RegressionForward<RegKind::kMAE>, true});
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
