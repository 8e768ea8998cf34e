// Parsing of optimizer and initializer hyper-parameters (internal to
// core/src/train): MXNet-style text values checked against ParamDecls, with
// messages naming the optimizer/initializer, the key and the bad value.
#ifndef WEFT_CORE_SRC_TRAIN_TRAIN_PARAMS_H_
#define WEFT_CORE_SRC_TRAIN_TRAIN_PARAMS_H_

#include <map>
#include <string>
#include <vector>

#include "weft/param.h"

namespace weft {
namespace train {

// A float parameter with default `def` (empty: required) and inclusive range.
ParamDecl FloatDecl(const std::string& name, const std::string& def, double lo, double hi);
// An enum parameter with default `def`.
ParamDecl EnumDecl(const std::string& name, const std::string& def,
                   std::vector<std::string> choices);

// Parses `params` against `decls` (unknown keys, bad values, out-of-range
// numbers and missing required keys throw Error(kInvalidArgument) prefixed
// with `what`, e.g. "optimizer 'sgd'"). One pair of surrounding double or
// single quotes is removed from values first (MXNet's JSON/str forms), and
// keys in `ignored` are accepted and skipped. Returns every declared name.
std::map<std::string, ParamValue> ParseTrainParams(const std::string& what,
                                                   const std::vector<ParamDecl>& decls,
                                                   const StringMap& params,
                                                   const std::vector<std::string>& ignored = {});

// Lower-cases ASCII letters.
std::string Lower(std::string s);

}  // namespace train
}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_TRAIN_PARAMS_H_
