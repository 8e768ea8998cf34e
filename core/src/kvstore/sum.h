// The local reduction of the KVStore: the values pushed for one key summed
// into one array, as one engine operation.
#ifndef WEFT_KVSTORE_SUM_H_
#define WEFT_KVSTORE_SUM_H_

#include <string>
#include <vector>

#include "weft/ndarray.h"

namespace weft {
namespace kvstore {

// Pushes out = sum(values) on out's context, reading the values in place
// (they may live on other cpu(i) devices: host memory, no copy), with
// read dependencies on the values and a write on `out`. One value is
// copied (NDArray::CopyTo, any devices). REQUIRES equal shapes and dtypes;
// several values on a non-CPU device throw Error(kNotImplemented); dtypes
// other than float32/float64/int32/int64 throw Error(kDType).
void PushSum(const std::vector<NDArray>& values, NDArray* out, int priority,
             const std::string& name);

}  // namespace kvstore
}  // namespace weft

#endif  // WEFT_KVSTORE_SUM_H_
