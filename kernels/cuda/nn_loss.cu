// CUDA kernels of SoftmaxOutput and _backward_SoftmaxOutput (semantics as
// kernels/cpu/nn_loss.cc). Forward is cuDNN's accurate softmax over the
// (outer, n, inner, 1) view of the normalised axis. Backward copies the
// labels to the host (one value per softmax line) to validate them and
// count the valid ones exactly as the reference does, then one kernel
// writes (y - smoothed onehot) * grad_scale / normaliser, times ograd
// with out_grad; ignored lines get 0. label_grad is zeroed.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/cuda_handles.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

struct View {
  int64_t outer = 1, n = 1, inner = 1;
};

View AxisView(const Shape& s, int64_t axis) {
  View v;
  if (axis < 0) axis += s.ndim();
  const int a = static_cast<int>(axis);
  v.outer = s.ProdRange(0, a);
  v.n = s[a];
  v.inner = s.ProdRange(a + 1, s.ndim());
  return v;
}

View SoftmaxOutputView(const ParamValues& p, const Shape& s) {
  if (p.GetBool("multi_output")) return AxisView(s, 1);
  if (p.GetBool("preserve_shape")) return AxisView(s, -1);
  View v;
  v.outer = s[0];
  v.n = s.ProdRange(1, s.ndim());
  return v;
}

struct GradArgs {
  int64_t n, inner, total;
  double ignore;
  bool use_ignore, out_grad;
  int req;
};

template <typename T>
__global__ void SoftmaxOutputGrad(GradArgs a, const T* dy, const T* y, const T* label, T k, T on,
                                  T off, T* dx) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.total;
       e += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t line = (e / (a.n * a.inner)) * a.inner + e % a.inner;
    const int64_t c = (e / a.inner) % a.n;
    const double l = static_cast<double>(label[line]);
    const bool skip = a.use_ignore && l == a.ignore;
    T g = skip ? T(0) : (y[e] - (c == static_cast<int64_t>(l) ? on : off)) * k;
    if (a.out_grad) g *= dy[e];
    if (a.req == static_cast<int>(OpReq::kAdd)) dx[e] += g;
    else dx[e] = g;
  }
}

void SoftmaxOutputCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                       const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "SoftmaxOutput";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull || out[0].Size() == 0) return;
  const View v = SoftmaxOutputView(attrs.params, in[0].shape);
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
  const ParamValues& p = attrs.params;
  const View v = SoftmaxOutputView(p, in[1].shape);
  const double scale = p.GetFloat("grad_scale");
  const double ignore = p.GetFloat("ignore_label");
  const bool use_ignore = p.GetBool("use_ignore");
  const std::string& norm = p.GetString("normalization");
  const double alpha = p.GetFloat("smooth_alpha");
  cudaStream_t s = StreamOf(ctx);
  DispatchFloat(in[1].dtype, op, [&](auto tag) {
    using T = decltype(tag);
    const int64_t lines = v.outer * v.inner, n = v.n;
    std::vector<T> label(static_cast<size_t>(lines));
    if (lines > 0) {
      WEFT_CUDA_CHECK(cudaMemcpyAsync(label.data(), in[2].dptr, lines * sizeof(T),
                                      cudaMemcpyDeviceToHost, s));
      WEFT_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    double valid = 0;
    for (int64_t i = 0; i < lines; ++i) {
      const double l = static_cast<double>(label[i]);
      if (use_ignore && l == ignore) continue;
      valid += 1;
      const int64_t li = static_cast<int64_t>(l);
      if (l != static_cast<double>(li) || li < 0 || li >= n)
        Fail(StatusCode::kInvalidArgument, "operator SoftmaxOutput: label ", l, " at position ", i,
             " is not a class index in [0, ", n, ")");
    }
    double normaliser = 1;
    if (norm == "batch") normaliser = static_cast<double>(in[1].shape[0]);
    else if (norm == "valid") normaliser = std::max(valid, 1.0);
    const T k = static_cast<T>(scale / normaliser);
    const T off = n > 1 ? static_cast<T>(alpha / static_cast<double>(n - 1)) : T(0);
    const T on = static_cast<T>(1 - alpha);
    const int64_t total = out[0].Size();
    if (req[0] != OpReq::kNull && total > 0) {
      const GradArgs a{n, v.inner, total, ignore, use_ignore, p.GetBool("out_grad"),
                       static_cast<int>(req[0])};
      SoftmaxOutputGrad<T><<<GridFor(total), kBlock, 0, s>>>(
          a, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), k, on, off, out[0].data<T>());
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
