// CUDA kernels of LayerNorm, GroupNorm and their gradients (semantics as
// core/src/op/nn_layernorm.cc and kernels/cpu/nn_layernorm.cc), float32
// and float64.
//
// The data is viewed as (outer, C, inner) around the axis; each of the
// outer * inner rows (C elements, stride inner; contiguous for the default
// last axis) is handled by one block: the mean and then the biased variance
// (two passes, as the CPU) are block reductions accumulated in double.
// The forward writes y = (x - mean) * rstd * gamma + beta and, with
// output_mean_var, the mean and std = sqrt(var + eps) of each row. The
// backward recomputes the statistics, writes dx = rstd * (dy * gamma -
// (sum(dy * gamma) + xhat * sum(dy * gamma * xhat)) / C) per row, and
// reduces dgamma = sum(dy * xhat) and dbeta = sum(dy) over the rows: blocks
// of 32 columns by 8 row lanes write per-chunk partial sums that a last
// kernel adds in a fixed order, so results do not depend on scheduling.
// Every output honours kNull/kWrite/kInplace/kAdd.
//
// GroupNorm is the same row computation on contiguous rows (the N *
// num_groups groups, each C / num_groups * spatial long) with a scalar
// gamma/beta per row (gamma[row % num_groups], MXNet 1.x's per-group
// parameters). Its backward keeps each row's sum(dy) and sum(dy * xhat),
// which give dx and, added over the rows of each group in a fixed order,
// dgamma and dbeta.
#include <algorithm>

#include "cuda/cuda_util.h"
#include "cuda/reduced_float.cuh"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

struct LNGeom {
  int64_t outer = 1, C = 1, inner = 1;
  __host__ __device__ int64_t Rows() const { return outer * inner; }
  // Index of element 0 of `row`; element c is at Base(row) + c * inner.
  __device__ int64_t Base(int64_t row) const { return (row / inner) * C * inner + row % inner; }
};

LNGeom MakeGeom(const NodeAttrs& attrs, const Shape& s) {
  const int64_t a = attrs.params.Decoded<LayerNormParams>().axis;
  const int ax = static_cast<int>(a < 0 ? a + s.ndim() : a);
  return {s.ProdRange(0, ax), s[ax], s.ProdRange(ax + 1, s.ndim())};
}

// Sum of v over the block (blockDim.x a multiple of 32, at most 1024),
// returned to every thread; `scratch` holds 32 doubles.
__device__ double BlockSum(double v, double* scratch) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();  // the previous call's result has been read
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x >> 5) ? scratch[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) scratch[0] = v;
  }
  __syncthreads();
  return scratch[0];
}

// Mean and 1 / sqrt(biased variance + eps) of one row, two-pass in double.
template <typename T>
__device__ void RowMoments(const LNGeom& g, const T* xr, double eps, double* scratch, double* mean,
                           double* rstd) {
  double s = 0;
  for (int64_t c = threadIdx.x; c < g.C; c += blockDim.x) s += static_cast<double>(xr[c * g.inner]);
  const double m = BlockSum(s, scratch) / static_cast<double>(g.C);
  double q = 0;
  for (int64_t c = threadIdx.x; c < g.C; c += blockDim.x) {
    const double d = static_cast<double>(xr[c * g.inner]) - m;
    q += d * d;
  }
  *mean = m;
  *rstd = 1.0 / sqrt(BlockSum(q, scratch) / static_cast<double>(g.C) + eps);
}

// `groups` 0: gamma and beta per column (LayerNorm); else one per row,
// gamma[row % groups] (GroupNorm).
template <typename T>
__global__ void LayerNormFwd(LNGeom g, int64_t groups, double eps, const T* x, const T* gamma,
                             const T* beta, T* y, int req_y, T* mean_out, int req_m, T* std_out,
                             int req_s) {
  __shared__ double scratch[32];
  for (int64_t row = blockIdx.x; row < g.Rows(); row += gridDim.x) {
    const int64_t base = g.Base(row);
    double m, r;
    RowMoments(g, x + base, eps, scratch, &m, &r);
    if (threadIdx.x == 0 && mean_out) {
      StoreReq(req_m, &mean_out[row], static_cast<T>(m));
      StoreReq(req_s, &std_out[row], static_cast<T>(1.0 / r));
    }
    if (req_y == static_cast<int>(OpReq::kNull)) continue;
    const T tm = static_cast<T>(m), tr = static_cast<T>(r);
    for (int64_t c = threadIdx.x; c < g.C; c += blockDim.x) {
      const int64_t i = base + c * g.inner, p = groups ? row % groups : c;
      StoreReq(req_y, &y[i], (x[i] - tm) * tr * gamma[p] + beta[p]);
    }
  }
}

// Per row: dx (when requested) and the statistics for the parameter sums.
template <typename T>
__global__ void LayerNormBwdData(LNGeom g, double eps, const T* dy, const T* x, const T* gamma,
                                 T* dx, int req_dx, double* mean, double* rstd) {
  __shared__ double scratch[32];
  for (int64_t row = blockIdx.x; row < g.Rows(); row += gridDim.x) {
    const int64_t base = g.Base(row);
    double m, r;
    RowMoments(g, x + base, eps, scratch, &m, &r);
    if (threadIdx.x == 0) {
      mean[row] = m;
      rstd[row] = r;
    }
    if (req_dx == static_cast<int>(OpReq::kNull)) continue;
    double a = 0, b = 0;  // sum(dy * gamma), sum(dy * gamma * xhat)
    for (int64_t c = threadIdx.x; c < g.C; c += blockDim.x) {
      const int64_t i = base + c * g.inner;
      const double dyg = static_cast<double>(dy[i]) * gamma[c];
      a += dyg;
      b += dyg * (static_cast<double>(x[i]) - m) * r;
    }
    a = BlockSum(a, scratch);
    b = BlockSum(b, scratch);
    for (int64_t c = threadIdx.x; c < g.C; c += blockDim.x) {
      const int64_t i = base + c * g.inner;
      const double xh = (static_cast<double>(x[i]) - m) * r;
      StoreReq(req_dx, &dx[i],
               static_cast<T>(r * (static_cast<double>(dy[i]) * gamma[c] - (a + xh * b) / g.C)));
    }
  }
}

// GroupNorm, per row: sums[row] = sum(dy), sums[rows + row] = sum(dy *
// xhat), and dx (when requested) = rstd * gamma_r * (dy - (sum(dy) + xhat *
// sum(dy * xhat)) / C).
template <typename T>
__global__ void GroupNormBwdData(LNGeom g, int64_t groups, double eps, const T* dy, const T* x,
                                 const T* gamma, T* dx, int req_dx, double* sums) {
  __shared__ double scratch[32];
  for (int64_t row = blockIdx.x; row < g.Rows(); row += gridDim.x) {
    const int64_t base = g.Base(row);
    double m, r;
    RowMoments(g, x + base, eps, scratch, &m, &r);
    double a = 0, b = 0;
    for (int64_t c = threadIdx.x; c < g.C; c += blockDim.x) {
      const double d = dy[base + c];
      a += d;
      b += d * (static_cast<double>(x[base + c]) - m) * r;
    }
    a = BlockSum(a, scratch);
    b = BlockSum(b, scratch);
    if (threadIdx.x == 0) {
      sums[row] = a;
      sums[g.Rows() + row] = b;
    }
    if (req_dx == static_cast<int>(OpReq::kNull)) continue;
    const double k = r * static_cast<double>(gamma[row % groups]);
    for (int64_t c = threadIdx.x; c < g.C; c += blockDim.x) {
      const double xh = (static_cast<double>(x[base + c]) - m) * r;
      StoreReq(req_dx, &dx[base + c],
               static_cast<T>(k * (static_cast<double>(dy[base + c]) - (a + xh * b) / g.C)));
    }
  }
}

// GroupNorm: dgamma[p] and dbeta[p] add the row sums of rows p, p + groups,
// ... in order.
template <typename T>
__global__ void GroupNormParamStore(int64_t rows, int64_t groups, const double* sums, T* dgamma,
                                    int req_g, T* dbeta, int req_b) {
  for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < groups;
       p += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    double sg = 0, sb = 0;
    for (int64_t row = p; row < rows; row += groups) {
      sb += sums[row];
      sg += sums[rows + row];
    }
    StoreReq(req_g, &dgamma[p], static_cast<T>(sg));
    StoreReq(req_b, &dbeta[p], static_cast<T>(sb));
  }
}

constexpr int kCols = 32, kLanes = 8;

// Block (kCols, kLanes) over columns blockIdx.x * kCols + threadIdx.x: the
// sums of dy * xhat and dy over this chunk's rows go to part[chunk][0][c]
// and part[chunk][1][c] (chunk = blockIdx.y).
template <typename T>
__global__ void LayerNormParamPartials(LNGeom g, const T* dy, const T* x, const double* mean,
                                       const double* rstd, double* part) {
  __shared__ double sg[kLanes][kCols + 1], sb[kLanes][kCols + 1];
  const int64_t c = blockIdx.x * static_cast<int64_t>(kCols) + threadIdx.x;
  double a = 0, b = 0;
  if (c < g.C)
    for (int64_t row = blockIdx.y * static_cast<int64_t>(kLanes) + threadIdx.y; row < g.Rows();
         row += static_cast<int64_t>(gridDim.y) * kLanes) {
      const int64_t i = g.Base(row) + c * g.inner;
      const double d = dy[i];
      a += d * (static_cast<double>(x[i]) - mean[row]) * rstd[row];
      b += d;
    }
  sg[threadIdx.y][threadIdx.x] = a;
  sb[threadIdx.y][threadIdx.x] = b;
  __syncthreads();
  if (threadIdx.y == 0 && c < g.C) {
    for (int k = 1; k < kLanes; ++k) {
      a += sg[k][threadIdx.x];
      b += sb[k][threadIdx.x];
    }
    part[(2 * blockIdx.y) * g.C + c] = a;
    part[(2 * blockIdx.y + 1) * g.C + c] = b;
  }
}

template <typename T>
__global__ void LayerNormParamStore(int64_t C, int chunks, const double* part, T* dgamma, int req_g,
                                    T* dbeta, int req_b) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < C;
       c += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    double a = 0, b = 0;
    for (int k = 0; k < chunks; ++k) {
      a += part[2 * k * C + c];
      b += part[(2 * k + 1) * C + c];
    }
    StoreReq(req_g, &dgamma[c], static_cast<T>(a));
    StoreReq(req_b, &dbeta[c], static_cast<T>(b));
  }
}

int R(OpReq r) { return static_cast<int>(r); }
unsigned RowBlocks(int64_t rows) { return static_cast<unsigned>(std::min<int64_t>(rows, 1 << 20)); }

// The forward of LayerNorm (groups 0) and GroupNorm over g's rows.
void NormForward(const OpContext& ctx, const char* op, const LNGeom& g, int64_t groups, double eps,
                 const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                 const std::vector<TBlob>& out) {
  if (g.Rows() == 0) return;
  const bool stats = out.size() == 3;
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    LayerNormFwd<T><<<RowBlocks(g.Rows()), kBlock, 0, StreamOf(ctx)>>>(
        g, groups, eps, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), out[0].data<T>(),
        R(req[0]), stats ? out[1].data<T>() : nullptr, stats ? R(req[1]) : 0,
        stats ? out[2].data<T>() : nullptr, stats ? R(req[2]) : 0);
  });
  Finish(ctx, op);
}

void LayerNormCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, "LayerNorm");
  NormForward(ctx, "LayerNorm", MakeGeom(attrs, in[0].shape), 0,
              attrs.params.Decoded<LayerNormParams>().eps, in, req, out);
}

// in: ograd, data, gamma; out: data_grad, gamma_grad, beta_grad.
void LayerNormBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                           const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                           const std::vector<TBlob>& out) {
  const char* op = "_backward_LayerNorm";
  UseDevice(ctx, op);
  const LNGeom g = MakeGeom(attrs, in[1].shape);
  const double eps = attrs.params.Decoded<LayerNormParams>().eps;
  const int64_t rows = g.Rows();
  if (g.C == 0) return;
  cudaStream_t s = StreamOf(ctx);
  const int chunks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(64, (rows + kLanes * 16 - 1) / (kLanes * 16))));
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    DeviceBuffer moments(ctx, 2 * std::max<int64_t>(rows, 1) * sizeof(double));
    DeviceBuffer part(ctx, 2 * chunks * g.C * sizeof(double));
    double* mean = moments.as<double>();
    double* rstd = mean + rows;
    if (rows > 0)
      LayerNormBwdData<T><<<RowBlocks(rows), kBlock, 0, s>>>(
          g, eps, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), out[0].data<T>(), R(req[0]),
          mean, rstd);
    const dim3 grid(static_cast<unsigned>((g.C + kCols - 1) / kCols), chunks);
    LayerNormParamPartials<T><<<grid, dim3(kCols, kLanes), 0, s>>>(
        g, in[0].data<T>(), in[1].data<T>(), mean, rstd, part.as<double>());
    LayerNormParamStore<T><<<GridFor(g.C), kBlock, 0, s>>>(
        g.C, chunks, part.as<double>(), out[1].data<T>(), R(req[1]), out[2].data<T>(), R(req[2]));
    Finish(ctx, op);  // before the scratch buffers are released
  });
}

// GroupNorm's rows as an LNGeom: N * num_groups contiguous rows.
LNGeom GroupGeom(const NodeAttrs& attrs, const Shape& s, int64_t* groups) {
  *groups = attrs.params.Decoded<GroupNormParams>().groups;
  const int64_t rows = s[0] * *groups;
  return {rows, rows ? s.Size() / rows : 0, 1};
}

void GroupNormCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, "GroupNorm");
  int64_t groups;
  const LNGeom g = GroupGeom(attrs, in[0].shape, &groups);
  NormForward(ctx, "GroupNorm", g, groups, attrs.params.Decoded<GroupNormParams>().eps, in, req,
              out);
}

// in: ograd, data, gamma; out: data_grad, gamma_grad, beta_grad.
void GroupNormBackwardCuda(const OpContext& ctx, const NodeAttrs& attrs,
                           const std::vector<TBlob>& in, const std::vector<OpReq>& req,
                           const std::vector<TBlob>& out) {
  const char* op = "_backward_GroupNorm";
  UseDevice(ctx, op);
  int64_t groups;
  const LNGeom g = GroupGeom(attrs, in[1].shape, &groups);
  const double eps = attrs.params.Decoded<GroupNormParams>().eps;
  const int64_t rows = g.Rows();
  cudaStream_t s = StreamOf(ctx);
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    DeviceBuffer sums(ctx, 2 * std::max<int64_t>(rows, 1) * sizeof(double));
    if (rows > 0)
      GroupNormBwdData<T><<<RowBlocks(rows), kBlock, 0, s>>>(
          g, groups, eps, in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), out[0].data<T>(),
          R(req[0]), sums.as<double>());
    GroupNormParamStore<T><<<GridFor(groups), kBlock, 0, s>>>(
        rows, groups, sums.as<double>(), out[1].data<T>(), R(req[1]), out[2].data<T>(), R(req[2]));
    Finish(ctx, op);  // before the scratch buffer is released
  });
}

}  // namespace

void RegisterNNLayerNormCuda(KernelRegistry* reg) {
  reg->Add("LayerNorm", DeviceType::kGPU, {"cuda", 0, LayerNormCuda, true});
  reg->Add("_backward_LayerNorm", DeviceType::kGPU, {"cuda", 0, LayerNormBackwardCuda, true});
  reg->Add("GroupNorm", DeviceType::kGPU, {"cuda", 0, GroupNormCuda, true});
  reg->Add("_backward_GroupNorm", DeviceType::kGPU, {"cuda", 0, GroupNormBackwardCuda, true});
}

}  // namespace cuda
}  // namespace weft
