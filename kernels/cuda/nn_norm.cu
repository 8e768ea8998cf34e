// CUDA kernels of BatchNorm and _backward_BatchNorm (semantics as
// core/src/op/nn_norm.cc and kernels/cpu/nn_norm.cc).
//
// The data is viewed as (outer, C, inner, 1) around the channel axis and
// normalised by cuDNN's spatial batch norm (any axis maps to this view).
// Training with batch statistics: cudnnBatchNormalizationForwardTraining
// with a fresh running buffer and factor 1 yields the batch mean and the
// unbiased batch variance; a small kernel turns that into the biased
// variance the reference uses (times (m-1)/m, 0 when m = 1) and applies
// MXNet's update moving = moving * momentum + batch * (1 - momentum).
// Inference / use_global_stats: cudnnBatchNormalizationForwardInference
// with the moving statistics. fix_gamma passes a scale of ones. The
// gradient with batch statistics is cudnnBatchNormalizationBackward; with
// fixed statistics (inference or use_global_stats) it is dx = gamma *
// invstd * dy plus per-channel sums, computed by the kernels below (cuDNN
// only differentiates through batch statistics). Requests: kAdd through
// cuDNN's beta for the data, and the small store kernels for the rest.
// float16/bfloat16 data (type D) takes float32 parameters and statistics
// (P = Acc<D>, MXNet's BatchNorm dtypes), as cuDNN's batch norm does.
#include "cuda/cuda_handles.h"
#include "cuda/reduced_float.cuh"
#include "nn_geometry.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

__device__ inline int64_t GridStart() {
  return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
}
__device__ inline int64_t GridStep() { return static_cast<int64_t>(blockDim.x) * gridDim.x; }

template <typename T>
__global__ void Fill(T* p, int64_t n, T v) {
  for (int64_t i = GridStart(); i < n; i += GridStep()) p[i] = v;
}

// From cuDNN's (mean, unbiased var) of the batch: updates the moving
// statistics and stores the (mean, biased var) outputs when requested.
template <typename T>
__global__ void UpdateMoving(int64_t c, double m, double momentum, const T* mean,
                             const T* var_unbiased, T* moving_mean, T* moving_var, T* mean_out,
                             int req_mean, T* var_out, int req_var) {
  for (int64_t i = GridStart(); i < c; i += GridStep()) {
    const double mu = mean[i];
    const double v = m > 1 ? static_cast<double>(var_unbiased[i]) * (m - 1) / m : 0.0;
    moving_mean[i] = static_cast<T>(moving_mean[i] * momentum + mu * (1 - momentum));
    moving_var[i] = static_cast<T>(moving_var[i] * momentum + v * (1 - momentum));
    if (mean_out) StoreReq(req_mean, &mean_out[i], static_cast<T>(mu));
    if (var_out) StoreReq(req_var, &var_out[i], static_cast<T>(v));
  }
}

// dst[i] (req-aware) = scale * src[i], or 0 when src is null.
template <typename T>
__global__ void StoreVec(int64_t n, const T* src, T* dst, int req) {
  for (int64_t i = GridStart(); i < n; i += GridStep()) StoreReq(req, &dst[i], src ? src[i] : T(0));
}

// Element i of data type D in double.
template <typename D>
__device__ inline double Wide(const D* p, int64_t i) {
  return static_cast<double>(static_cast<Acc<D>>(p[i]));
}

// Per channel (one block each): sums of dy and dy * (x - mean), in double.
template <typename D, typename P>
__global__ void ChannelSums(const BNGeom g, const D* dy, const D* x, const P* mean, double* sums) {
  __shared__ double s_dy[kBlock], s_dyx[kBlock];
  const int64_t ch = blockIdx.x;
  const double mu = mean[ch];
  double a = 0, b = 0;
  for (int64_t j = threadIdx.x; j < g.Count(); j += blockDim.x) {
    const int64_t idx = ((j / g.inner) * g.c + ch) * g.inner + j % g.inner;
    a += Wide(dy, idx);
    b += Wide(dy, idx) * (Wide(x, idx) - mu);
  }
  s_dy[threadIdx.x] = a;
  s_dyx[threadIdx.x] = b;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s_dy[threadIdx.x] += s_dy[threadIdx.x + w];
      s_dyx[threadIdx.x] += s_dyx[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    sums[2 * ch] = s_dy[0];
    sums[2 * ch + 1] = s_dyx[0];
  }
}

// Fixed statistics: dx = gamma * invstd * dy (req-aware; a reduced float
// adds in float and rounds once).
template <typename D, typename P>
__global__ void GlobalStatsDx(const BNGeom g, const D* dy, const P* gamma, const P* var, D* dx,
                              int req) {
  const int64_t total = g.outer * g.c * g.inner;
  for (int64_t i = GridStart(); i < total; i += GridStep()) {
    const int64_t ch = (i / g.inner) % g.c;
    const double gm = g.fix_gamma ? 1.0 : static_cast<double>(gamma[ch]);
    StoreReq(req, &dx[i],
             static_cast<Acc<D>>(gm / sqrt(static_cast<double>(var[ch]) + g.eps) * Wide(dy, i)));
  }
}

// Fixed statistics: dgamma = invstd * sum(dy (x - mean)) (0 with fix_gamma),
// dbeta = sum(dy).
template <typename T>
__global__ void GlobalStatsParams(const BNGeom g, const double* sums, const T* var, T* dgamma,
                                  int req_g, T* dbeta, int req_b) {
  for (int64_t ch = GridStart(); ch < g.c; ch += GridStep()) {
    const double invstd = 1.0 / sqrt(static_cast<double>(var[ch]) + g.eps);
    StoreReq(req_g, &dgamma[ch], static_cast<T>(g.fix_gamma ? 0.0 : sums[2 * ch + 1] * invstd));
    StoreReq(req_b, &dbeta[ch], static_cast<T>(sums[2 * ch]));
  }
}

// The data's descriptor and the parameters' (float32 for float16/bfloat16
// data).
struct BNDescs {
  TensorDesc x, p;
  BNDescs(const BNGeom& g, DType t, const char* op) {
    x.Set(t, g.outer, g.c, g.inner, 1, op);
    p.Set(IsReducedFloat(t) ? DType::kFloat32 : t, 1, g.c, 1, 1, op);
  }
};

int R(OpReq r) { return static_cast<int>(r); }

void BatchNormCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "BatchNorm";
  UseDevice(ctx, op);
  const BNGeom g = MakeBNGeom(ctx, attrs.params, in[0].shape);
  const DType t = in[0].dtype;
  if (g.Count() == 0 || g.c == 0) return;
  BNDescs d(g, t, op);
  cudnnHandle_t h = CudnnHandle(ctx);
  cudaStream_t s = StreamOf(ctx);
  const bool stats = out.size() == 3;
  DispatchDeviceFloat(t, op, [&](auto v) {
    using T = Acc<decltype(v)>;  // the parameters' type
    const int64_t C = g.c;
    DeviceBuffer ones(ctx, g.fix_gamma ? C * sizeof(T) : 0);
    if (g.fix_gamma) Fill<T><<<GridFor(C), kBlock, 0, s>>>(ones.as<T>(), C, T(1));
    const void* scale = g.fix_gamma ? ones.get() : in[1].dptr;
    DeviceBuffer y_scratch(ctx, req[0] == OpReq::kNull ? out[0].Bytes() : 0);
    void* y = req[0] == OpReq::kNull ? y_scratch.get() : out[0].dptr;
    const Scalar one(t, 1.0), beta(t, BetaOf(req[0]));
    T* moving_mean = in[3].data<T>();
    T* moving_var = in[4].data<T>();
    if (g.batch_stats) {
      DeviceBuffer batch(ctx, 2 * C * sizeof(T));
      WEFT_CUDA_CHECK(cudaMemsetAsync(batch.get(), 0, 2 * C * sizeof(T), s));
      T* mean = batch.as<T>();
      T* var = mean + C;
      WEFT_CUDNN_CHECK(cudnnBatchNormalizationForwardTraining(
          h, CUDNN_BATCHNORM_SPATIAL, one.ptr(), beta.ptr(), d.x.d, in[0].dptr, d.x.d, y, d.p.d,
          scale, in[2].dptr, 1.0, mean, var, g.eps, nullptr, nullptr));
      UpdateMoving<T><<<GridFor(C), kBlock, 0, s>>>(
          C, static_cast<double>(g.Count()), g.momentum, mean, var, moving_mean, moving_var,
          stats ? out[1].data<T>() : nullptr, stats ? R(req[1]) : 0,
          stats ? out[2].data<T>() : nullptr, stats ? R(req[2]) : 0);
      Finish(ctx, op);  // before the scratch buffers are released
    } else {
      WEFT_CUDNN_CHECK(cudnnBatchNormalizationForwardInference(
          h, CUDNN_BATCHNORM_SPATIAL, one.ptr(), beta.ptr(), d.x.d, in[0].dptr, d.x.d, y, d.p.d,
          scale, in[2].dptr, moving_mean, moving_var, g.eps));
      if (stats) {
        StoreVec<T><<<GridFor(C), kBlock, 0, s>>>(C, moving_mean, out[1].data<T>(), R(req[1]));
        StoreVec<T><<<GridFor(C), kBlock, 0, s>>>(C, moving_var, out[2].data<T>(), R(req[2]));
      }
      Finish(ctx, op);
    }
  });
}

// in: ograd, data, gamma, moving_mean, moving_var; out: data_grad,
// gamma_grad, beta_grad.
void BatchNormBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                           const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                           const std::vector<TBlob>& out) {
  const char* op = "_backward_BatchNorm";
  UseDevice(ctx, op);
  const BNGeom g = MakeBNGeom(ctx, attrs.params, in[1].shape);
  const DType t = in[0].dtype;
  if (g.Count() == 0 || g.c == 0) return;
  cudaStream_t s = StreamOf(ctx);
  DispatchDeviceFloat(t, op, [&](auto v) {
    using D = decltype(v);
    using T = Acc<D>;  // the parameters' type
    const int64_t C = g.c;
    if (g.batch_stats) {
      BNDescs d(g, t, op);
      cudnnHandle_t h = CudnnHandle(ctx);
      DeviceBuffer ones(ctx, g.fix_gamma ? C * sizeof(T) : 0);
      if (g.fix_gamma) Fill<T><<<GridFor(C), kBlock, 0, s>>>(ones.as<T>(), C, T(1));
      DeviceBuffer dx_scratch(ctx, req[0] == OpReq::kNull ? out[0].Bytes() : 0);
      DeviceBuffer dparams(ctx, 2 * C * sizeof(T));
      T* dgamma = dparams.as<T>();
      T* dbeta = dgamma + C;
      const Scalar one(t, 1.0), zero(t, 0.0), beta(t, BetaOf(req[0]));
      WEFT_CUDNN_CHECK(cudnnBatchNormalizationBackward(
          h, CUDNN_BATCHNORM_SPATIAL, one.ptr(), beta.ptr(), one.ptr(), zero.ptr(), d.x.d,
          in[1].dptr, d.x.d, in[0].dptr, d.x.d,
          req[0] == OpReq::kNull ? dx_scratch.get() : out[0].dptr, d.p.d,
          g.fix_gamma ? ones.get() : in[2].dptr, dgamma, dbeta, g.eps, nullptr, nullptr));
      StoreVec<T><<<GridFor(C), kBlock, 0, s>>>(C, g.fix_gamma ? nullptr : dgamma, out[1].data<T>(),
                                                R(req[1]));
      StoreVec<T><<<GridFor(C), kBlock, 0, s>>>(C, dbeta, out[2].data<T>(), R(req[2]));
      Finish(ctx, op);
    } else {
      const T* mean = in[3].data<T>();
      const T* var = in[4].data<T>();
      DeviceBuffer sums(ctx, 2 * C * sizeof(double));
      ChannelSums<D, T><<<static_cast<unsigned>(C), kBlock, 0, s>>>(
          g, in[0].data<D>(), in[1].data<D>(), mean, sums.as<double>());
      if (req[0] != OpReq::kNull)
        GlobalStatsDx<D, T><<<GridFor(g.outer * C * g.inner), kBlock, 0, s>>>(
            g, in[0].data<D>(), in[2].data<T>(), var, out[0].data<D>(), R(req[0]));
      GlobalStatsParams<T><<<GridFor(C), kBlock, 0, s>>>(
          g, sums.as<double>(), var, out[1].data<T>(), R(req[1]), out[2].data<T>(), R(req[2]));
      Finish(ctx, op);
    }
  });
}

}  // namespace

void RegisterNNNormCuda(KernelRegistry* reg) {
  reg->Add("BatchNorm", DeviceType::kGPU, WithReducedFloats({"cudnn", 0, BatchNormCuda, true}));
  reg->Add("_backward_BatchNorm", DeviceType::kGPU,
           WithReducedFloats({"cudnn", 0, BatchNormBackwardCuda, true}));
}

}  // namespace cuda
}  // namespace weft
