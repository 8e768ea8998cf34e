// CPU kernels of the interleaved attention matmuls and their gradients
// (semantics in core/src/op/contrib_transformer.cc; the projections' layout
// in kernels/interleaved_attention.h). Loops run over the B*heads blocks in
// parallel (each block's outputs are its own); an output element is one dot
// product in the element type.
#include "cpu/cpu_util.h"
#include "interleaved_attention.h"
#include "weft/dtype.h"

namespace weft {
namespace cpu {

namespace {

using attention::ClearForWrite;
using attention::Dims;
using attention::EncDecDims;
using attention::Heads;
using attention::KVSide;
using attention::QuerySide;
using attention::SelfDims;
using attention::SelfSide;
using attention::Side;

bool Big(const Dims& n) { return n.Work() >= kParallelGrain; }

template <typename T>
T Dot(const T* a, const T* b, int64_t n) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// y[bh, i, j] (+)= scale * q(i, bh) . k(j, bh).
template <typename T>
void Scores(const Dims& n, Side<const T> q, Side<const T> k, T scale, T* y, OpReq req) {
#pragma omp parallel for schedule(static) if (Big(n))
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
#pragma omp parallel for schedule(static) if (Big(n))
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
  const Side<T> out = attention::ValuesSide(y, n);
#pragma omp parallel for schedule(static) if (Big(n))
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
  const Side<const T> g = attention::ValuesSide(dy, n);
#pragma omp parallel for schedule(static) if (Big(n))
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

template <typename T>
T Scale(const Dims& n) {
  return static_cast<T>(n.Scale());
}

void SelfQK(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& s = in[0].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_selfatt_qk", [&](auto t) {
    using T = decltype(t);
    const T* qkv = in[0].data<T>();
    Scores<T>(n, SelfSide(qkv, s, n, 0), SelfSide(qkv, s, n, 1), Scale<T>(n), out[0].data<T>(),
              req[0]);
  });
}

// in: ograd, qkv; out: qkv_grad.
void SelfQKGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(req[0], out[0]);
  const Shape& s = in[1].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_selfatt_qk", [&](auto t) {
    using T = decltype(t);
    const T* qkv = in[1].data<T>();
    T* dx = out[0].data<T>();
    ScoresGrad<T>(n, in[0].data<T>(), SelfSide(qkv, s, n, 0), SelfSide(qkv, s, n, 1), Scale<T>(n),
                  SelfSide(dx, s, n, 0), SelfSide(dx, s, n, 1));
  });
}

void SelfValAtt(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(req[0], out[0]);
  const Shape& s = in[0].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_selfatt_valatt", [&](auto t) {
    using T = decltype(t);
    Values<T>(n, in[1].data<T>(), SelfSide(in[0].data<const T>(), s, n, 2), out[0].data<T>());
  });
}

// in: ograd, qkv, attention; out: qkv_grad, attention_grad.
void SelfValAttGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ClearForWrite(req[0], out[0]);
  const Shape& s = in[1].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[1].dtype, "_backward_interleaved_matmul_selfatt_valatt", [&](auto t) {
    using T = decltype(t);
    ValuesGrad<T>(n, in[0].data<T>(), in[2].data<T>(), SelfSide(in[1].data<const T>(), s, n, 2),
                  SelfSide(attention::Grad<T>(req[0], out[0]), s, n, 2), out[1].data<T>(), req[1]);
  });
}

void EncDecQK(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape &qs = in[0].shape, &kvs = in[1].shape;
  const Dims n = EncDecDims(kvs, qs[0], Heads(attrs));
  DispatchFloat(in[0].dtype, "_contrib_interleaved_matmul_encdec_qk", [&](auto t) {
    using T = decltype(t);
    Scores<T>(n, QuerySide(in[0].data<const T>(), qs, n), KVSide(in[1].data<const T>(), kvs, n, 0),
              Scale<T>(n), out[0].data<T>(), req[0]);
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
    ScoresGrad<T>(n, in[0].data<T>(), QuerySide(in[1].data<const T>(), qs, n),
                  KVSide(in[2].data<const T>(), kvs, n, 0), Scale<T>(n),
                  QuerySide(attention::Grad<T>(req[0], out[0]), qs, n),
                  KVSide(attention::Grad<T>(req[1], out[1]), kvs, n, 0));
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
    Values<T>(n, in[1].data<T>(), KVSide(in[0].data<const T>(), kvs, n, 1), out[0].data<T>());
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
    ValuesGrad<T>(n, in[0].data<T>(), in[2].data<T>(), KVSide(in[1].data<const T>(), kvs, n, 1),
                  KVSide(attention::Grad<T>(req[0], out[0]), kvs, n, 1), out[1].data<T>(), req[1]);
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
