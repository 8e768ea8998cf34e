// MXNet's iterator factory (MXListDataIters / MXDataIterCreateIter): data
// iterators created by name from string parameters under MXNet's names and
// defaults, each listing its parameters with their documentation (as
// operators do). Registered: CSVIter, LibSVMIter, MNISTIter and
// ImageRecordIter. Parameters
// MXNet takes that change nothing here (prefetch_buffer, ctx) are accepted
// and documented as such; any other unknown parameter is an error naming it.
#ifndef WEFT_DATA_ITER_FACTORY_H_
#define WEFT_DATA_ITER_FACTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "weft/data_iter.h"
#include "weft/param.h"

namespace weft {

class Runtime;

struct DataIterInfo {
  std::string name, doc;
  std::vector<ParamDecl> params;
};

// Every registered iterator, by name.
const std::vector<DataIterInfo>& ListDataIters();

// The iterator `name` with `params` (strings as MXNet's Python passes them),
// batches allocated from `rt` (not null). Throws Error(kNotFound) for an
// unknown name (listing the known ones), kInvalidArgument for a missing or
// malformed parameter (naming it and the iterator), and the iterator's own
// errors (unreadable files, ...).
std::unique_ptr<DataIter> CreateDataIter(const std::string& name, const StringMap& params,
                                         Runtime* rt);

}  // namespace weft

#endif  // WEFT_DATA_ITER_FACTORY_H_
