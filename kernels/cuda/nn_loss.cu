// CUDA kernels of SoftmaxOutput and _backward_SoftmaxOutput (semantics as
// kernels/cpu/nn_loss.cc). Forward is cuDNN's accurate softmax over the
// (outer, n, inner, 1) view of the normalised axis. Backward copies class
// labels to the host and plans the gradient there with the CPU kernel's
// PlanSoftmaxOutputGrad (kernels/softmax_view.h: validation, normaliser,
// smoothing), then one kernel writes every element. label_grad is zeroed.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/cuda_handles.h"
#include "softmax_view.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

struct GradArgs {
  int64_t n, inner, total;
  int ignore;
  bool use_ignore, out_grad, probability;
  int req;
};

template <typename T>
__global__ void SoftmaxOutputGradKernel(GradArgs a, const T* dy, const T* y, const T* label, T k,
                                        T on, T off, T* dx) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.total;
       e += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    T g;
    if (a.probability) {
      g = (y[e] - label[e]) * k;
    } else {
      const int64_t line = (e / (a.n * a.inner)) * a.inner + e % a.inner;
      const int64_t c = (e / a.inner) % a.n;
      const double l = static_cast<double>(label[line]);
      const bool skip = a.use_ignore && static_cast<int>(l) == a.ignore;
      g = skip ? T(0) : (y[e] - (c == static_cast<int64_t>(l) ? on : off)) * k;
    }
    if (a.out_grad) g *= dy[e];
    if (a.req == static_cast<int>(OpReq::kAdd))
      dx[e] += g;
    else
      dx[e] = g;
  }
}

void SoftmaxOutputCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "SoftmaxOutput";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const SoftmaxView v = SoftmaxOutputView(attrs.params, in[0].shape);
  const DType t = in[0].dtype;
  TensorDesc d;
  d.Set(t, v.outer, v.n, v.inner, 1, op);
  const Scalar one(t, 1.0), beta(t, BetaOf(req[0]));
  WEFT_CUDNN_CHECK(cudnnSoftmaxForward(CudnnHandle(ctx), CUDNN_SOFTMAX_ACCURATE,
                                       CUDNN_SOFTMAX_MODE_CHANNEL, one.ptr(), d.d, in[0].dptr,
                                       beta.ptr(), d.d, out[0].dptr));
  Finish(ctx, op);
}

// in: ograd, output, label; out: data_grad, label_grad (zeros).
void SoftmaxOutputBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                               const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                               const std::vector<TBlob>& out) {
  const char* op = "_backward_SoftmaxOutput";
  UseDevice(ctx, op);
  cudaStream_t s = StreamOf(ctx);
  DispatchFloat(in[1].dtype, op, [&](auto tag) {
    using T = decltype(tag);
    // Class labels are read on the host (validation and the "valid" count).
    std::vector<T> label;
    if (in[2].shape != in[1].shape && in[2].Size() > 0) {
      label.resize(static_cast<size_t>(in[2].Size()));
      WEFT_CUDA_CHECK(
          cudaMemcpyAsync(label.data(), in[2].dptr, in[2].Bytes(), cudaMemcpyDeviceToHost, s));
      WEFT_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    const SoftmaxOutputGrad g =
        PlanSoftmaxOutputGrad(attrs.params, in[1].shape, in[2].shape, label.data());
    const int64_t total = out[0].Size();
    if (req[0] != OpReq::kNull && total > 0) {
      const GradArgs a{g.v.n,        g.v.inner,  total,         g.ignore,
                       g.use_ignore, g.out_grad, g.probability, static_cast<int>(req[0])};
      SoftmaxOutputGradKernel<T><<<GridFor(total), kBlock, 0, s>>>(
          a, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), static_cast<T>(g.k),
          static_cast<T>(g.on), static_cast<T>(g.off), out[0].data<T>());
    }
    if ((req[1] == OpReq::kWrite || req[1] == OpReq::kInplace) && out[1].Size() > 0)
      WEFT_CUDA_CHECK(cudaMemsetAsync(out[1].dptr, 0, out[1].Bytes(), s));
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterNNLossCuda(KernelRegistry* reg) {
  reg->Add("SoftmaxOutput", DeviceType::kGPU, {"cudnn", 0, SoftmaxOutputCuda, true});
  reg->Add("_backward_SoftmaxOutput", DeviceType::kGPU,
           {"cuda", 0, SoftmaxOutputBackwardCuda, true});
}

}  // namespace cuda
}  // namespace weft
