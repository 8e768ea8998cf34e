// CUDA kernels of transpose, Concat, _backward_Concat and SliceChannel
// (semantics as kernels/cpu/shape_ops.cc and kernels/cpu/shape_ops_join.cc,
// float32/float64). transpose is one gather kernel (output element -> input
// offset through the permuted strides). The joins move, around the axis,
// `outer` rows of contiguous chunks: a write is one 2-D device copy per
// part (cudaMemcpy2DAsync), an add one accumulating kernel.
#include <vector>

#include "cuda/cuda_util.h"
#include "shared_params.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

constexpr int kMaxDims = 8;

struct Permutation {
  int ndim = 0;
  int64_t out_stride[kMaxDims] = {};  // row-major strides of the output
  int64_t in_stride[kMaxDims] = {};   // input stride of output axis d
};

template <typename T>
__global__ void TransposeKernel(Permutation p, const T* x, T* y, int64_t n, bool add) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    int64_t rem = i, src = 0;
    for (int d = 0; d < p.ndim; ++d) {
      const int64_t q = rem / p.out_stride[d];
      rem -= q * p.out_stride[d];
      src += q * p.in_stride[d];
    }
    y[i] = add ? y[i] + x[src] : x[src];
  }
}

void Transpose(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "transpose";
  UseDevice(ctx, op);
  const int64_t n = in[0].Size();
  if (req[0] == OpReq::kNull || n == 0) return;
  const Shape& xs = in[0].shape;
  const int nd = xs.ndim();
  if (nd > kMaxDims)
    Fail(StatusCode::kNotImplemented, "operator transpose on the GPU: ", nd, " axes, at most ",
         kMaxDims);
  const Shape& axes = attrs.params.Decoded<TransposeParams>().axes;
  std::vector<int64_t> xstride(nd, 1);
  for (int i = nd - 2; i >= 0; --i) xstride[i] = xstride[i + 1] * xs[i + 1];
  Permutation p;
  p.ndim = nd;
  int64_t so = 1;
  for (int d = nd - 1; d >= 0; --d) {  // empty axes: reversed
    const int src = (!axes.ndim_known() || axes.ndim() == 0)
                        ? nd - 1 - d
                        : static_cast<int>(axes[d] < 0 ? axes[d] + nd : axes[d]);
    p.out_stride[d] = so;
    p.in_stride[d] = xstride[src];
    so *= xs[src];
  }
  DispatchFloat(in[0].dtype, op, [&](auto t) {
    using T = decltype(t);
    TransposeKernel<T><<<GridFor(n), kBlock, 0, StreamOf(ctx)>>>(
        p, in[0].data<T>(), out[0].data<T>(), n, req[0] == OpReq::kAdd);
  });
  Finish(ctx, op);
}

// dst[r * dst_row + k] += src[r * src_row + k] for k < chunk, r < rows.
template <typename T>
__global__ void AddBlocks(const T* src, int64_t src_row, T* dst, int64_t dst_row, int64_t rows,
                          int64_t chunk) {
  const int64_t n = rows * chunk;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t r = i / chunk, k = i - r * chunk;
    dst[r * dst_row + k] += src[r * src_row + k];
  }
}

// Moves `rows` chunks of `chunk` elements (row strides in elements).
template <typename T>
void Blocks(cudaStream_t s, const T* src, int64_t src_row, T* dst, int64_t dst_row, int64_t rows,
            int64_t chunk, OpReq req) {
  if (req == OpReq::kNull || rows * chunk == 0) return;
  if (req == OpReq::kAdd) {
    AddBlocks<T><<<GridFor(rows * chunk), kBlock, 0, s>>>(src, src_row, dst, dst_row, rows, chunk);
  } else {
    WEFT_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_row * sizeof(T), src, src_row * sizeof(T),
                                      chunk * sizeof(T), rows, cudaMemcpyDeviceToDevice, s));
  }
}

int NormAxis(int64_t axis, int nd) { return static_cast<int>(axis < 0 ? axis + nd : axis); }

// Joins `parts` into `whole` along `axis` or, with `split`, copies `whole`
// out into them (req: the whole's when joining, each part's when splitting).
void JoinOrSplit(const OpContext& ctx, const char* op, const std::vector<TBlob>& parts,
                 const TBlob& whole, int axis, bool split, const std::vector<OpReq>& req) {
  const Shape& w = whole.shape;
  const int64_t outer = w.ProdRange(0, axis), inner = w.ProdRange(axis + 1, w.ndim());
  const int64_t wrow = w[axis] * inner;
  cudaStream_t s = StreamOf(ctx);
  DispatchFloat(whole.dtype, op, [&](auto t) {
    using T = decltype(t);
    int64_t off = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      const int64_t chunk = parts[i].shape[axis] * inner;
      T* wp = whole.data<T>() + off;
      if (split)
        Blocks<T>(s, wp, wrow, parts[i].data<T>(), chunk, outer, chunk, req[i]);
      else
        Blocks<T>(s, parts[i].data<T>(), chunk, wp, wrow, outer, chunk, req[0]);
      off += chunk;
    }
  });
  Finish(ctx, op);
}

void ConcatForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, "Concat");
  JoinOrSplit(ctx, "Concat", in, out[0],
              NormAxis(attrs.params.Decoded<ConcatParams>().dim, out[0].shape.ndim()), false, req);
}

// in: ograd, arg0..; out: the args' gradients.
void ConcatBackward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                    const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, "_backward_Concat");
  JoinOrSplit(ctx, "_backward_Concat", out, in[0],
              NormAxis(attrs.params.Decoded<ConcatParams>().dim, in[0].shape.ndim()), true, req);
}

// The outputs may have the split axis squeezed away (squeeze_axis): they
// are viewed with the data's rank, the axis extent divided by the count.
void SplitForward(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                  const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  UseDevice(ctx, "SliceChannel");
  const Shape& d = in[0].shape;
  const int axis = NormAxis(attrs.params.Decoded<SplitAxisParams>().axis, d.ndim());
  Shape part = d;
  part[axis] = d[axis] / static_cast<int64_t>(out.size());
  std::vector<TBlob> parts = out;
  for (TBlob& b : parts) b.shape = part;
  JoinOrSplit(ctx, "SliceChannel", parts, in[0], axis, true, req);
}

}  // namespace

void RegisterShapeOpsJoinCuda(KernelRegistry* reg) {
  reg->Add("transpose", DeviceType::kGPU, {"cuda", 0, Transpose, true});
  reg->Add("Concat", DeviceType::kGPU, {"cuda", 0, ConcatForward, true});
  reg->Add("_backward_Concat", DeviceType::kGPU, {"cuda", 0, ConcatBackward, true});
  reg->Add("SliceChannel", DeviceType::kGPU, {"cuda", 0, SplitForward, true});
}

}  // namespace cuda
}  // namespace weft
