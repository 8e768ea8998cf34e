// oneDNN kernels of FullyConnected and _backward_FullyConnected (float32).
// Inference in a bound call runs oneDNN's inner-product primitive on the
// weights packed once into the layout it prefers (CachedLayout: repacked
// only when the weight array changes), bias included: with few rows (a
// language model's decoder, batch-1 serving) an sgemm call spends most of
// its time packing the weight matrix again. Training and one-off calls run
// the same three products as the OpenBLAS kernels (kernels/cpu/nn_dense.cc)
// on oneDNN's row-major sgemm, which uses AVX-512 where the CPU has it
// (OpenBLAS is held to AVX2 by OPENBLAS_CORETYPE=Haswell here). The bias add
// and bias gradient are the same loops. float64 runs the "cpu" kernel.
// bfloat16 (where the CPU has AVX-512) runs the inner-product primitive in
// every forward (bfloat16 in, float32 accumulation, bfloat16 out); its
// gradient and req=add compute in float32 (ReferenceInFloat32).
// _fused_FullyConnected (pass::FuseDenseActivation) runs the same inference
// primitive with its relu or GELU (erf) as an eltwise post-op; its one-off
// calls run the reference (kernels/cpu/inference_ops.cc).
#include <memory>
#include <unordered_map>
#include <vector>

#include "cpu/cpu_util.h"
#include "cpu/fused_dense_act.h"
#include "dnnl/dnnl_util.h"
#include "weft/dtype.h"
#include "nn_geometry.h"

namespace weft {
namespace onednn {

namespace {

// C (m x n, row-major) = op(A) . op(B) + beta * C.
void Sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b,
           float beta, float* c) {
  const dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, ta ? m : k,
                                      b, tb ? k : n, beta, c, n);
  if (st != dnnl_success)
    Fail(StatusCode::kInternal, "FullyConnected (dnnl): dnnl_sgemm(", m, "x", n, "x", k,
         ") failed with status ", static_cast<int>(st));
}

struct IpPrim {
  dnnl::inner_product_forward::primitive_desc pd;
  dnnl::inner_product_forward prim;
};

using Act = cpu::FusedDenseAct::Kind;

// The inference primitive for act((m x k) . (n x k)^T [+ bias]), or null
// when oneDNN refuses it.
std::shared_ptr<IpPrim> InferencePrim(int64_t m, int64_t n, int64_t k, bool bias,
                                      dnnl::memory::data_type dt, Act act) {
  static PrimitiveCache<IpPrim> cache;
  return cache.Get({m, n, k, bias, static_cast<int64_t>(dt), static_cast<int64_t>(act)}, [&] {
    const dnnl::memory::desc wei({n, k}, dt, dnnl::memory::format_tag::any);
    dnnl::inner_product_forward::desc d(dnnl::prop_kind::forward_inference, PlainDesc({m, k}, dt),
                                        wei, bias ? PlainDesc({n}, dt) : dnnl::memory::desc(),
                                        PlainDesc({m, n}, dt));
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (act != Act::kNone) {
      dnnl::post_ops po;
      po.append_eltwise(
          1.0f,
          act == Act::kRelu ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_gelu_erf,
          0.0f, 0.0f);
      attr.set_post_ops(po);
    }
    dnnl::inner_product_forward::primitive_desc pd(d, attr, Engine());
    return std::make_shared<IpPrim>(IpPrim{pd, dnnl::inner_product_forward(pd)});
  });
}

// The inner-product path: true when it ran, false for the sgemm path. float32
// takes it for a bound, non-training call writing its output; bfloat16 for
// every call writing its output. `act` is applied to the output.
bool ForwardPacked(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   OpReq req, const TBlob& out, Act act = Act::kNone) {
  const bool bf16 = in[0].dtype == DType::kBFloat16;
  if (req == OpReq::kAdd) return false;
  if (!bf16 && (ctx.is_train || !ctx.state || !ctx.input_versions)) return false;
  int64_t m, k;
  const FCParams& fc = attrs.params.Decoded<FCParams>();
  fc.Dims(in[0].shape, &m, &k);
  const int64_t n = fc.num_hidden;
  const bool bias = in.size() > 2;
  const dnnl::memory::data_type dt = DataType(in[0].dtype);
  const auto p = InferencePrim(m, n, k, bias, dt, act);
  if (!p) return false;
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, BlobMemory(PlainDesc({m, k}, dt), in[0])},
      {DNNL_ARG_WEIGHTS,
       CachedLayout(ctx, 1, BlobMemory(PlainDesc({n, k}, dt), in[1]), p->pd.weights_desc(), 0)},
      {DNNL_ARG_DST, BlobMemory(PlainDesc({m, n}, dt), out)}};
  if (bias) args[DNNL_ARG_BIAS] = BlobMemory(PlainDesc({n}, dt), in[2]);
  Execute(p->prim, p->pd, std::move(args));
  return true;
}

void Forward(const NodeAttrs& attrs, const std::vector<TBlob>& in, OpReq req, const TBlob& out) {
  int64_t m, k;
  const FCParams& fc = attrs.params.Decoded<FCParams>();
  fc.Dims(in[0].shape, &m, &k);
  const int64_t n = fc.num_hidden;
  float* y = out.data<float>();
  const bool add = req == OpReq::kAdd;
  if (in.size() > 2) {
    const float* b = in[2].data<float>();
    cpu::ParallelFor(m, [&](int64_t i) {
      float* yi = y + i * n;
      if (add) {
        for (int64_t j = 0; j < n; ++j) yi[j] += b[j];
      } else {
        for (int64_t j = 0; j < n; ++j) yi[j] = b[j];
      }
    });
    Sgemm(false, true, m, n, k, in[0].data<float>(), in[1].data<float>(), 1.0f, y);
  } else {
    Sgemm(false, true, m, n, k, in[0].data<float>(), in[1].data<float>(), add ? 1.0f : 0.0f, y);
  }
}

// in: ograd (M x N), data (M x K), weight (N x K); out: dX, dW[, db].
void Backward(const NodeAttrs& attrs, const std::vector<TBlob>& in, const std::vector<OpReq>& req,
              const std::vector<TBlob>& out) {
  int64_t m, k;
  const FCParams& fc = attrs.params.Decoded<FCParams>();
  fc.Dims(in[1].shape, &m, &k);
  const int64_t n = fc.num_hidden;
  const float* dy = in[0].data<float>();
  if (req[0] != OpReq::kNull)
    Sgemm(false, false, m, k, n, dy, in[2].data<float>(), req[0] == OpReq::kAdd ? 1.0f : 0.0f,
          out[0].data<float>());
  if (req[1] != OpReq::kNull)
    Sgemm(true, false, n, k, m, dy, in[1].data<float>(), req[1] == OpReq::kAdd ? 1.0f : 0.0f,
          out[1].data<float>());
  if (out.size() > 2 && req[2] != OpReq::kNull) {
    float* db = out[2].data<float>();
    std::vector<float> acc(static_cast<size_t>(n), 0.0f);
    float* a = acc.data();
    for (int64_t i = 0; i < m; ++i) {
      const float* g = dy + i * n;
      for (int64_t j = 0; j < n; ++j) a[j] += g[j];
    }
    for (int64_t j = 0; j < n; ++j) cpu::Store(req[2], &db[j], a[j]);
  }
}

}  // namespace

void RegisterNNDenseDnnl(KernelRegistry* reg) {
  InitDnnl();
  KernelFn ref_fwd = ReferenceKernel(*reg, "FullyConnected");
  KernelFn ref_bwd = ReferenceKernel(*reg, "_backward_FullyConnected");
  auto fwd = [ref_fwd](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    const DType t = in[0].dtype;
    if (t == DType::kBFloat16 && ForwardPacked(ctx, attrs, in, req[0], out[0])) return;
    if (t != DType::kFloat32) return ReferenceInFloat32(ref_fwd, ctx, attrs, in, req, out);
    if (!ForwardPacked(ctx, attrs, in, req[0], out[0])) Forward(attrs, in, req[0], out[0]);
  };
  auto bwd = [ref_bwd](const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    if (in[0].dtype != DType::kFloat32)
      return ReferenceInFloat32(ref_bwd, ctx, attrs, in, req, out);
    Backward(attrs, in, req, out);
  };
  KernelFn ref_fused = ReferenceKernel(*reg, "_fused_FullyConnected");
  auto fused = [ref_fused](const OpContext& ctx, const NodeAttrs& attrs,
                           const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                           const std::vector<TBlob>& out) {
    if (req[0] == OpReq::kNull) return;
    const Act act = attrs.params.Decoded<cpu::FusedDenseAct>().kind;
    const DType t = in[0].dtype;
    if ((t == DType::kFloat32 || t == DType::kBFloat16) &&
        ForwardPacked(ctx, attrs, in, req[0], out[0], act))
      return;
    ReferenceInFloat32(ref_fused, ctx, attrs, in, req, out);
  };
  // bfloat16 where oneDNN runs it (AVX-512); float32 between Casts elsewhere.
  const uint32_t reduced = BFloat16Supported() ? Kernel::kBFloat16Bit : 0;
  reg->Add("FullyConnected", DeviceType::kCPU, WithReducedFloats({"dnnl", 20, fwd, true}, reduced));
  reg->Add("_fused_FullyConnected", DeviceType::kCPU,
           WithReducedFloats({"dnnl", 20, fused, true}, reduced));
  reg->Add("_backward_FullyConnected", DeviceType::kCPU,
           WithReducedFloats({"dnnl", 20, bwd, true}, reduced));
}

}  // namespace onednn
}  // namespace weft
