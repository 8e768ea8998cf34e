// Float-tuple operator parameters ("(0.5, 1, 2)"), as the vision operators
// take them; read by their shape inference (core/src/op) and their kernels.
#ifndef WEFT_FLOAT_TUPLE_H_
#define WEFT_FLOAT_TUPLE_H_

#include <string>
#include <vector>

#include "weft/node.h"

namespace weft {
namespace op {

// The values of float-tuple parameter `key` of `attrs` ("(a, b)", "[a, b]"
// or a bare number; MXNet keeps them as float). Fails with
// Error(kInvalidArgument) naming the op and the key on bad text, or when
// `want_len` >= 0 and the length differs, or when `min_len` is not reached.
std::vector<float> FloatTupleValue(const NodeAttrs& attrs, const std::string& key,
                                   int want_len = -1, int min_len = 0);

}  // namespace op
}  // namespace weft

#endif  // WEFT_FLOAT_TUPLE_H_
