// CUDA kernels of _contrib_ROIAlign and _backward_ROIAlign (semantics in
// core/src/op/vision_roi.cc), float32 and float64, on the taps of
// kernels/roi_align_taps.h that the CPU kernels average too. The forward
// runs one thread per output element; the backward one thread per output
// gradient element, scattering into data_grad with atomicAdd (so the order
// of the additions, and the last bits of float32 sums, vary from run to
// run). With aligned=True the ROIs are first copied to the host and checked
// as on the CPU.
#include <vector>

#include "cuda/cuda_util.h"
#include "roi_align_taps.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// The tap parameters for data (N, C, H, W) and `cout` output channels.
AlignParams AlignParamsOf(const NodeAttrs& attrs, const Shape& data, int64_t cout) {
  const ROIParams& r = attrs.params.Decoded<ROIParams>();
  const AlignSampling& q = attrs.params.Decoded<AlignSampling>();
  AlignParams a;
  a.h = data[2];
  a.w = data[3];
  a.ph = r.ph;
  a.pw = r.pw;
  a.cout = cout;
  a.sample_ratio = q.sample_ratio;
  a.scale = static_cast<float>(r.scale);
  a.aligned = q.aligned;
  a.position_sensitive = q.position_sensitive;
  return a;
}

// The aligned=True check of the CPU kernel, on a host copy of the ROIs.
template <typename T>
void CheckROIsOnHost(const OpContext& ctx, const AlignParams& p, const TBlob& rois) {
  if (!p.aligned) return;
  std::vector<T> host(static_cast<size_t>(rois.Size()));
  WEFT_CUDA_CHECK(cudaMemcpyAsync(host.data(), rois.dptr, host.size() * sizeof(T),
                                  cudaMemcpyDeviceToHost, StreamOf(ctx)));
  WEFT_CUDA_CHECK(cudaStreamSynchronize(StreamOf(ctx)));
  CheckAlignedROIs(p, rois.shape[0], host.data());
}

// Output element o = ((n * cout + c) * ph + i) * pw + j.
template <typename T>
__global__ void AlignForward(AlignParams p, const T* x, const T* rois, T* y, int64_t total,
                             bool add) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t j = o % p.pw, i = (o / p.pw) % p.ph, c = (o / (p.pw * p.ph)) % p.cout;
    const int64_t n = o / (p.pw * p.ph * p.cout);
    T acc = 0;
    ForEachBinTap(p, rois + n * 5, c, i, j, [&](int64_t at, T wt) { acc += wt * x[at]; });
    y[o] = add ? static_cast<T>(y[o] + acc) : acc;
  }
}

template <typename T>
__global__ void AlignBackward(AlignParams p, const T* dy, const T* rois, T* dx, int64_t total) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < total;
       o += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t j = o % p.pw, i = (o / p.pw) % p.ph, c = (o / (p.pw * p.ph)) % p.cout;
    const int64_t n = o / (p.pw * p.ph * p.cout);
    const T g = dy[o];
    ForEachBinTap(p, rois + n * 5, c, i, j, [&](int64_t at, T wt) { atomicAdd(&dx[at], g * wt); });
  }
}

// in: data, rois; out: (R, cout, ph, pw).
void ROIAlignCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_contrib_ROIAlign";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const AlignParams p = AlignParamsOf(attrs, in[0].shape, out[0].shape[1]);
  const int64_t total = out[0].Size();
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    CheckROIsOnHost<T>(ctx, p, in[1]);
    if (total > 0)
      AlignForward<T><<<GridFor(total), kBlock, 0, StreamOf(ctx)>>>(
          p, in[0].data<T>(), in[1].data<T>(), out[0].data<T>(), total, req[0] == OpReq::kAdd);
  });
  Finish(ctx, op);
}

// in: ograd, rois, data; out: data_grad, rois_grad (zeros).
void ROIAlignBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                          const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                          const std::vector<TBlob>& out) {
  const char* op = "_backward_ROIAlign";
  UseDevice(ctx, op);
  cudaStream_t s = StreamOf(ctx);
  if (req[1] != OpReq::kNull && req[1] != OpReq::kAdd)
    WEFT_CUDA_CHECK(cudaMemsetAsync(out[1].dptr, 0, out[1].Bytes(), s));
  if (req[0] == OpReq::kNull) return Finish(ctx, op);
  if (req[0] != OpReq::kAdd) WEFT_CUDA_CHECK(cudaMemsetAsync(out[0].dptr, 0, out[0].Bytes(), s));
  const AlignParams p = AlignParamsOf(attrs, in[2].shape, in[0].shape[1]);
  const int64_t total = in[0].Size();
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    if (total > 0)
      AlignBackward<T><<<GridFor(total), kBlock, 0, s>>>(p, in[0].data<T>(), in[1].data<T>(),
                                                         out[0].data<T>(), total);
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterVisionROICuda(KernelRegistry* reg) {
  reg->Add("_contrib_ROIAlign", DeviceType::kGPU, {"cuda", 0, ROIAlignCuda, true});
  reg->Add("_backward_ROIAlign", DeviceType::kGPU, {"cuda", 0, ROIAlignBackwardCuda, true});
}

}  // namespace cuda
}  // namespace weft
