// CUDA kernels of the interleaved attention matmuls and their gradients
// (semantics in core/src/op/contrib_transformer.cc and the CPU kernels,
// kernels/cpu/contrib_transformer.cc), float32 and float64: every product
// is one strided batched cuBLAS GEMM over the B * heads blocks, reading the
// projections in place (the D values of block bh at position i of a (L, B,
// heads * k * D) array start at i * row + bh * blk). Gradients of an
// interleaved array accumulate into it, so a written one is cleared first
// (which also zeroes the blocks a gradient does not reach).
#include <cmath>

#include "cuda/cublas_gemm.h"
#include "interleaved_attention.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// One projection inside an interleaved array, as GEMM operand rows: row i
// of block bh at p + i * row + bh * blk.
template <typename T>
Strided<T> Side(T* p, int64_t row, int64_t blk) {
  return {p, row, blk};
}

struct Dims {
  int64_t bh, lq, lk, d;  // B*heads, query length, key length, head_dim
};

int64_t Heads(const NodeAttrs& attrs) { return attention::Heads(attrs); }

// Self-attention: qkv (L, B, heads * 3 * D); blocks q, k, v.
Dims SelfDims(const Shape& s, int64_t heads) {
  return {s[1] * heads, s[0], s[0], s[2] / (3 * heads)};
}
template <typename T>
Strided<T> SelfSide(T* qkv, const Shape& s, const Dims& n, int which) {
  return Side(qkv + which * n.d, s[1] * s[2], 3 * n.d);
}

// Encoder-decoder: queries (Lq, B, heads * D), keys_values (Lk, B, heads * 2 * D).
Dims EncDecDims(const Shape& kv, int64_t lq, int64_t heads) {
  return {kv[1] * heads, lq, kv[0], kv[2] / (2 * heads)};
}

template <typename T>
T Scale(const Dims& n) {
  return static_cast<T>(1.0 / std::sqrt(static_cast<double>(n.d)));
}

// The attention scores (B*heads, lq, lk), packed.
template <typename T>
Strided<T> Scores(T* p, const Dims& n) {
  return {p, n.lk, n.lq * n.lk};
}

void ClearForWrite(const OpContext& ctx, OpReq req, const TBlob& b) {
  if (req == OpReq::kWrite || req == OpReq::kInplace)
    WEFT_CUDA_CHECK(cudaMemsetAsync(b.dptr, 0, b.Bytes(), StreamOf(ctx)));
}

// y = scale * q . k^T (per block), under req.
template <typename T>
void QK(const OpContext& ctx, const char* op, const Dims& n, Strided<const T> q, Strided<const T> k,
        T* y, OpReq req) {
  RowGemmStrided<T>(CublasHandle(ctx), op, false, true, n.lq, n.lk, n.d, Scale<T>(n), q, k,
                    T(req == OpReq::kAdd ? 1 : 0), Scores(y, n), n.bh);
}

// dq += scale * dy . k;  dk += scale * dy^T . q (each skipped when null).
template <typename T>
void QKGrad(const OpContext& ctx, const char* op, const Dims& n, const T* dy, Strided<const T> q,
            Strided<const T> k, Strided<T> dq, Strided<T> dk) {
  cublasHandle_t h = CublasHandle(ctx);
  const Strided<const T> g = Scores(dy, n);
  if (dq.p)
    RowGemmStrided<T>(h, op, false, false, n.lq, n.d, n.lk, Scale<T>(n), g, k, T(1), dq, n.bh);
  if (dk.p)
    RowGemmStrided<T>(h, op, true, false, n.lk, n.d, n.lq, Scale<T>(n), g, q, T(1), dk, n.bh);
}

// y += att . v, y (Lq, B, heads * D) cleared by the caller for a write.
template <typename T>
void ValAtt(const OpContext& ctx, const char* op, const Dims& n, const T* att, Strided<const T> v,
            T* y) {
  RowGemmStrided<T>(CublasHandle(ctx), op, false, false, n.lq, n.d, n.lk, T(1), Scores(att, n), v,
                    T(1), Side(y, n.bh * n.d, n.d), n.bh);
}

// datt = dy . v^T under req_att;  dv += att^T . dy (skipped when null).
template <typename T>
void ValAttGrad(const OpContext& ctx, const char* op, const Dims& n, const T* dy, const T* att,
                Strided<const T> v, Strided<T> dv, T* datt, OpReq req_att) {
  cublasHandle_t h = CublasHandle(ctx);
  const Strided<const T> g = Side(dy, n.bh * n.d, n.d);
  if (req_att != OpReq::kNull)
    RowGemmStrided<T>(h, op, false, true, n.lq, n.lk, n.d, T(1), g, v,
                      T(req_att == OpReq::kAdd ? 1 : 0), Scores(datt, n), n.bh);
  if (dv.p)
    RowGemmStrided<T>(h, op, true, false, n.lk, n.d, n.lq, T(1), Scores(att, n), g, T(1), dv, n.bh);
}

void SelfQKCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_contrib_interleaved_matmul_selfatt_qk";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const Shape& s = in[0].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    const T* qkv = in[0].data<T>();
    QK<T>(ctx, op, n, SelfSide(qkv, s, n, 0), SelfSide(qkv, s, n, 1), out[0].data<T>(), req[0]);
  });
  Finish(ctx, op);
}

// in: ograd, qkv; out: qkv_grad.
void SelfQKGradCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_interleaved_matmul_selfatt_qk";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(ctx, req[0], out[0]);
  const Shape& s = in[1].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[1].dtype, op, [&](auto t) {
    using T = decltype(t);
    const T* qkv = in[1].data<T>();
    T* dx = out[0].data<T>();
    QKGrad<T>(ctx, op, n, in[0].data<T>(), SelfSide(qkv, s, n, 0), SelfSide(qkv, s, n, 1),
              SelfSide(dx, s, n, 0), SelfSide(dx, s, n, 1));
  });
  Finish(ctx, op);
}

// in: qkv, attention.
void SelfValAttCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_contrib_interleaved_matmul_selfatt_valatt";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(ctx, req[0], out[0]);
  const Shape& s = in[0].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    ValAtt<T>(ctx, op, n, in[1].data<T>(), SelfSide(in[0].data<T>(), s, n, 2), out[0].data<T>());
  });
  Finish(ctx, op);
}

// in: ograd, qkv, attention; out: qkv_grad, attention_grad.
void SelfValAttGradCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_interleaved_matmul_selfatt_valatt";
  UseDevice(ctx, op);
  ClearForWrite(ctx, req[0], out[0]);
  const Shape& s = in[1].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  DispatchFloat(in[1].dtype, op, [&](auto t) {
    using T = decltype(t);
    Strided<T> dv = SelfSide(out[0].data<T>(), s, n, 2);
    if (req[0] == OpReq::kNull) dv.p = nullptr;
    ValAttGrad<T>(ctx, op, n, in[0].data<T>(), in[2].data<T>(), SelfSide(in[1].data<T>(), s, n, 2),
                  dv, out[1].data<T>(), req[1]);
  });
  Finish(ctx, op);
}

// in: queries, keys_values.
void EncDecQKCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_contrib_interleaved_matmul_encdec_qk";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const Shape &qs = in[0].shape, &kvs = in[1].shape;
  const Dims n = EncDecDims(kvs, qs[0], Heads(attrs));
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    QK<T>(ctx, op, n, Side(in[0].data<T>(), qs[1] * qs[2], n.d),
          Side(in[1].data<T>(), kvs[1] * kvs[2], 2 * n.d), out[0].data<T>(), req[0]);
  });
  Finish(ctx, op);
}

// in: ograd, queries, keys_values; out: queries_grad, keys_values_grad.
void EncDecQKGradCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_interleaved_matmul_encdec_qk";
  UseDevice(ctx, op);
  ClearForWrite(ctx, req[0], out[0]);
  ClearForWrite(ctx, req[1], out[1]);
  const Shape &qs = in[1].shape, &kvs = in[2].shape;
  const Dims n = EncDecDims(kvs, qs[0], Heads(attrs));
  DispatchFloat(in[1].dtype, op, [&](auto t) {
    using T = decltype(t);
    Strided<T> dq = Side(out[0].data<T>(), qs[1] * qs[2], n.d);
    Strided<T> dk = Side(out[1].data<T>(), kvs[1] * kvs[2], 2 * n.d);
    if (req[0] == OpReq::kNull) dq.p = nullptr;
    if (req[1] == OpReq::kNull) dk.p = nullptr;
    QKGrad<T>(ctx, op, n, in[0].data<T>(), Side(in[1].data<T>(), qs[1] * qs[2], n.d),
              Side(in[2].data<T>(), kvs[1] * kvs[2], 2 * n.d), dq, dk);
  });
  Finish(ctx, op);
}

// in: keys_values, attention.
void EncDecValAttCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_contrib_interleaved_matmul_encdec_valatt";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(ctx, req[0], out[0]);
  const Shape& kvs = in[0].shape;
  const Dims n = EncDecDims(kvs, in[1].shape[1], Heads(attrs));
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    ValAtt<T>(ctx, op, n, in[1].data<T>(), Side(in[0].data<T>() + n.d, kvs[1] * kvs[2], 2 * n.d),
              out[0].data<T>());
  });
  Finish(ctx, op);
}

// in: ograd, keys_values, attention; out: keys_values_grad, attention_grad.
void EncDecValAttGradCuda(const OpContext& ctx, const NodeAttrs& attrs,
                          const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                          const std::vector<TBlob>& out) {
  const char* op = "_backward_interleaved_matmul_encdec_valatt";
  UseDevice(ctx, op);
  ClearForWrite(ctx, req[0], out[0]);
  const Shape& kvs = in[1].shape;
  const Dims n = EncDecDims(kvs, in[2].shape[1], Heads(attrs));
  DispatchFloat(in[1].dtype, op, [&](auto t) {
    using T = decltype(t);
    Strided<T> dv = Side(out[0].data<T>() + n.d, kvs[1] * kvs[2], 2 * n.d);
    if (req[0] == OpReq::kNull) dv.p = nullptr;
    ValAttGrad<T>(ctx, op, n, in[0].data<T>(), in[2].data<T>(),
                  Side(in[1].data<T>() + n.d, kvs[1] * kvs[2], 2 * n.d), dv, out[1].data<T>(),
                  req[1]);
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterContribTransformerCuda(KernelRegistry* reg) {
  const struct {
    const char* op;
    KernelFn fn;
  } kernels[] = {{"_contrib_interleaved_matmul_selfatt_qk", SelfQKCuda},
                 {"_backward_interleaved_matmul_selfatt_qk", SelfQKGradCuda},
                 {"_contrib_interleaved_matmul_selfatt_valatt", SelfValAttCuda},
                 {"_backward_interleaved_matmul_selfatt_valatt", SelfValAttGradCuda},
                 {"_contrib_interleaved_matmul_encdec_qk", EncDecQKCuda},
                 {"_backward_interleaved_matmul_encdec_qk", EncDecQKGradCuda},
                 {"_contrib_interleaved_matmul_encdec_valatt", EncDecValAttCuda},
                 {"_backward_interleaved_matmul_encdec_valatt", EncDecValAttGradCuda}};
  for (const auto& k : kernels) reg->Add(k.op, DeviceType::kGPU, {"cuda", 0, k.fn, true});
}

}  // namespace cuda
}  // namespace weft
