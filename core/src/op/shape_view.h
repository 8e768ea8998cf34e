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
// Also here: the small helpers the shape_ops_*.cc files share.
#ifndef WEFT_CORE_SRC_OP_SHAPE_VIEW_H_
#define WEFT_CORE_SRC_OP_SHAPE_VIEW_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "op_common.h"
#include "weft/op.h"

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
StridedView ShapeOpView(const std::string& op, const ParamValues& p, const Shape& data, const Shape& out);

// A tuple of optional integers as MXNet writes slice's begin/end/step:
// "(0, None, -1)", "[1,2]", "()", "3". Throws Error(kInvalidArgument)
// naming `op` and `param`.
std::vector<std::optional<int64_t>> ParseOptionalTuple(const std::string& op, const std::string& param,
                                                       const std::string& text);

// Row-major strides of `s`.
std::vector<int64_t> RowMajorStrides(const Shape& s);

// `axis` in [-nd, nd) made non-negative; throws naming `op` and `what`.
int CheckAxis(const std::string& op, const std::string& what, int64_t axis, int nd);

// A parameter declaration of `type` with default text `def`.
inline ParamDecl TypedParam(const std::string& name, ParamType type, const std::string& def, const std::string& doc) {
  ParamDecl d;
  d.name = name;
  d.type = type;
  d.default_value = def;
  d.doc = doc;
  return d;
}

// An OpDef with elementwise type inference (no gradient yet).
inline OpDef ShapeOpDef(const std::string& name, std::vector<std::string> aliases, const std::string& doc,
                        std::vector<ParamDecl> params, InferShapeFn shape) {
  OpDef f;
  f.name = name;
  f.aliases = std::move(aliases);
  f.doc = doc;
  f.params = std::move(params);
  f.infer_shape = std::move(shape);
  f.infer_type = ElemwiseType;
  return f;
}

// Shape inference of ops whose output shape follows from the data shape
// alone (forward only; needs data's rank): output = F(params, data).
template <Shape (*F)(const ParamValues&, const Shape&)>
bool OutFromData(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].ndim_known()) return false;
  AssignShape(attrs, out, 0, F(attrs.params, (*in)[0]), "output");
  return AllKnown(*in) && AllKnown(*out);
}

}  // namespace op
}  // namespace weft

#endif  // WEFT_CORE_SRC_OP_SHAPE_VIEW_H_
