// The "dnnl" kernels of RNN and _backward_RNN: inference on oneDNN's RNN
// primitives (kernels/dnnl/nn_rnn_infer_dnnl.h), else the CPU layer sweeps
// (kernels/cpu/nn_rnn.h) with their float32 products on oneDNN's sgemm
// (JIT kernels for the machine's widest vectors), which is several times
// faster here than the OpenBLAS build the "cpu" backend links; float64
// keeps cblas_dgemm. Same results up to float32 rounding.
#include <dnnl.h>

#include "cpu/nn_rnn.h"
#include "dnnl/dnnl_util.h"
#include "dnnl/nn_rnn_infer_dnnl.h"

namespace weft {
namespace onednn {

namespace {

void DnnlSgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const dnnl_status_t st =
      dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  if (st != dnnl_success)
    Fail(StatusCode::kInternal, "RNN: dnnl_sgemm failed (status ", static_cast<int>(st), ")");
}

}  // namespace

void RegisterNNRnnDnnl(KernelRegistry* reg) {
  InitDnnl();
  auto fwd = [](const OpContext& c, const NodeAttrs& a, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    cpu::RnnConfig cfg = cpu::RnnConfigOf(a, in[0].shape);
    cfg.sgemm = DnnlSgemm;
    if (RnnInferenceCovers(c, cfg, in, req) && RnnInference(c, cfg, in, req, out)) return;
    cpu::RNNForwardKernel(c, a, in, req, out, DnnlSgemm);
  };
  auto bwd = [](const OpContext& c, const NodeAttrs& a, const std::vector<TBlob>& in,
                const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
    cpu::RNNBackwardKernel(c, a, in, req, out, DnnlSgemm);
  };
  reg->Add("RNN", DeviceType::kCPU, {"dnnl", 20, fwd, true});
  reg->Add("_backward_RNN", DeviceType::kCPU, {"dnnl", 20, bwd, true});
}

}  // namespace onednn
}  // namespace weft
