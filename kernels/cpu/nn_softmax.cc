// CPU kernels of softmax, log_softmax, SoftmaxActivation and their
// gradients. The data is viewed as (outer, n, inner) with the normalised
// axis in the middle; each (outer, inner) line is independent and the
// lines are split over threads. Contiguous lines (inner == 1) vectorise
// (compiled with -O3 -fno-math-errno -fno-trapping-math, see CMakeLists.txt).
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

SoftmaxView ViewOf(const NodeAttrs& attrs, const Shape& s) {
  const SoftmaxParams& q = attrs.params.Decoded<SoftmaxParams>();
  if (attrs.op->name == "SoftmaxActivation" || attrs.op->name == "_backward_SoftmaxActivation") {
    if (q.channel) return SoftmaxAxisView(s, 1);
    SoftmaxView v;
    v.outer = s[0];
    v.n = s.ProdRange(1, s.ndim());
    return v;
  }
  return SoftmaxAxisView(s, q.axis);
}

double Temperature(const NodeAttrs& attrs) {
  return attrs.params.Decoded<SoftmaxParams>().temperature;
}

// The per-line lengths of softmax's `length` input, each checked to lie in
// [0, n].
std::vector<int64_t> Lengths(const TBlob& len, int64_t n) {
  std::vector<int64_t> l = IntValues(len, "softmax", "length");
  for (size_t i = 0; i < l.size(); ++i)
    if (l[i] < 0 || l[i] > n)
      Fail(StatusCode::kInvalidArgument, "operator softmax: length ", l[i], " at position ", i,
           " is outside [0, ", n, "]");
  return l;
}

// Masked softmax: line i normalised over its first len[i] entries, the rest 0.
template <typename T>
void MaskedSoftmaxLines(const SoftmaxView& v, T scale, const T* x, const std::vector<int64_t>& len,
                        OpReq req, T* y) {
  const int64_t n = v.n, inner = v.inner, lines = v.outer * inner;
#pragma omp parallel for schedule(static) if (ParallelLines(lines * n))
  for (int64_t line = 0; line < lines; ++line) {
    const int64_t base = (line / inner) * n * inner + line % inner, m = len[line];
    T mx = m > 0 ? x[base] * scale : T(0);
    for (int64_t i = 1; i < m; ++i) mx = std::max(mx, x[base + i * inner] * scale);
    T sum = T(0);
    for (int64_t i = 0; i < m; ++i) sum += FastExp(x[base + i * inner] * scale - mx);
    const T inv = m > 0 ? T(1) / sum : T(0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = base + i * inner;
      Store(req, &y[k], i < m ? FastExp(x[k] * scale - mx) * inv : T(0));
    }
  }
}

template <bool kLog>
void Forward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const SoftmaxView v = ViewOf(attrs, in[0].shape);
  const double temp = Temperature(attrs);
  if (temp == 0)
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name,
         ": temperature must be nonzero");
  DispatchFloat(in[0].dtype, attrs.op->name.c_str(), [&](auto t) {
    using T = decltype(t);
    const T scale = static_cast<T>(1.0 / temp);
    if (in.size() > 1) {  // softmax with use_length
      MaskedSoftmaxLines<T>(v, scale, in[0].data<T>(), Lengths(in[1], v.n), req[0],
                            out[0].data<T>());
      return;
    }
    SoftmaxLines<kLog, T>(v, scale, in[0].data<T>(), req[0], out[0].data<T>());
  });
}

// in: ograd, output[, length]; out: data_grad[, length_grad (zeros)]. With
// a length the masked entries have output 0, so the unmasked formula gives
// them a zero gradient and sums only the unmasked ones.
template <bool kLog>
void Backward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (out.size() > 1 && (req[1] == OpReq::kWrite || req[1] == OpReq::kInplace))
    std::memset(out[1].dptr, 0, out[1].Bytes());
  if (req[0] == OpReq::kNull) return;
  const SoftmaxView v = ViewOf(attrs, in[0].shape);
  const double temp = Temperature(attrs);
  DispatchFloat(in[0].dtype, attrs.op->name.c_str(), [&](auto t) {
    using T = decltype(t);
    const T* dy = in[0].data<T>();
    const T* y = in[1].data<T>();
    T* dx = out[0].data<T>();
    const T inv_t = static_cast<T>(1.0 / temp);
    const OpReq r = req[0];
    const int64_t n = v.n, inner = v.inner, lines = v.outer * inner;
    if (inner == 1 && r != OpReq::kAdd) {
      // Contiguous lines: SIMD reductions and maps.
#pragma omp parallel for schedule(static) if (ParallelLines(lines * n))
      for (int64_t line = 0; line < lines; ++line)
        SoftmaxGradLineContiguous<kLog>(n, inv_t, dy + line * n, y + line * n, dx + line * n);
      return;
    }
#pragma omp parallel for schedule(static) if (ParallelLines(lines * n))
    for (int64_t line = 0; line < lines; ++line) {
      const int64_t base = (line / inner) * n * inner + line % inner;
      T s = T(0);
      if (kLog) {
        for (int64_t i = 0; i < n; ++i) s += dy[base + i * inner];
        for (int64_t i = 0; i < n; ++i) {
          const int64_t k = base + i * inner;
          Store(r, &dx[k], (dy[k] - FastExp(y[k]) * s) * inv_t);
        }
      } else {
        for (int64_t i = 0; i < n; ++i) s += dy[base + i * inner] * y[base + i * inner];
        for (int64_t i = 0; i < n; ++i) {
          const int64_t k = base + i * inner;
          Store(r, &dx[k], y[k] * (dy[k] - s) * inv_t);
        }
      }
    }
  });
}

}  // namespace

void RegisterNNSoftmaxCpu(KernelRegistry* reg) {
  reg->Add("softmax", DeviceType::kCPU, {"cpu", 0, Forward<false>, true});
  reg->Add("log_softmax", DeviceType::kCPU, {"cpu", 0, Forward<true>, true});
  reg->Add("SoftmaxActivation", DeviceType::kCPU, {"cpu", 0, Forward<false>, true});
  reg->Add("_backward_softmax", DeviceType::kCPU, {"cpu", 0, Backward<false>, true});
  reg->Add("_backward_log_softmax", DeviceType::kCPU, {"cpu", 0, Backward<true>, true});
  reg->Add("_backward_SoftmaxActivation", DeviceType::kCPU, {"cpu", 0, Backward<false>, true});
}

}  // namespace cpu
}  // namespace weft
