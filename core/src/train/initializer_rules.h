// The initializer rules defined outside initializer.cc (internal to
// core/src/train): each factory returns a fresh rule; Initializer::Create
// names and seeds it.
#ifndef WEFT_CORE_SRC_TRAIN_INITIALIZER_RULES_H_
#define WEFT_CORE_SRC_TRAIN_INITIALIZER_RULES_H_

#include <memory>
#include <string>
#include <vector>

#include "weft/initializer.h"

namespace weft {
namespace init_rules {

// MXNet's Orthogonal (initializer_orthogonal.cc): `scale` times an
// orthonormal basis of a uniform [-1, 1) (or standard normal) draw.
std::unique_ptr<Initializer> Orthogonal(double scale, bool normal);

// MXNet's Bilinear and LSTMBias (initializer_shaped.cc).
std::unique_ptr<Initializer> Bilinear();
std::unique_ptr<Initializer> LSTMBias(double forget_bias);

// Mixed from its parameter texts (initializer_mixed.cc): `patterns` a JSON
// list of strings, `initializers` a JSON list of FromJSON forms, each
// created with a seed drawn from a generator seeded by `seed`. Errors are
// prefixed with `what`.
std::unique_ptr<Initializer> MixedFromText(const std::string& what, const std::string& patterns,
                                           const std::string& initializers, uint64_t seed);

}  // namespace init_rules
}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_INITIALIZER_RULES_H_
