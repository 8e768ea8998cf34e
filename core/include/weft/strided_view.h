// Strided views: the element maps of the shape operators that move
// elements without arithmetic (slice, slice_like, Crop, reverse, SwapAxis,
// tile, repeat, broadcast_to/_like/_axis, depth_to_space, space_to_depth,
// diag). Shape inference (core/src/op) and the CPU kernels
// (kernels/cpu/shape_ops_view.cc) read the op's parameters through the same
// function, so they cannot disagree.
//
// A view walks `dims` in row-major order; step k of the walk reads element
// `offset + sum_i idx_i * strides[i]` of the "big" array. For a gather
// (every op except diag of a 1-D input) the walk is the output in order and
// the big array is the input; for a scatter (diag of a 1-D input) the walk
// is the input and the big array is the output. `injective` says whether
// two steps can reach the same element (they can for tile, repeat and the
// broadcasts), which decides whether a gradient scatter may run in parallel.
#ifndef WEFT_STRIDED_VIEW_H_
#define WEFT_STRIDED_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "weft/param.h"
#include "weft/shape.h"

namespace weft {
namespace op {

struct StridedView {
  int64_t offset = 0;
  std::vector<int64_t> dims, strides;
  bool injective = true;
  bool scatter = false;
};

// The view of forward op `op` (canonical name) with parameters `p` between
// its data input of shape `data` and its output of shape `out` (both known).
StridedView ShapeOpView(const std::string& op, const ParamValues& p, const Shape& data,
                        const Shape& out);

// Parameter decoding the shape ops share with their kernels:
// `axis` in [-nd, nd) made non-negative; throws naming `op` and `what`.
int CheckAxis(const std::string& op, const std::string& what, int64_t axis, int nd);
// _arange's effective start and step (stop=None without infer_range means
// the range starts at 0).
void ArangeStartStep(const ParamValues& p, double* start, double* step);

}  // namespace op
}  // namespace weft

#endif  // WEFT_STRIDED_VIEW_H_
