// CUDA kernels of _contrib_box_nms and its backward (semantics in
// core/src/op/vision_box.cc and the CPU kernels, kernels/cpu/vision_box.cc),
// float32 and float64, on the box arithmetic of kernels/box_nms.h.
//
// The forward keys every row by its score (rows that are not candidates
// last), sorts each batch's rows by key with CUB's stable segmented radix
// sort (descending: ties keep the input order, as the CPU's stable_sort),
// and then runs one block per batch: the first min(candidates, topk) rows
// are suppressed greedily in order (each kept row marks, in parallel, the
// later rows it overlaps), and the kept rows are written in order with
// their input indices, the rest of the batch -1. The backward adds each
// output row's gradient to the input row it came from (the rows are
// distinct, so no atomics).
#include <limits>

#include "box_nms.h"
#include "cuda/cuda_util.h"
#include "cuda/segmented_sort.cuh"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

// keys[i] = score of row i when it is a candidate, else `lowest`; idx[i] =
// i; count[b] = batch b's candidates; offsets[b] = b * n.
template <typename T>
__global__ void NMSKeys(NMSGeom g, T lowest, const T* x, T* keys, int64_t* idx, int* count,
                        int* offsets) {
  const int64_t rows = g.batches * g.n;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const T* row = x + i * g.w;
    const bool cand = g.Candidate(row);
    keys[i] = cand ? SortKey(row[g.score]) : lowest;
    idx[i] = i;
    if (cand) atomicAdd(&count[i / g.n], 1);
    if (i % g.n == 0) offsets[i / g.n] = static_cast<int>(i);
    if (i == rows - 1) offsets[g.batches] = static_cast<int>(rows);
  }
}

// One block per batch b: cand (the batch's rows in key order) -> y, rec.
// dead, area and slot: n entries per batch of scratch.
template <typename T>
__global__ void NMSBatches(NMSGeom g, const T* x, const int64_t* cand, const int* count, char* dead,
                           T* area, int64_t* slot, T* y, T* rec) {
  const int64_t b = blockIdx.x, first = b * g.n;
  const int64_t k = count[b] < g.topk ? count[b] : g.topk;
  const int64_t* c = cand + first;
  char* d = dead + first;
  T* a = area + first;
  int64_t* o = slot + first;
  for (int64_t i = threadIdx.x; i < k; i += blockDim.x) {
    d[i] = 0;
    a[i] = BoxArea(x + c[i] * g.w + g.coord, g.in_center);
  }
  for (int64_t r = 0; r < k; ++r) {
    __syncthreads();  // row r's mark is final
    if (d[r]) continue;
    const T* rb = x + c[r] * g.w;
    for (int64_t p = r + 1 + threadIdx.x; p < k; p += blockDim.x)
      if (!d[p] && g.Suppresses(rb, a[r], x + c[p] * g.w, a[p])) d[p] = 1;
  }
  for (int64_t i = threadIdx.x; i < g.n * g.w; i += blockDim.x) y[first * g.w + i] = T(-1);
  for (int64_t i = threadIdx.x; i < g.n; i += blockDim.x) rec[first + i] = T(-1);
  __syncthreads();
  // Each kept row's output slot, in order.
  if (threadIdx.x == 0) {
    int64_t next = 0;
    for (int64_t i = 0; i < k; ++i) o[i] = d[i] ? -1 : next++;
  }
  __syncthreads();
  for (int64_t i = 0; i < k; ++i) {
    if (d[i]) continue;
    const int64_t out = first + o[i];
    for (int64_t j = threadIdx.x; j < g.w; j += blockDim.x) y[out * g.w + j] = x[c[i] * g.w + j];
    if (threadIdx.x == 0) rec[out] = static_cast<T>(c[i]);
  }
  if (g.in_center == g.out_center) return;
  __syncthreads();
  for (int64_t i = first + threadIdx.x; i < first + g.n; i += blockDim.x)
    Reencode(y + i * g.w + g.coord, g.out_center);
}

// topk < 1 (MXNet's quirk): the data unchanged, rec[i] = i.
template <typename T>
__global__ void NMSIdentity(const T* x, T* y, T* rec, int64_t rows, int64_t w) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows * w;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    y[i] = x[i];
    if (i % w == 0) rec[i / w] = static_cast<T>(i / w);
  }
}

void BoxNMSCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const char* op = "_contrib_box_nms";
  UseDevice(ctx, op);
  const NMSGeom g = MakeNMSGeom(attrs.params, in[0].shape);
  const int64_t rows = g.batches * g.n;
  if (rows == 0) return;
  if (rows > std::numeric_limits<int>::max())
    Fail(StatusCode::kNotImplemented, "operator ", op, " on the GPU: ", rows,
         " rows, at most 2^31 - 1");
  cudaStream_t s = StreamOf(ctx);
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    const size_t bytes = static_cast<size_t>(rows * g.w) * sizeof(T);
    // Work on a copy when the output aliases the input (kInplace).
    DeviceBuffer copy(ctx, in[0].dptr == out[0].dptr ? bytes : 0);
    const T* x = in[0].data<T>();
    if (copy.get() != nullptr) {
      WEFT_CUDA_CHECK(cudaMemcpyAsync(copy.get(), x, bytes, cudaMemcpyDeviceToDevice, s));
      x = copy.as<T>();
    }
    T* y = out[0].data<T>();
    T* rec = out[1].data<T>();
    if (g.topk < 1) {
      NMSIdentity<T><<<GridFor(rows * g.w), kBlock, 0, s>>>(x, y, rec, rows, g.w);
      return Finish(ctx, op);
    }
    const int nb = static_cast<int>(g.batches), items = static_cast<int>(rows);
    DeviceBuffer keys(ctx, rows * sizeof(T)), keys_sorted(ctx, rows * sizeof(T));
    DeviceBuffer idx(ctx, rows * sizeof(int64_t)), idx_sorted(ctx, rows * sizeof(int64_t));
    DeviceBuffer count(ctx, g.batches * sizeof(int)), offsets(ctx, (g.batches + 1) * sizeof(int));
    DeviceBuffer dead(ctx, rows), area(ctx, rows * sizeof(T)), slot(ctx, rows * sizeof(int64_t));
    WEFT_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, g.batches * sizeof(int), s));
    NMSKeys<T><<<GridFor(rows), kBlock, 0, s>>>(g, std::numeric_limits<T>::lowest(), x,
                                                keys.as<T>(), idx.as<int64_t>(), count.as<int>(),
                                                offsets.as<int>());
    SortSegmentsDescending(ctx, keys.as<T>(), keys_sorted.as<T>(), idx.as<int64_t>(),
                           idx_sorted.as<int64_t>(), items, nb, offsets.as<int>());
    NMSBatches<T><<<nb, kBlock, 0, s>>>(g, x, idx_sorted.as<int64_t>(), count.as<int>(),
                                        static_cast<char*>(dead.get()), area.as<T>(),
                                        slot.as<int64_t>(), y, rec);
    Finish(ctx, op);  // before the scratch buffers are released
  });
}

// dx[rec[i]] (+)= dy[i] per row; rows with rec -1 add nothing.
template <typename T>
__global__ void NMSBackward(const T* dy, const T* rec, T* dx, int64_t rows, int64_t w) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows * w;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t src = static_cast<int64_t>(rec[i / w]);
    if (src >= 0) dx[src * w + i % w] += dy[i];
  }
}

// in: ograd, the forward's index output; out: data_grad.
void BoxNMSBackwardCuda(const OpContext& ctx, const NodeAttrs&, const std::vector<TBlob>& in,
                        const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_backward_contrib_box_nms";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const Shape& sh = in[0].shape;
  const int64_t w = sh[sh.ndim() - 1], rows = w ? sh.Size() / w : 0;
  cudaStream_t s = StreamOf(ctx);
  if (req[0] != OpReq::kAdd) WEFT_CUDA_CHECK(cudaMemsetAsync(out[0].dptr, 0, out[0].Bytes(), s));
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    if (rows > 0)
      NMSBackward<T><<<GridFor(rows * w), kBlock, 0, s>>>(in[0].data<T>(), in[1].data<T>(),
                                                          out[0].data<T>(), rows, w);
  });
  Finish(ctx, op);
}

}  // namespace

void RegisterVisionBoxCuda(KernelRegistry* reg) {
  reg->Add("_contrib_box_nms", DeviceType::kGPU, {"cuda", 0, BoxNMSCuda, false});
  reg->Add("_backward_contrib_box_nms", DeviceType::kGPU, {"cuda", 0, BoxNMSBackwardCuda, true});
}

}  // namespace cuda
}  // namespace weft
