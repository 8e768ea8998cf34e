// CUDA kernels of _contrib_MultiBoxPrior and _contrib_MultiBoxDetection
// (semantics in core/src/op/vision_multibox.cc and the CPU kernels,
// kernels/cpu/vision_multibox.cc), float32 and float64, on the per-anchor
// arithmetic of kernels/multibox.h.
//
// Prior: one thread per anchor. Detection: every anchor is decoded in
// parallel and keyed by its score (anchors without a detection last); CUB's
// stable segmented radix sort orders each batch by key (ties keep the
// anchor order, as the CPU's stable_sort of the anchor-ordered rows); then
// one block per batch writes the valid rows in anchor order, overwrites the
// first min(valid, nms_topk) with the sorted ones (the rest get class -1
// and keep their unsorted values, MXNet's quirk) and suppresses greedily in
// order, each kept row marking the later rows it overlaps in parallel.
#include <limits>

#include "cuda/cuda_util.h"
#include "cuda/segmented_sort.cuh"
#include "multibox.h"
#include "weft/dtype.h"

namespace weft {
namespace cuda {

namespace {

template <typename T>
__global__ void PriorKernel(PriorParams p, T* y, int64_t anchors, bool add) {
  for (int64_t a = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; a < anchors;
       a += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int k = static_cast<int>(a % p.PerCell());
    const int64_t cell = a / p.PerCell();
    float v[4];
    p.Anchor(static_cast<int>(cell / p.w), static_cast<int>(cell % p.w), k, v);
    for (int e = 0; e < 4; ++e) {
      T* dst = y + a * 4 + e;
      *dst = add ? static_cast<T>(*dst + static_cast<T>(v[e])) : static_cast<T>(v[e]);
    }
  }
}

void PriorCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
               const std::vector<OpReq>& req, const std::vector<TBlob>& out) {
  const char* op = "_contrib_MultiBoxPrior";
  UseDevice(ctx, op);
  if (req[0] == OpReq::kNull) return;
  const PriorParams p = MakePriorParams(attrs, in[0].shape, op);
  const int64_t anchors = static_cast<int64_t>(p.h) * p.w * p.PerCell();
  DispatchFloat(out[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    if (anchors > 0)
      PriorKernel<T><<<GridFor(anchors), kBlock, 0, StreamOf(ctx)>>>(p, out[0].data<T>(), anchors,
                                                                     req[0] == OpReq::kAdd);
  });
  Finish(ctx, op);
}

// Per anchor (b, i): rows[(b * na + i) * 6] its decoded row, keys its score
// when it has one (else `lowest`), idx = i, count[b] the batch's valid
// anchors, offsets[b] = b * na.
template <typename T>
__global__ void DetectRows(DetectParams d, int64_t nb, T lowest, const T* prob, const T* loc,
                           const T* anc, T* rows, T* keys, int* idx, int* count, int* offsets) {
  const int64_t total = nb * d.na;
  for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < total;
       g += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t b = g / d.na, i = g % d.na;
    T* row = rows + g * 6;
    const bool valid = d.Row(prob + b * d.nc * d.na, loc + b * d.na * 4, anc, i, row);
    keys[g] = valid ? SortKey(row[1]) : lowest;
    idx[g] = static_cast<int>(i);
    if (valid) atomicAdd(&count[b], 1);
    if (i == 0) offsets[b] = static_cast<int>(g);
    if (g == total - 1) offsets[nb] = static_cast<int>(total);
  }
}

// One block per batch b; `sorted` holds the batch's anchors in key order,
// `slot` na entries of scratch per batch.
template <typename T>
__global__ void DetectBatches(DetectParams d, const T* rows, const int* sorted, const int* count,
                              int* slot, T* y) {
  const int64_t b = blockIdx.x, na = d.na;
  const T* rb = rows + b * na * 6;
  const int* order = sorted + b * na;
  int* s = slot + b * na;
  T* yb = y + b * na * 6;
  const int64_t nvalid = count[b];
  for (int64_t i = threadIdx.x; i < na * 6; i += blockDim.x) yb[i] = T(-1);
  // The valid rows in anchor order (a row is valid iff its key is not the
  // lowest: its score sorts it among the first nvalid).
  if (threadIdx.x == 0) {
    for (int64_t i = 0; i < na; ++i) s[i] = -1;
    for (int64_t k = 0; k < nvalid; ++k) s[order[k]] = 0;
    int next = 0;
    for (int64_t i = 0; i < na; ++i)
      if (s[i] == 0) s[i] = next++ + 1;  // 1-based until the copy below
  }
  __syncthreads();
  for (int64_t i = threadIdx.x; i < na; i += blockDim.x)
    if (s[i] > 0)
      for (int e = 0; e < 6; ++e) yb[(s[i] - 1) * 6 + e] = rb[i * 6 + e];
  if (nvalid < 1 || d.nms <= 0 || d.nms > 1) return;
  const int64_t keep = d.topk > 0 && d.topk < nvalid ? d.topk : nvalid;
  __syncthreads();
  for (int64_t i = keep + threadIdx.x; i < nvalid; i += blockDim.x) yb[i * 6] = T(-1);
  for (int64_t i = threadIdx.x; i < keep; i += blockDim.x)
    for (int e = 0; e < 6; ++e) yb[i * 6 + e] = rb[static_cast<int64_t>(order[i]) * 6 + e];
  for (int64_t i = 0; i < keep; ++i) {
    __syncthreads();  // row i's class is final
    if (yb[i * 6] < 0) continue;
    for (int64_t j = i + 1 + threadIdx.x; j < keep; j += blockDim.x)
      if (yb[j * 6] >= 0 && d.Suppresses(yb + i * 6, yb + j * 6)) yb[j * 6] = T(-1);
  }
}

// in: cls_prob (N, classes, anchors), loc_pred (N, anchors * 4), anchors
// (1, anchors, 4); out: (N, anchors, 6).
void DetectionCuda(const OpContext& ctx, const NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReq>&, const std::vector<TBlob>& out) {
  const char* op = "_contrib_MultiBoxDetection";
  UseDevice(ctx, op);
  const DetectParams d = MakeDetectParams(attrs, in[0].shape);
  const int64_t nb = in[0].shape[0], total = nb * d.na;
  if (total == 0) return;
  if (total > std::numeric_limits<int>::max())
    Fail(StatusCode::kNotImplemented, "operator ", op, " on the GPU: ", total,
         " anchors in all, at most 2^31 - 1");
  cudaStream_t s = StreamOf(ctx);
  DispatchFloat(in[0].dtype, op, [&](auto v) {
    using T = decltype(v);
    DeviceBuffer rows(ctx, total * 6 * sizeof(T)), keys(ctx, total * sizeof(T)),
        keys_sorted(ctx, total * sizeof(T)), idx(ctx, total * sizeof(int)),
        idx_sorted(ctx, total * sizeof(int)), slot(ctx, total * sizeof(int)),
        count(ctx, nb * sizeof(int)), offsets(ctx, (nb + 1) * sizeof(int));
    WEFT_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, nb * sizeof(int), s));
    DetectRows<T><<<GridFor(total), kBlock, 0, s>>>(
        d, nb, std::numeric_limits<T>::lowest(), in[0].data<T>(), in[1].data<T>(), in[2].data<T>(),
        rows.as<T>(), keys.as<T>(), idx.as<int>(), count.as<int>(), offsets.as<int>());
    const int items = static_cast<int>(total), segments = static_cast<int>(nb);
    SortSegmentsDescending(ctx, keys.as<T>(), keys_sorted.as<T>(), idx.as<int>(),
                           idx_sorted.as<int>(), items, segments, offsets.as<int>());
    DetectBatches<T><<<segments, kBlock, 0, s>>>(d, rows.as<T>(), idx_sorted.as<int>(),
                                                 count.as<int>(), slot.as<int>(), out[0].data<T>());
    Finish(ctx, op);  // before the scratch buffers are released
  });
}

}  // namespace

void RegisterVisionMultiBoxCuda(KernelRegistry* reg) {
  reg->Add("_contrib_MultiBoxPrior", DeviceType::kGPU, {"cuda", 0, PriorCuda, true});
  reg->Add("_contrib_MultiBoxDetection", DeviceType::kGPU, {"cuda", 0, DetectionCuda, false});
}

}  // namespace cuda
}  // namespace weft
