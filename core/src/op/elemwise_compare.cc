// Comparison and logical operators with MXNet 1.9 names, in MXNet's three
// forms: same-shape (`_equal`, alias `_Equal`, ...), broadcasting
// (`broadcast_equal`, ...) and with a scalar (`_equal_scalar`, alias
// `_EqualScalar`, ...), for equal, not_equal, greater, greater_equal,
// lesser, lesser_equal, logical_and, logical_or and logical_xor.
//
// Outputs are 0 or 1 in the input's dtype (MXNet's legacy ops, not the
// numpy ones returning bool). NaN compares unequal to everything, and is
// true for the logical ops (it is nonzero). Gradients are zeros_like of
// each input, as MXNet's MakeZeroGradNodes.
#include "elemwise_common.h"

namespace weft {
namespace op {

namespace {

struct CompareSpec {
  const char* base;          // "equal": ops _equal, broadcast_equal, _equal_scalar
  const char* alias;         // legacy same-shape alias, e.g. "_Equal"
  const char* scalar_alias;  // legacy scalar alias, e.g. "_EqualScalar"
  const char* relation;      // for the docs, e.g. "lhs == rhs"
};

const CompareSpec kSpecs[] = {
    {"equal", "_Equal", "_EqualScalar", "lhs == rhs"},
    {"not_equal", "_Not_Equal", "_NotEqualScalar", "lhs != rhs"},
    {"greater", "_Greater", "_GreaterScalar", "lhs > rhs"},
    {"greater_equal", "_Greater_Equal", "_GreaterEqualScalar", "lhs >= rhs"},
    {"lesser", "_Lesser", "_LesserScalar", "lhs < rhs"},
    {"lesser_equal", "_Lesser_Equal", "_LesserEqualScalar", "lhs <= rhs"},
    {"logical_and", "_Logical_And", "_LogicalAndScalar", "lhs != 0 and rhs != 0"},
    {"logical_or", "_Logical_Or", "_LogicalOrScalar", "lhs != 0 or rhs != 0"},
    {"logical_xor", "_Logical_Xor", "_LogicalXorScalar", "exactly one of lhs, rhs != 0"},
};

}  // namespace

void RegisterElemwiseCompare(OpRegistry* reg) {
  for (const CompareSpec& c : kSpecs) {
    const std::string base = c.base, rel = c.relation;
    OpDef e = BinaryDef("_" + base, {c.alias},
                        "1 where " + rel + ", else 0 (same shapes; output in the input dtype).");
    e.gradient = ZeroGrads;
    reg->Add(std::move(e));

    OpDef b = BroadcastDef("broadcast_" + base, {},
                           "1 where " + rel + ", else 0, with broadcasting (input dtype).");
    b.gradient = ZeroGrads;
    reg->Add(std::move(b));

    std::string srel = rel;
    for (size_t p; (p = srel.find("lhs")) != std::string::npos;) srel.replace(p, 3, "data");
    for (size_t p; (p = srel.find("rhs")) != std::string::npos;) srel.replace(p, 3, "scalar");
    OpDef s = ScalarDef("_" + base + "_scalar", {c.scalar_alias},
                        "1 where " + srel + ", else 0 (input dtype).");
    s.gradient = ZeroGrads;
    reg->Add(std::move(s));
  }
}

}  // namespace op
}  // namespace weft
