// Helpers shared by the metric implementations (internal to core/src/train):
// host copies of label and prediction arrays, shape errors naming the metric
// and the pair, and parameter text parsing for Metric::Create.
#ifndef WEFT_CORE_SRC_TRAIN_METRIC_UTIL_H_
#define WEFT_CORE_SRC_TRAIN_METRIC_UTIL_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "weft/ndarray.h"
#include "weft/param.h"

namespace weft {
namespace metric_util {

// The elements of `a` as doubles, read on the host (waits for `a`). Error
// naming the metric, `what` ("label", "prediction") and the pair index `i`
// for a none array or float16.
std::vector<double> HostValues(const NDArray& a, const std::string& metric, const char* what,
                               size_t i);

// Error(kShape): pair `i` of `metric` has mismatching label and prediction
// shapes; `expected` says what was expected.
[[noreturn]] void ShapeError(const std::string& metric, size_t i, const NDArray& label,
                             const NDArray& pred, const std::string& expected);

// Parameter texts of Metric::Create: a finite number, an integer.
// Error(kInvalidArgument) naming the metric, the key and the text.
double ParseNumber(const std::string& metric, const std::string& key, const std::string& text);
int ParseInt(const std::string& metric, const std::string& key, const std::string& text);

// Error(kInvalidArgument) for a key of `params` not in `valid`, listing them.
void CheckKeys(const std::string& metric, const StringMap& params,
               const std::vector<const char*>& valid);

// The index of the largest of `n` values at p[0], p[stride], ... (the first
// one on ties, as numpy's argmax).
int64_t ArgMax(const double* p, int64_t n, int64_t stride = 1);

}  // namespace metric_util
}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_METRIC_UTIL_H_
