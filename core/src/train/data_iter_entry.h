// One iterator of the factory (weft/data_iter_factory.h): its description
// and how it is built from parsed parameters. Internal to core/src/train.
#ifndef WEFT_CORE_SRC_TRAIN_DATA_ITER_ENTRY_H_
#define WEFT_CORE_SRC_TRAIN_DATA_ITER_ENTRY_H_

#include <functional>
#include <memory>

#include "weft/data_iter_factory.h"

namespace weft {

struct DataIterEntry {
  DataIterInfo info;
  std::function<std::unique_ptr<DataIter>(const ParamValues&, Runtime*)> build;
};

// MXNet's parameters that change nothing in Weft's iterators: ctx.
std::vector<ParamDecl> IgnoredIterParams();

// ImageRecordIter (data_iter_factory_image.cc).
DataIterEntry ImageRecordIterEntry();

}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_DATA_ITER_ENTRY_H_
