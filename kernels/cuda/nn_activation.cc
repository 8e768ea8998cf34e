// CUDA kernels of Activation and _backward_Activation (semantics as
// kernels/cpu/nn_activation.cc): relu, sigmoid and tanh through cuDNN's
// activation functions, softrelu and softsign (which cuDNN lacks) through
// the elementwise map kernel, which also computes every float16 and
// bfloat16 activation (in float). Requests: kAdd through cuDNN's beta.
#include <string>

#include "cuda/cuda_handles.h"
#include "cuda/elemwise.cuh"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// The cuDNN mode of `act`, or false for the types cuDNN lacks and for the
// reduced floats.
bool CudnnMode(const std::string& act, DType t, cudnnActivationMode_t* mode) {
  if (IsReducedFloat(t))
    return false;
  else if (act == "relu")
    *mode = CUDNN_ACTIVATION_RELU;
  else if (act == "sigmoid")
    *mode = CUDNN_ACTIVATION_SIGMOID;
  else if (act == "tanh")
    *mode = CUDNN_ACTIVATION_TANH;
  else
    return false;
  return true;
}

// `act` as map kernel ops: the forward op, the gradient op (a = ograd) and
// whether the gradient reads the output (relu, sigmoid, tanh) or the input.
struct MapAct {
  MapOp fwd, grad;
  bool grad_reads_output;
};
MapAct MapActOf(const std::string& act) {
  if (act == "relu") return {MapOp::kRelu, MapOp::kReluGrad, true};
  if (act == "sigmoid") return {MapOp::kSigmoid, MapOp::kSigmoidGrad, true};
  if (act == "tanh") return {MapOp::kTanh, MapOp::kTanhGrad, true};
  if (act == "softrelu") return {MapOp::kSoftrelu, MapOp::kSoftreluGrad, false};
  return {MapOp::kSoftsign, MapOp::kSoftsignGrad, false};
}

// A flat (1, 1, 1, n) view of every element.
void FlatDesc(TensorDesc* d, const TBlob& b, const char* op) {
  d->Set(b.dtype, 1, 1, 1, b.Size(), op);
}

void ActivationCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "Activation";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const std::string& act = attrs.params.Decoded<ActParams>().act;
  const DType t = in[0].dtype;
  cudnnActivationMode_t mode;
  if (CudnnMode(act, t, &mode)) {
    CudnnType(t, op);
    ActDesc a;
    WEFT_CUDNN_CHECK(cudnnSetActivationDescriptor(a.d, mode, CUDNN_PROPAGATE_NAN, 0.0));
    TensorDesc x;
    FlatDesc(&x, in[0], op);
    const Scalar one(t, 1.0), beta(t, BetaOf(req[0]));
    WEFT_CUDNN_CHECK(cudnnActivationForward(CudnnHandle(ctx), a.d, one.ptr(), x.d, in[0].dptr,
                                            beta.ptr(), x.d, out[0].dptr));
  } else {
    LaunchMap(ctx, MapActOf(act).fwd, t, in[0].dptr, nullptr, 0.0, out[0].dptr, out[0].Size(),
              req[0], op);
  }
  Finish(ctx, op);
}

// in: ograd, data, output.
void ActivationBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                            const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                            const std::vector<TBlob>& out) {
  const char* op = "_backward_Activation";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const std::string& act = attrs.params.Decoded<ActParams>().act;
  const DType t = in[0].dtype;
  cudnnActivationMode_t mode;
  if (CudnnMode(act, t, &mode)) {
    CudnnType(t, op);
    ActDesc a;
    WEFT_CUDNN_CHECK(cudnnSetActivationDescriptor(a.d, mode, CUDNN_PROPAGATE_NAN, 0.0));
    TensorDesc x;
    FlatDesc(&x, in[0], op);
    const Scalar one(t, 1.0), beta(t, BetaOf(req[0]));
    WEFT_CUDNN_CHECK(cudnnActivationBackward(CudnnHandle(ctx), a.d, one.ptr(), x.d, in[2].dptr, x.d,
                                             in[0].dptr, x.d, in[1].dptr, beta.ptr(), x.d,
                                             out[0].dptr));
  } else {
    const MapAct m = MapActOf(act);
    LaunchMap(ctx, m.grad, t, in[0].dptr, in[m.grad_reads_output ? 2 : 1].dptr, 0.0, out[0].dptr,
              out[0].Size(), req[0], op);
  }
  Finish(ctx, op);
}

}  // namespace

void RegisterNNActivationCuda(KernelRegistry* reg) {
  reg->Add("Activation", DeviceType::kGPU, WithReducedFloats({"cudnn", 0, ActivationCuda, true}));
  reg->Add("_backward_Activation", DeviceType::kGPU,
           WithReducedFloats({"cudnn", 0, ActivationBackwardCuda, true}));
}

}  // namespace cuda
}  // namespace weft
