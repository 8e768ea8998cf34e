// CUDA kernels of dot, batch_dot and their gradients (semantics as
// kernels/cpu/dot.cc): the GEMM views and gradient formulas are the shared
// ones of kernels/cpu/dot.h, computed with cuBLAS; batch_dot's batch is one
// strided-batched call per product rather than one call per element;
// float16/bfloat16 on tensor cores accumulating in float (RowGemm).
#include "cpu/dot.h"
#include "cuda/cublas_gemm.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// The GEMM functor of cpu::GemmForward/GemmBackward: every operand there
// is a whole packed matrix, so each call's batch of `batch` products has
// the packed strides RowGemm assumes.
struct CublasGemm {
  cublasHandle_t h;
  const char* op;
  int64_t batch;
  template <typename T>
  void operator()(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc) const {
    if (lda != (ta ? m : k) || ldb != (tb ? k : n) || ldc != n)
      Fail(StatusCode::kInternal, "operator ", op, " (cuBLAS): operands are not packed matrices");
    if (m * n == 0) return;
    RowGemm(h, op, ta, tb, m, n, k, Acc<T>(1), a, b, static_cast<Acc<T>>(beta), c, batch);
  }
};

cpu::GemmDims DimsOf(const NodeAttrs& attrs, bool batched, const Shape& lhs, const Shape& rhs) {
  return batched ? cpu::BatchDotDims(attrs.params, lhs, rhs) : cpu::DotDims(attrs.params, lhs, rhs);
}

template <bool kBatched>
void Forward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
             const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = kBatched ? "batch_dot" : "dot";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  cpu::GemmDims d = DimsOf(attrs, kBatched, in[0].shape, in[1].shape);
  const CublasGemm gemm{CublasHandle(ctx), op, d.batch};
  d.batch = 1;  // the functor runs the whole batch per call
  DispatchDeviceFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    if (d.k == 0) {  // an empty inner dimension: the product is zero
      if (req[0] != OpReq::kAdd)
        WEFT_CUDA_CHECK(cudaMemsetAsync(out[0].dptr, 0, out[0].Bytes(), StreamOf(ctx)));
      return;
    }
    cpu::GemmForward(gemm, d, in[0].data<T>(), in[1].data<T>(), req[0], out[0].data<T>());
  });
  Finish(ctx, op);
}

// in: ograd, lhs, rhs; out: lhs grad, rhs grad.
template <bool kBatched>
void Backward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
              const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = kBatched ? "_backward_batch_dot" : "_backward_dot";
  UseDevice(ctx, op);
  cpu::GemmDims d = DimsOf(attrs, kBatched, in[1].shape, in[2].shape);
  const CublasGemm gemm{CublasHandle(ctx), op, d.batch};
  d.batch = 1;
  DispatchDeviceFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    if (d.n == 0 || d.m == 0) {  // no ograd elements: both gradients are zero
      for (int i = 0; i < 2; ++i)
        if (req[i] != OpReq::kNull && req[i] != OpReq::kAdd && out[i].Bytes() > 0)
          WEFT_CUDA_CHECK(cudaMemsetAsync(out[i].dptr, 0, out[i].Bytes(), StreamOf(ctx)));
      return;
    }
    cpu::GemmBackward(gemm, d, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), req[0], req[1],
                      out[0].data<T>(), out[1].data<T>());
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterDotCuda(KernelRegistry* reg) {
  reg->Add("dot", DeviceType::kGPU, WithReducedFloats({"cublas", 0, Forward<false>, true}));
  reg->Add("batch_dot", DeviceType::kGPU, WithReducedFloats({"cublas", 0, Forward<true>, true}));
  reg->Add("_backward_dot", DeviceType::kGPU,
           WithReducedFloats({"cublas", 0, Backward<false>, true}));
  reg->Add("_backward_batch_dot", DeviceType::kGPU,
           WithReducedFloats({"cublas", 0, Backward<true>, true}));
}

}  // namespace cuda
}  // namespace weft
