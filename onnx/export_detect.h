// The building blocks of the detection converters (export_ops_box_nms.cc,
// export_ops_multibox.cc): MXNet's greedy suppression, whose output order
// and -1 rows depend on the data, rebuilt around ONNX NonMaxSuppression. The candidates are sorted
// first (TopK, ties to the lower index as MXNet's stable sorts), so that a
// box's index in the sorted order is its rank: NonMaxSuppression then reads
// the ranks as scores (no ties, nothing lost to a float cast) and its
// selection, in whatever order a runtime lists it, becomes a per-batch mask.
// Every shape but the selection's is static apart from the batch axis,
// which is never written into the graph (a dynamic batch works).
#ifndef WEFT_ONNX_EXPORT_DETECT_H_
#define WEFT_ONNX_EXPORT_DETECT_H_

#include <string>
#include <vector>

#include "export_context.h"

namespace weft {
namespace onnx_export {

// The dtype the exported detection arithmetic runs in for data of dtype
// `t`: float32 and float64 stay, float16 computes in float32; Unsupported
// for other dtypes.
DType DetectComputeType(DType t);
// `x` cast from dtype `from` to `to`; `x` itself when they agree.
std::string CastType(Context& cx, const std::string& x, DType from, DType to,
                     const std::string& name);
// A constant of dtype `t` (float32 or float64) with `values` and `dims`.
std::string ConstOf(Context& cx, const std::string& name, const std::vector<float>& values,
                    const std::vector<int64_t>& dims, DType t);
// A tensor of the shape `shape` (a 1-D int64 value) filled with `value`, in
// dtype `t` (float32 or float64).
std::string Filled(Context& cx, const std::string& shape, double value, DType t,
                   const std::string& name);

// Column `c` of x (B, N, K) as (B, N).
std::string ColumnOf(Context& cx, const std::string& x, int64_t c, const std::string& name);
// The indices (B, k) of the k largest values of key (B, N), in descending
// order, equal values in index order.
std::string TopIndices(Context& cx, const std::string& key, int64_t k, const std::string& name);
// The rows of x (B, N, K) at idx (B, k), per batch item: (B, k, K).
std::string GatherRows(Context& cx, const std::string& x, const std::string& idx, int64_t width,
                       const std::string& name);
// Element idx (B, k) of x (B, N) per batch item: (B, k).
std::string GatherCols(Context& cx, const std::string& x, const std::string& idx,
                       const std::string& name);
// The scores n, n-1, ..., 1 of ranks 0..n-1 (float32, shape `dims`).
std::string RankScores(Context& cx, int64_t n, const std::vector<int64_t>& dims,
                       const std::string& name);

// NonMaxSuppression of boxes (B, n, 4) (float32, corner or center form) by
// scores (B, C, n) (rank scores, -1 for boxes that take no part),
// suppressing above `iou`: the selected (batch, box) pairs (M, 2) int64 and
// the mask (B, n) float32 of the kept boxes.
struct KeptBoxes {
  std::string pairs, mask;
};
KeptBoxes KeepByNms(Context& cx, const std::string& boxes, const std::string& scores, int64_t n,
                    float iou, bool center, const std::string& name);

}  // namespace onnx_export
}  // namespace weft

#endif  // WEFT_ONNX_EXPORT_DETECT_H_
