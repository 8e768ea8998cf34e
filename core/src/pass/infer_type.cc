// InferType: bidirectional element-type inference over an IndexedGraph
// (infer_attr.h); hints come from __dtype__, conflicts are kDType.
#include "pass/infer_attr.h"

namespace weft {
namespace pass {

namespace {

struct TypeTraits {
  using Value = DType;
  static constexpr const char* kPass = "InferType";
  static constexpr const char* kHint = "__dtype__";
  static constexpr const char* kWhat = "dtype";
  static constexpr StatusCode kConflict = StatusCode::kDType;
  static const InferTypeFn& Infer(const OpDef& op) { return op.infer_type; }
  static DType Unknown() { return DType::kUnknown; }
  static bool Known(DType t) { return t != DType::kUnknown; }
  static std::string Str(DType t) { return DTypeName(t); }
  static DType ParseHint(const std::string& hint) { return ParseDType(hint); }
  static void CheckGiven(const std::string& name, DType t) {
    if (t != DType::kUnknown && !IsValidDType(static_cast<int>(t)))
      Fail(StatusCode::kDType, "InferType: input '", name, "': invalid dtype code ",
           static_cast<int>(t));
  }
  static bool Merge(DType* cur, DType inferred, const std::string& node) {
    if (inferred == DType::kUnknown || *cur == inferred) return true;
    if (*cur != DType::kUnknown) return false;
    if (!IsValidDType(static_cast<int>(inferred)))
      Fail(StatusCode::kInternal, "InferType: ", node, " inferred invalid dtype code ",
           static_cast<int>(inferred));
    *cur = inferred;
    return true;
  }
};

}  // namespace

TypeResult InferType(const IndexedGraph& g, const DTypeMap& inputs) {
  TypeResult r;
  infer_attr::Inference<TypeTraits>(g, inputs).Collect(&r.dtypes, &r, &r.arg_types, &r.aux_types,
                                                       &r.out_types);
  return r;
}

}  // namespace pass
}  // namespace weft
