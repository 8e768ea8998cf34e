// `weft run --init` (cli_init.cc): fills the arguments and auxiliary states
// no array was given for, with MXNet's initializer semantics.
#ifndef WEFT_TOOLS_CLI_INIT_H_
#define WEFT_TOOLS_CLI_INIT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {

// What FillMissing filled otherwise than by the initializer's rules: the
// names initialised by their "__init__" attribute, the inputs (*data,
// *label) given zeros.
struct InitReport {
  std::vector<std::string> from_attr, zero_inputs;
};

// Creates and fills an array for every name in `missing` (arguments and
// auxiliary states of `sym`, in that order; `variables` lists them all) with
// the initializer `init_name` seeded by `seed`, shapes and dtypes inferred
// from the arrays already in `values`, and adds them to `values`. Throws
// Exit{1} naming the entries whose shapes cannot be inferred.
InitReport FillMissing(const WeftSymbolHandle* sym, const std::vector<std::string>& variables,
                       const std::vector<std::string>& missing, const std::string& init_name,
                       uint64_t seed, std::map<std::string, Array>* values);

}  // namespace weft_cli

#endif  // WEFT_TOOLS_CLI_INIT_H_
