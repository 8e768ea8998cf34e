// InferShape: bidirectional shape inference over an IndexedGraph
// (infer_attr.h). Entries start with unknown rank; results merge with
// ShapeAssign (0 extents and unknown rank are unknown); hints come from
// __shape__, conflicts are kShape. A known shape of more than 2^63 - 1
// elements is an error.
#include "pass/infer_attr.h"

namespace weft {
namespace pass {

namespace {

struct ShapeTraits {
  using Value = Shape;
  static constexpr const char* kPass = "InferShape";
  static constexpr const char* kHint = "__shape__";
  static constexpr const char* kWhat = "shape";
  static constexpr StatusCode kConflict = StatusCode::kShape;
  static const InferShapeFn& Infer(const OpDef& op) { return op.infer_shape; }
  static Shape Unknown() { return Shape(); }
  static bool Known(const Shape& s) { return s.ndim_known() && (s.ndim() == 0 || s.is_known()); }
  static std::string Str(const Shape& s) { return s.ToString(); }
  static Shape ParseHint(const std::string& hint) { return Shape::Parse(hint); }
  static void CheckGiven(const std::string&, const Shape&) {}
  static bool Merge(Shape* cur, const Shape& inferred, const std::string&) {
    return ShapeAssign(cur, inferred);
  }
};

}  // namespace

ShapeResult InferShape(const IndexedGraph& g, const ShapeMap& inputs) {
  ShapeResult r;
  infer_attr::Inference<ShapeTraits>(g, inputs).Collect(&r.shapes, &r, &r.arg_shapes, &r.aux_shapes,
                                                        &r.out_shapes);
  for (uint32_t eid = 0; eid < r.shapes.size(); ++eid) {
    int64_t size = 0;
    if (ShapeTraits::Known(r.shapes[eid]) && !r.shapes[eid].CheckedSize(&size))
      Fail(StatusCode::kShape, "InferShape: '", g.entry_name(eid), "' has shape ",
           r.shapes[eid].ToString(), ", more than 2^63 - 1 elements");
  }
  return r;
}

}  // namespace pass
}  // namespace weft
