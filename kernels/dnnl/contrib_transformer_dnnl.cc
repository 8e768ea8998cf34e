// The "dnnl" kernels of the interleaved attention matmuls and their
// gradients (semantics in core/src/op/contrib_transformer.cc): per head
// block one oneDNN sgemm per product on the projections in place, through
// their row strides (the reference kernels, kernels/cpu/contrib_transformer.cc,
// take one dot product per output element). float32; float64 runs the
// reference. The head blocks run in parallel, each sgemm on one thread
// (oneDNN's gemm runs serially inside an OpenMP parallel region).
#include <dnnl.h>

#include "dnnl/dnnl_util.h"
#include "interleaved_attention.h"
#include "weft/dtype.h"

namespace weft {
namespace onednn {

namespace {

// Above the reference ("cpu", 0).
constexpr int kPriority = 20;

using attention::Dims;
using In = attention::Side<const float>;
using Out = attention::Side<float>;

// c (+)= alpha * op(a) op(b), row-major.
void Sgemm(const char* op, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
           const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
           int64_t ldc) {
  const dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (st != dnnl_success)
    Fail(StatusCode::kInternal, op, ": dnnl_sgemm(", m, "x", n, "x", k, ") failed with status ",
         static_cast<int>(st));
}

float BetaOf(OpReq req) { return req == OpReq::kAdd ? 1.0f : 0.0f; }

// y[bh] (+)= q_bh k_bh^T / sqrt(D): (Lq, Lk) per head block.
void Scores(const char* op, const Dims& n, In q, In k, float* y, OpReq req) {
#pragma omp parallel for schedule(static) if (n.bh > 1)
  for (int64_t b = 0; b < n.bh; ++b)
    Sgemm(op, false, true, n.lq, n.lk, n.d, static_cast<float>(n.Scale()), q.at(0, b), q.row,
          k.at(0, b), k.row, BetaOf(req), y + b * n.lq * n.lk, n.lk);
}

// dq_bh += dy[bh] k_bh / sqrt(D);  dk_bh += dy[bh]^T q_bh / sqrt(D) (either
// skipped when its pointer is null).
void ScoresGrad(const char* op, const Dims& n, const float* dy, In q, In k, Out dq, Out dk) {
#pragma omp parallel for schedule(static) if (n.bh > 1)
  for (int64_t b = 0; b < n.bh; ++b) {
    const float* g = dy + b * n.lq * n.lk;
    if (dq.p)
      Sgemm(op, false, false, n.lq, n.d, n.lk, static_cast<float>(n.Scale()), g, n.lk, k.at(0, b),
            k.row, 1.0f, dq.at(0, b), dq.row);
    if (dk.p)
      Sgemm(op, true, false, n.lk, n.d, n.lq, static_cast<float>(n.Scale()), g, n.lk, q.at(0, b),
            q.row, 1.0f, dk.at(0, b), dk.row);
  }
}

// y(., bh) (+)= att[bh] v_bh: y is (Lq, B, heads * D), head block bh at
// column bh * D.
void Values(const char* op, const Dims& n, const float* att, In v, float* y, OpReq req) {
#pragma omp parallel for schedule(static) if (n.bh > 1)
  for (int64_t b = 0; b < n.bh; ++b)
    Sgemm(op, false, false, n.lq, n.d, n.lk, 1.0f, att + b * n.lq * n.lk, n.lk, v.at(0, b), v.row,
          BetaOf(req), y + b * n.d, n.bh * n.d);
}

// datt[bh] (+)= dy_bh v_bh^T;  dv_bh += att[bh]^T dy_bh (skipped when
// dv.p is null); dy is (Lq, B, heads * D) like Values' y.
void ValuesGrad(const char* op, const Dims& n, const float* dy, const float* att, In v, Out dv,
                float* datt, OpReq req_att) {
  const In g = attention::ValuesSide(dy, n);
#pragma omp parallel for schedule(static) if (n.bh > 1)
  for (int64_t b = 0; b < n.bh; ++b) {
    const int64_t a = b * n.lq * n.lk;
    if (req_att != OpReq::kNull)
      Sgemm(op, false, true, n.lq, n.lk, n.d, 1.0f, g.at(0, b), g.row, v.at(0, b), v.row,
            BetaOf(req_att), datt + a, n.lk);
    if (dv.p)
      Sgemm(op, true, false, n.lk, n.d, n.lq, 1.0f, att + a, n.lk, g.at(0, b), g.row, 1.0f,
            dv.at(0, b), dv.row);
  }
}

// A kernel running `fn` on float32 inputs and `ref` on others.
KernelFn Float32Or(KernelFn ref, KernelFn fn) {
  return [ref, fn](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (in[0].dtype != DType::kFloat32) return ref(ctx, attrs, in, req, out);
    fn(ctx, attrs, in, req, out);
  };
}

using attention::ClearForWrite;
using attention::EncDecDims;
using attention::Heads;
using attention::KVSide;
using attention::QuerySide;
using attention::SelfDims;
using attention::SelfSide;

float* Grad(OpReq req, const TBlob& out) { return attention::Grad<float>(req, out); }

constexpr const char* kSelfQK = "_contrib_interleaved_matmul_selfatt_qk";
constexpr const char* kSelfValAtt = "_contrib_interleaved_matmul_selfatt_valatt";
constexpr const char* kEncDecQK = "_contrib_interleaved_matmul_encdec_qk";
constexpr const char* kEncDecValAtt = "_contrib_interleaved_matmul_encdec_valatt";

// in: qkv.
void SelfQK(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
            const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& s = in[0].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  const float* qkv = in[0].data<float>();
  Scores(kSelfQK, n, SelfSide(qkv, s, n, 0), SelfSide(qkv, s, n, 1), out[0].data<float>(), req[0]);
}

// in: ograd, qkv; out: qkv_grad.
void SelfQKGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  ClearForWrite(req[0], out[0]);
  const Shape& s = in[1].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  const float* qkv = in[1].data<float>();
  float* dx = out[0].data<float>();
  ScoresGrad(kSelfQK, n, in[0].data<float>(), SelfSide(qkv, s, n, 0), SelfSide(qkv, s, n, 1),
             SelfSide(dx, s, n, 0), SelfSide(dx, s, n, 1));
}

// in: qkv, attention.
void SelfValAtt(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& s = in[0].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  Values(kSelfValAtt, n, in[1].data<float>(), SelfSide(in[0].data<float>(), s, n, 2),
         out[0].data<float>(), req[0]);
}

// in: ograd, qkv, attention; out: qkv_grad, attention_grad.
void SelfValAttGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ClearForWrite(req[0], out[0]);
  const Shape& s = in[1].shape;
  const Dims n = SelfDims(s, Heads(attrs));
  ValuesGrad(kSelfValAtt, n, in[0].data<float>(), in[2].data<float>(),
             SelfSide(in[1].data<float>(), s, n, 2), SelfSide(Grad(req[0], out[0]), s, n, 2),
             out[1].data<float>(), req[1]);
}

// in: queries, keys_values.
void EncDecQK(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape &qs = in[0].shape, &kvs = in[1].shape;
  const Dims n = EncDecDims(kvs, qs[0], Heads(attrs));
  Scores(kEncDecQK, n, QuerySide(in[0].data<float>(), qs, n),
         KVSide(in[1].data<float>(), kvs, n, 0), out[0].data<float>(), req[0]);
}

// in: ograd, queries, keys_values; out: queries_grad, keys_values_grad.
void EncDecQKGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ClearForWrite(req[0], out[0]);
  ClearForWrite(req[1], out[1]);
  const Shape &qs = in[1].shape, &kvs = in[2].shape;
  const Dims n = EncDecDims(kvs, qs[0], Heads(attrs));
  ScoresGrad(kEncDecQK, n, in[0].data<float>(), QuerySide(in[1].data<float>(), qs, n),
             KVSide(in[2].data<float>(), kvs, n, 0), QuerySide(Grad(req[0], out[0]), qs, n),
             KVSide(Grad(req[1], out[1]), kvs, n, 0));
}

// in: keys_values, attention.
void EncDecValAtt(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  if (req[0] == OpReq::kNull) return;
  const Shape& kvs = in[0].shape;
  const Dims n = EncDecDims(kvs, in[1].shape[1], Heads(attrs));
  Values(kEncDecValAtt, n, in[1].data<float>(), KVSide(in[0].data<float>(), kvs, n, 1),
         out[0].data<float>(), req[0]);
}

// in: ograd, keys_values, attention; out: keys_values_grad, attention_grad.
void EncDecValAttGrad(const OpContext&, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                      const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  ClearForWrite(req[0], out[0]);
  const Shape& kvs = in[1].shape;
  const Dims n = EncDecDims(kvs, in[2].shape[1], Heads(attrs));
  ValuesGrad(kEncDecValAtt, n, in[0].data<float>(), in[2].data<float>(),
             KVSide(in[1].data<float>(), kvs, n, 1), KVSide(Grad(req[0], out[0]), kvs, n, 1),
             out[1].data<float>(), req[1]);
}

}  // namespace

void RegisterContribTransformerDnnl(KernelRegistry* reg) {
  InitDnnl();
  const struct {
    const char* op;
    KernelFn fn;
  } kernels[] = {{kSelfQK, SelfQK},
                 {"_backward_interleaved_matmul_selfatt_qk", SelfQKGrad},
                 {kSelfValAtt, SelfValAtt},
                 {"_backward_interleaved_matmul_selfatt_valatt", SelfValAttGrad},
                 {kEncDecQK, EncDecQK},
                 {"_backward_interleaved_matmul_encdec_qk", EncDecQKGrad},
                 {kEncDecValAtt, EncDecValAtt},
                 {"_backward_interleaved_matmul_encdec_valatt", EncDecValAttGrad}};
  for (const auto& k : kernels)
    reg->Add(k.op, DeviceType::kCPU,
             {"dnnl", kPriority, Float32Or(ReferenceKernel(*reg, k.op), k.fn), true});
}

}  // namespace onednn
}  // namespace weft
