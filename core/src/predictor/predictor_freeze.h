// Freezing a model for inference: the predictor's preparation step.
// Internal to core/src/predictor; not a public header.
#ifndef WEFT_CORE_SRC_PREDICTOR_PREDICTOR_FREEZE_H_
#define WEFT_CORE_SRC_PREDICTOR_PREDICTOR_FREEZE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "weft/device.h"
#include "weft/ndarray.h"
#include "weft/ndarray_io.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;

struct FrozenModel {
  Symbol symbol;                        // the inference graph, weights as variables
  std::map<std::string, NDArray> args;  // every argument of `symbol` except the inputs
  std::map<std::string, NDArray> aux;   // every aux state of `symbol`
  std::vector<std::string> passes;      // the inference passes that changed the graph
  size_t frozen_nodes = 0;              // op nodes computed once from the weights
};

// The outputs of `symbol` that `names` selects (see PredictorOptions::
// outputs); `symbol` itself when `names` is empty. Throws
// Error(kInvalidArgument) for an unknown name, listing a few known ones.
Symbol SelectOutputs(const Symbol& symbol, const std::vector<std::string>& names);

// Rewrites `symbol` with the inference passes for `ctx`, then computes every
// op node whose inputs are all weights (arguments not in `inputs`, and aux
// states) once, on `ctx`, and replaces the results read by the rest of the
// graph with new weight variables ("<node>_frozen<i>"). Weights are copied
// from `params` onto `ctx` (the caller's arrays are not kept) when `copy`,
// else bound as they are when already on `ctx`. Throws
// Error(kInvalidArgument) for an input that is no argument, a weight
// missing from `params`, and the executor's errors for wrong shapes. `rt`
// (not null) holds the weights and binds the constant parts.
FrozenModel FreezeModel(const Symbol& symbol, const ParamMaps& params,
                        const std::set<std::string>& inputs, Context ctx, bool copy, Runtime* rt);

}  // namespace weft

#endif  // WEFT_CORE_SRC_PREDICTOR_PREDICTOR_FREEZE_H_
