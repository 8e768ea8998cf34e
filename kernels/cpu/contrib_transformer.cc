// CPU kernels of the interleaved self-attention matmuls and their gradients
// (semantics in core/src/op/contrib_transformer.cc). qkv (L, B, heads, 3, D)
// is read in place: head block bh = b * heads + h of position i starts at
// i * B*heads*3*D + bh * 3*D (q), + D (k), + 2*D (v). Loops run over the
// B*heads blocks in parallel; each output element is one dot product,
// accumulated in the element type.
#include <cmath>
#include <cstring>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

struct Geom {
  int64_t len, bh, d, row;  // L, B*heads, head_dim, stride of a position
};

Geom GeomOf(const NodeAttrs& attrs, const Shape& qkv) {
  const int64_t heads = attrs.params.GetInt("heads");
  Geom g;
  g.len = qkv[0];
  g.bh = qkv[1] * heads;
  g.d = qkv[2] / (3 * heads);
  g.row = qkv[1] * qkv[2];
  return g;
}

template <typename T>
T Dot(const T* a, const T* b, int64_t n) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// Zeroes qkv_grad for kWrite: the blocks a gradient does not touch stay 0.
void ClearForWrite(OpReq req, const TBlob& b) {
  if (req == OpReq::kWrite || req == OpReq::kInplace) std::memset(b.dptr, 0, b.Bytes());
}

void QKForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Geom g = GeomOf(attrs, in[0].shape);
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_selfatt_qk", [&](auto t) {
    using T = decltype(t);
    const T* qkv = in[0].data<T>();
    T* y = out[0].data<T>();
    const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(g.d)));
#pragma omp parallel for schedule(static) if (g.bh * g.len * g.len * g.d >= kParallelGrain)
    for (int64_t b = 0; b < g.bh; ++b)
      for (int64_t i = 0; i < g.len; ++i) {
        const T* q = qkv + i * g.row + b * 3 * g.d;
        for (int64_t j = 0; j < g.len; ++j)
          Store(req[0], y + (b * g.len + i) * g.len + j, scale * Dot(q, qkv + j * g.row + b * 3 * g.d + g.d, g.d));
      }
  });
}

// in: ograd (B*heads, L, L), qkv; out: qkv_grad.
void QKBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Geom g = GeomOf(attrs, in[1].shape);
  ClearForWrite(req[0], out[0]);
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_selfatt_qk", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *qkv = in[1].data<T>();
    T* dx = out[0].data<T>();
    const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(g.d)));
#pragma omp parallel for schedule(static) if (g.bh * g.len * g.len * g.d >= kParallelGrain)
    for (int64_t b = 0; b < g.bh; ++b) {
      const T* gb = dy + b * g.len * g.len;
      for (int64_t i = 0; i < g.len; ++i) {
        // dq_i = scale * sum_j dy[i, j] k_j;  dk_i = scale * sum_j dy[j, i] q_j
        T* dq = dx + i * g.row + b * 3 * g.d;
        T* dk = dq + g.d;
        for (int64_t j = 0; j < g.len; ++j) {
          const T* base = qkv + j * g.row + b * 3 * g.d;
          const T a = scale * gb[i * g.len + j], c = scale * gb[j * g.len + i];
#pragma omp simd
          for (int64_t k = 0; k < g.d; ++k) {
            dq[k] += a * base[g.d + k];
            dk[k] += c * base[k];
          }
        }
      }
    }
  });
}

void ValAttForward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Geom g = GeomOf(attrs, in[0].shape);
  ClearForWrite(req[0], out[0]);
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_selfatt_valatt", [&](auto t) {
    using T = decltype(t);
    const T *qkv = in[0].data<T>(), *att = in[1].data<T>();
    T* y = out[0].data<T>();
    const int64_t orow = g.bh * g.d;  // stride of a position in the output
#pragma omp parallel for schedule(static) if (g.bh * g.len * g.len * g.d >= kParallelGrain)
    for (int64_t b = 0; b < g.bh; ++b)
      for (int64_t i = 0; i < g.len; ++i) {
        T* yi = y + i * orow + b * g.d;
        const T* ai = att + (b * g.len + i) * g.len;
        for (int64_t j = 0; j < g.len; ++j) {
          const T* v = qkv + j * g.row + b * 3 * g.d + 2 * g.d;
          const T a = ai[j];
#pragma omp simd
          for (int64_t k = 0; k < g.d; ++k) yi[k] += a * v[k];
        }
      }
  });
}

// in: ograd (L, B, E), qkv, attention; out: qkv_grad, attention_grad.
void ValAttBackward(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const Geom g = GeomOf(attrs, in[1].shape);
  if (req[0] != OpReq::kNull) ClearForWrite(req[0], out[0]);
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_selfatt_valatt", [&](auto t) {
    using T = decltype(t);
    const T *dy = in[0].data<T>(), *qkv = in[1].data<T>(), *att = in[2].data<T>();
    T *dqkv = out[0].data<T>(), *datt = out[1].data<T>();
    const int64_t orow = g.bh * g.d;
#pragma omp parallel for schedule(static) if (g.bh * g.len * g.len * g.d >= kParallelGrain)
    for (int64_t b = 0; b < g.bh; ++b)
      for (int64_t j = 0; j < g.len; ++j) {
        // datt[i, j] = dy_i . v_j;  dv_j = sum_i att[i, j] dy_i
        const T* v = qkv + j * g.row + b * 3 * g.d + 2 * g.d;
        T* dv = dqkv + j * g.row + b * 3 * g.d + 2 * g.d;
        for (int64_t i = 0; i < g.len; ++i) {
          const T* dyi = dy + i * orow + b * g.d;
          const int64_t a = (b * g.len + i) * g.len + j;
          Store(req[1], datt + a, Dot(dyi, v, g.d));
          if (req[0] == OpReq::kNull) continue;
          const T w = att[a];
#pragma omp simd
          for (int64_t k = 0; k < g.d; ++k) dv[k] += w * dyi[k];
        }
      }
  });
}

}  // namespace

void RegisterContribTransformerCpu(KernelRegistry* reg) {
  reg->Add("_contrib_interleaved_matmul_selfatt_qk", DeviceType::kCPU, {"cpu", 0, QKForward, true});
  reg->Add("_backward_interleaved_matmul_selfatt_qk", DeviceType::kCPU, {"cpu", 0, QKBackward, true});
  reg->Add("_contrib_interleaved_matmul_selfatt_valatt", DeviceType::kCPU, {"cpu", 0, ValAttForward, true});
  reg->Add("_backward_interleaved_matmul_selfatt_valatt", DeviceType::kCPU, {"cpu", 0, ValAttBackward, true});
}

}  // namespace cpu
}  // namespace weft
