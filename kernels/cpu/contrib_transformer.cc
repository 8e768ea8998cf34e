// CPU kernels of the interleaved attention matmuls and their gradients
// (semantics in core/src/op/contrib_transformer.cc). The projections are
// read in place: the D values of head block bh = b * heads + h at position
// i of a (L, B, heads * k * D) array start at i * row + bh * blk (+ D for
// the second block of an interleaved pair, + 2 * D for the third). Loops
// run over the B*heads blocks in parallel (each block's outputs are its
// own); an output element is one dot product in the element type.
#include <cmath>
#include <cstring>

#include "cpu/cpu_util.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

// One projection inside an interleaved array: element (i, bh) at
// p + i * row + bh * blk.
template <typename T>
struct Side {
  T* p;
  int64_t row, blk;
  T* at(int64_t i, int64_t bh) const { return p + i * row + bh * blk; }
};

struct Dims {
  int64_t bh, lq, lk, d;  // B*heads, query length, key length, head_dim
  bool Big() const { return bh * lq * lk * d >= kParallelGrain; }
};

template <typename T>
T Dot(const T* a, const T* b, int64_t n) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// Gradients accumulate: a kWrite output is cleared first (this also zeroes
// the blocks of an interleaved array that a gradient does not reach).
void ClearForWrite(OpReq req, const TBlob& b) {
  if (req == OpReq::kWrite || req == OpReq::kInplace) std::memset(b.dptr, 0, b.Bytes());
}

// y[bh, i, j] (+)= scale * q(i, bh) . k(j, bh).
template <typename T>
void Scores(const Dims& n, Side<const T> q, Side<const T> k, T scale, T* y, OpReq req) {
#pragma omp parallel for schedule(static) if (n.Big())
  for (int64_t b = 0; b < n.bh; ++b)
    for (int64_t i = 0; i < n.lq; ++i)
      for (int64_t j = 0; j < n.lk; ++j)
        Store(req, y + (b * n.lq + i) * n.lk + j, scale * Dot(q.at(i, b), k.at(j, b), n.d));
}

// dq(i) += scale * sum_j dy[i, j] k(j);  dk(j) += scale * sum_i dy[i, j] q(i)
// (either may be skipped with a null pointer).
template <typename T>
void ScoresGrad(const Dims& n, const T* dy, Side<const T> q, Side<const T> k, T scale, Side<T> dq,
                Side<T> dk) {
#pragma omp parallel for schedule(static) if (n.Big())
  for (int64_t b = 0; b < n.bh; ++b)
    for (int64_t i = 0; i < n.lq; ++i)
      for (int64_t j = 0; j < n.lk; ++j) {
        const T g = scale * dy[(b * n.lq + i) * n.lk + j];
        if (dq.p) {
          T* dqi = dq.at(i, b);
          const T* kj = k.at(j, b);
#pragma omp simd
          for (int64_t c = 0; c < n.d; ++c) dqi[c] += g * kj[c];
        }
        if (dk.p) {
          T* dkj = dk.at(j, b);
          const T* qi = q.at(i, b);
#pragma omp simd
          for (int64_t c = 0; c < n.d; ++c) dkj[c] += g * qi[c];
        }
      }
}

// y(i, bh) += sum_j att[bh, i, j] v(j, bh), y (Lq, B, heads * D) cleared
// by the caller for kWrite.
template <typename T>
void Values(const Dims& n, const T* att, Side<const T> v, T* y) {
  const Side<T> out{y, n.bh * n.d, n.d};
#pragma omp parallel for schedule(static) if (n.Big())
  for (int64_t b = 0; b < n.bh; ++b)
    for (int64_t i = 0; i < n.lq; ++i) {
      T* yi = out.at(i, b);
      for (int64_t j = 0; j < n.lk; ++j) {
        const T a = att[(b * n.lq + i) * n.lk + j];
        const T* vj = v.at(j, b);
#pragma omp simd
        for (int64_t c = 0; c < n.d; ++c) yi[c] += a * vj[c];
      }
    }
}

// datt[bh, i, j] (+)= dy(i, bh) . v(j, bh);  dv(j) += sum_i att[bh, i, j] dy(i)
// (dv skipped when null).
template <typename T>
void ValuesGrad(const Dims& n, const T* dy, const T* att, Side<const T> v, Side<T> dv, T* datt,
                OpReq req_att) {
  const Side<const T> g{dy, n.bh * n.d, n.d};
#pragma omp parallel for schedule(static) if (n.Big())
  for (int64_t b = 0; b < n.bh; ++b)
    for (int64_t i = 0; i < n.lq; ++i)
      for (int64_t j = 0; j < n.lk; ++j) {
        const int64_t a = (b * n.lq + i) * n.lk + j;
        Store(req_att, datt + a, Dot(g.at(i, b), v.at(j, b), n.d));
        if (!dv.p) continue;
        T* dvj = dv.at(j, b);
        const T w = att[a];
        const T* gi = g.at(i, b);
#pragma omp simd
        for (int64_t c = 0; c < n.d; ++c) dvj[c] += w * gi[c];
      }
}

int64_t Heads(const NodeAttrs& attrs) { return attrs.params.GetInt("heads"); }

// Self-attention: qkv (L, B, heads * 3 * D); blocks q, k, v.
template <typename T, typename P>
Side<T> SelfSide(P* qkv, const Shape& s, int64_t heads, int which) {
  const int64_t d = s[2] / (3 * heads);
  return {qkv + which * d, s[1] * s[2], 3 * d};
}
Dims SelfDims(const Shape& s, int64_t heads) {
  return {s[1] * heads, s[0], s[0], s[2] / (3 * heads)};
}

// Encoder-decoder: queries (Lq, B, heads * D), keys_values (Lk, B, heads * 2 * D).
Dims EncDecDims(const Shape& kv, int64_t lq, int64_t heads) {
  return {kv[1] * heads, lq, kv[0], kv[2] / (2 * heads)};
}

template <typename T>
T Scale(const Dims& n) {
  return static_cast<T>(1.0 / std::sqrt(static_cast<double>(n.d)));
}

void SelfQK(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Dims n = SelfDims(in[0].shape, Heads(attrs));
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_selfatt_qk", [&](auto t) {
    using T = decltype(t);
    const T* qkv = in[0].data<T>();
    Scores<T>(n, SelfSide<const T>(qkv, in[0].shape, Heads(attrs), 0),
              SelfSide<const T>(qkv, in[0].shape, Heads(attrs), 1), Scale<T>(n), out[0].data<T>(),
              req[0]);
  });
}

// in: ograd, qkv; out: qkv_grad.
void SelfQKGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(req[0], out[0]);
  const Shape& s = in[1].shape;
  const int64_t h = Heads(attrs);
  const Dims n = SelfDims(s, h);
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_selfatt_qk", [&](auto t) {
    using T = decltype(t);
    const T* qkv = in[1].data<T>();
    T* dx = out[0].data<T>();
    ScoresGrad<T>(n, in[0].data<T>(), SelfSide<const T>(qkv, s, h, 0),
                  SelfSide<const T>(qkv, s, h, 1), Scale<T>(n), SelfSide<T>(dx, s, h, 0),
                  SelfSide<T>(dx, s, h, 1));
  });
}

void SelfValAtt(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(req[0], out[0]);
  const Dims n = SelfDims(in[0].shape, Heads(attrs));
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_selfatt_valatt", [&](auto t) {
    using T = decltype(t);
    Values<T>(n, in[1].data<T>(), SelfSide<const T>(in[0].data<T>(), in[0].shape, Heads(attrs), 2),
              out[0].data<T>());
  });
}

// in: ograd, qkv, attention; out: qkv_grad, attention_grad.
void SelfValAttGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ClearForWrite(req[0], out[0]);
  const Shape& s = in[1].shape;
  const int64_t h = Heads(attrs);
  const Dims n = SelfDims(s, h);
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_selfatt_valatt", [&](auto t) {
    using T = decltype(t);
    Side<T> dv = SelfSide<T>(out[0].data<T>(), s, h, 2);
    if (req[0] == OpReq::kNull) dv.p = nullptr;
    ValuesGrad<T>(n, in[0].data<T>(), in[2].data<T>(), SelfSide<const T>(in[1].data<T>(), s, h, 2),
                  dv, out[1].data<T>(), req[1]);
  });
}

void EncDecQK(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape &qs = in[0].shape, &kvs = in[1].shape;
  const Dims n = EncDecDims(kvs, qs[0], Heads(attrs));
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_encdec_qk", [&](auto t) {
    using T = decltype(t);
    Scores<T>(n, Side<const T>{in[0].data<T>(), qs[1] * qs[2], n.d},
              Side<const T>{in[1].data<T>(), kvs[1] * kvs[2], 2 * n.d}, Scale<T>(n),
              out[0].data<T>(), req[0]);
  });
}

// in: ograd, queries, keys_values; out: queries_grad, keys_values_grad.
void EncDecQKGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ClearForWrite(req[0], out[0]);
  ClearForWrite(req[1], out[1]);
  const Shape &qs = in[1].shape, &kvs = in[2].shape;
  const Dims n = EncDecDims(kvs, qs[0], Heads(attrs));
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_encdec_qk", [&](auto t) {
    using T = decltype(t);
    Side<T> dq{out[0].data<T>(), qs[1] * qs[2], n.d},
        dk{out[1].data<T>(), kvs[1] * kvs[2], 2 * n.d};
    if (req[0] == OpReq::kNull) dq.p = nullptr;
    if (req[1] == OpReq::kNull) dk.p = nullptr;
    ScoresGrad<T>(n, in[0].data<T>(), Side<const T>{in[1].data<T>(), qs[1] * qs[2], n.d},
                  Side<const T>{in[2].data<T>(), kvs[1] * kvs[2], 2 * n.d}, Scale<T>(n), dq, dk);
  });
}

void EncDecValAtt(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(req[0], out[0]);
  const Shape& kvs = in[0].shape;
  const Dims n = EncDecDims(kvs, in[1].shape[1], Heads(attrs));
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_encdec_valatt", [&](auto t) {
    using T = decltype(t);
    Values<T>(n, in[1].data<T>(), Side<const T>{in[0].data<T>() + n.d, kvs[1] * kvs[2], 2 * n.d},
              out[0].data<T>());
  });
}

// in: ograd, keys_values, attention; out: keys_values_grad, attention_grad.
void EncDecValAttGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ClearForWrite(req[0], out[0]);
  const Shape& kvs = in[1].shape;
  const Dims n = EncDecDims(kvs, in[2].shape[1], Heads(attrs));
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_encdec_valatt", [&](auto t) {
    using T = decltype(t);
    Side<T> dv{out[0].data<T>() + n.d, kvs[1] * kvs[2], 2 * n.d};
    if (req[0] == OpReq::kNull) dv.p = nullptr;
    ValuesGrad<T>(n, in[0].data<T>(), in[2].data<T>(),
                  Side<const T>{in[1].data<T>() + n.d, kvs[1] * kvs[2], 2 * n.d}, dv,
                  out[1].data<T>(), req[1]);
  });
}

}  // namespace

void RegisterContribTransformerCpu(KernelRegistry* reg) {
  const struct {
    const char* op;
    KernelFn fn;
  } kernels[] = {{"_contrib_interleaved_matmul_selfatt_qk", SelfQK},
                 {"_backward_interleaved_matmul_selfatt_qk", SelfQKGrad},
                 {"_contrib_interleaved_matmul_selfatt_valatt", SelfValAtt},
                 {"_backward_interleaved_matmul_selfatt_valatt", SelfValAttGrad},
                 {"_contrib_interleaved_matmul_encdec_qk", EncDecQK},
                 {"_backward_interleaved_matmul_encdec_qk", EncDecQKGrad},
                 {"_contrib_interleaved_matmul_encdec_valatt", EncDecValAtt},
                 {"_backward_interleaved_matmul_encdec_valatt", EncDecValAttGrad}};
  for (const auto& k : kernels) reg->Add(k.op, DeviceType::kCPU, {"cpu", 0, k.fn, true});
}

}  // namespace cpu
}  // namespace weft
