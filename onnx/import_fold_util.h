// The array folders of import_fold.cc (import_fold_ops.cc): evaluation of
// broadcasting arithmetic, Where, Gather, Concat, the reshaping ops, Slice,
// Transpose and Expand on host constants.
#ifndef WEFT_ONNX_IMPORT_FOLD_UTIL_H_
#define WEFT_ONNX_IMPORT_FOLD_UTIL_H_

#include <string>
#include <vector>

#include "import_context.h"

namespace weft {
namespace onnx_import {

// The element count of `dims`; Error when an extent is negative or the
// count exceeds what the importer folds (2^24 elements).
size_t CheckedElements(const ImportContext& c, const std::vector<int64_t>& dims);

// The current node's constant input `i` (Error naming it when not constant).
inline const ConstTensor& In(ImportContext& c, int i) {
  return c.Const(c.node->input(i), "input " + std::to_string(i));
}

ConstTensor FoldBinary(ImportContext& c);
ConstTensor FoldWhere(ImportContext& c);
ConstTensor FoldGather(ImportContext& c);
ConstTensor FoldConcat(ImportContext& c);
ConstTensor FoldReshapeLike(ImportContext& c);
ConstTensor FoldSlice(ImportContext& c);
ConstTensor FoldTranspose(ImportContext& c);
ConstTensor FoldExpand(ImportContext& c);

// numpy broadcasting of two shapes (Error naming the node when they do not
// broadcast).
std::vector<int64_t> BroadcastDims(const ImportContext& c, const std::vector<int64_t>& a,
                                   const std::vector<int64_t>& b);

// The output dims of Reshape / Unsqueeze / Squeeze / Flatten of the current
// node for an input of dims `in`.
std::vector<int64_t> ReshapedDims(ImportContext& c, const std::vector<int64_t>& in);

// Slice's (starts, ends, axes, steps) normalised against `in`: one entry
// per axis of `in` (begin, end, step), clamped as ONNX specifies.
struct SliceAxis {
  int64_t begin = 0, end = 0, step = 1;
};
std::vector<SliceAxis> SliceRanges(ImportContext& c, const std::vector<int64_t>& in);

}  // namespace onnx_import
}  // namespace weft

#endif  // WEFT_ONNX_IMPORT_FOLD_UTIL_H_
