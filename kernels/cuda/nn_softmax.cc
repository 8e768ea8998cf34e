// cuDNN kernels of softmax, log_softmax, SoftmaxActivation and their
// gradients (semantics as kernels/cpu/nn_softmax.cc). The array is viewed
// as (outer, n, inner, 1) with the normalised axis as cuDNN's channel axis
// (CUDNN_SOFTMAX_MODE_CHANNEL), so any axis needs no transpose. The
// temperature T divides the input: x / T is formed first by
// cudnnTransformTensor into scratch memory (skipped when T = 1); the
// gradients are cuDNN's scaled by alpha = 1 / T. Softmax is
// CUDNN_SOFTMAX_ACCURATE (max-subtracted), log_softmax CUDNN_SOFTMAX_LOG.
// Requests: kAdd through cuDNN's beta.
#include "cuda/cuda_handles.h"
#include "softmax_view.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

struct View {
  int64_t outer = 1, n = 1, inner = 1;
};

View AxisView(const Shape& s, int64_t axis) {
  View v;
  if (s.ndim() == 0) return v;
  if (axis < 0) axis += s.ndim();
  const int a = static_cast<int>(axis);
  v.outer = s.ProdRange(0, a);
  v.n = s[a];
  v.inner = s.ProdRange(a + 1, s.ndim());
  return v;
}

View ViewOf(const NodeAttrs& attrs, const Shape& s) {
  const SoftmaxParams& q = attrs.params.Decoded<SoftmaxParams>();
  const std::string& name = attrs.op->name;
  if (name == "SoftmaxActivation" || name == "_backward_SoftmaxActivation") {
    if (q.channel) return AxisView(s, 1);
    View v;
    v.outer = s[0];
    v.n = s.ProdRange(1, s.ndim());
    return v;
  }
  return AxisView(s, q.axis);
}

double Temperature(const NodeAttrs& attrs) {
  return attrs.params.Decoded<SoftmaxParams>().temperature;
}

template <bool kLog>
void ForwardCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                 const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = attrs.op->name.c_str();
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const double temp = Temperature(attrs);
  if (temp == 0)
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name,
         ": temperature must be nonzero");
  const View v = ViewOf(attrs, in[0].shape);
  const DType t = in[0].dtype;
  TensorDesc d;
  d.Set(t, v.outer, v.n, v.inner, 1, op);
  cudnnHandle_t h = CudnnHandle(ctx);
  const Scalar one(t, 1.0), zero(t, 0.0), beta(t, BetaOf(req[0]));
  DeviceBuffer scaled(ctx, temp != 1.0 ? in[0].Bytes() : 0);
  const void* x = in[0].dptr;
  if (temp != 1.0) {
    const Scalar inv(t, 1.0 / temp);
    WEFT_CUDNN_CHECK(
        cudnnTransformTensor(h, inv.ptr(), d.d, in[0].dptr, zero.ptr(), d.d, scaled.get()));
    x = scaled.get();
  }
  WEFT_CUDNN_CHECK(cudnnSoftmaxForward(h, kLog ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                       CUDNN_SOFTMAX_MODE_CHANNEL, one.ptr(), d.d, x, beta.ptr(),
                                       d.d, out[0].dptr));
  Finish(ctx, op);
}

// in: ograd, output.
template <bool kLog>
void BackwardCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = attrs.op->name.c_str();
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const double temp = Temperature(attrs);
  if (temp == 0)
    Fail(StatusCode::kInvalidArgument, "operator ", attrs.op->name,
         ": temperature must be nonzero");
  const View v = ViewOf(attrs, in[0].shape);
  const DType t = in[0].dtype;
  TensorDesc d;
  d.Set(t, v.outer, v.n, v.inner, 1, op);
  const Scalar alpha(t, 1.0 / temp), beta(t, BetaOf(req[0]));
  WEFT_CUDNN_CHECK(cudnnSoftmaxBackward(CudnnHandle(ctx),
                                        kLog ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                        CUDNN_SOFTMAX_MODE_CHANNEL, alpha.ptr(), d.d, in[1].dptr,
                                        d.d, in[0].dptr, beta.ptr(), d.d, out[0].dptr));
  Finish(ctx, op);
}

}  // namespace

void RegisterNNSoftmaxCuda(KernelRegistry* reg) {
  reg->Add("softmax", DeviceType::kGPU, {"cudnn", 0, ForwardCuda<false>, true});
  reg->Add("log_softmax", DeviceType::kGPU, {"cudnn", 0, ForwardCuda<true>, true});
  reg->Add("SoftmaxActivation", DeviceType::kGPU, {"cudnn", 0, ForwardCuda<false>, true});
  reg->Add("_backward_softmax", DeviceType::kGPU, {"cudnn", 0, BackwardCuda<false>, true});
  reg->Add("_backward_log_softmax", DeviceType::kGPU, {"cudnn", 0, BackwardCuda<true>, true});
  reg->Add("_backward_SoftmaxActivation", DeviceType::kGPU,
           {"cudnn", 0, BackwardCuda<false>, true});
}

}  // namespace cuda
}  // namespace weft
