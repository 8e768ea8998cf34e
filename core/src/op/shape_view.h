// The small helpers the shape_ops_*.cc files share, and StridedView (the
// element map of each strided-view shape op, weft/strided_view.h).
#ifndef WEFT_CORE_SRC_OP_SHAPE_VIEW_H_
#define WEFT_CORE_SRC_OP_SHAPE_VIEW_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "op_common.h"
#include "weft/op.h"
#include "weft/strided_view.h"

namespace weft {
namespace op {

// A tuple of optional integers as MXNet writes slice's begin/end/step:
// "(0, None, -1)", "[1,2]", "()", "3". Throws Error(kInvalidArgument)
// naming `op` and `param`.
std::vector<std::optional<int64_t>> ParseOptionalTuple(const std::string& op,
                                                       const std::string& param,
                                                       const std::string& text);

// Row-major strides of `s`.
std::vector<int64_t> RowMajorStrides(const Shape& s);

// An OpDef with elementwise type inference (no gradient yet).
inline OpDef ShapeOpDef(const std::string& name, std::vector<std::string> aliases,
                        const std::string& doc, std::vector<ParamDecl> params, InferShapeFn shape) {
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
