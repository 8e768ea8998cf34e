// `weft train`'s options and its data sources (internal to the CLI):
// MNIST-format IDX files, or RecordIO files read by the library's
// ImageRecordIter (cli_train_data.cc).
#ifndef WEFT_TOOLS_CLI_TRAIN_H_
#define WEFT_TOOLS_CLI_TRAIN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cli_util.h"

namespace weft_cli {

struct TrainOptions {
  std::string symbol, data_dir = "/usr/share/datasets/fashion-mnist", save, optimizer = "sgd",
                      init = "xavier";
  std::string lr, momentum = "0.9", wd = "0", progress = "auto", kvstore;
  // RecordIO data: --data, --data-val, --data-shape, --rec-param (both
  // iterators), --rec-train-param (the training iterator only).
  std::string data, data_val, data_shape;
  std::vector<std::string> rec_params, rec_train_params;
  int epochs = 1, batch = 64;
  long limit = 0;
  uint64_t seed = 1;
};

using Iter = Owned<WeftDataIter, weft_data_iter_free>;

// The training and evaluation iterators and how to describe them. `test`
// is empty when there is no evaluation set (--data without --data-val).
struct TrainData {
  Iter train, test;
  std::string source;      // "DIR" or "FILE.rec"
  std::string count;       // "60000 images", "2000 records" or "? records"
  std::string test_count;  // the same for the evaluation set
};

// Opens the data `o` names for rank `rank` of `workers` (part `rank` of the
// training data when workers > 1). Usage errors (Exit{2}) for options that
// do not fit together (--limit with --data, --data without --data-shape,
// a malformed --rec-param); library errors as Exit{1}.
TrainData OpenTrainData(const TrainOptions& o, int rank, int workers);

}  // namespace weft_cli

#endif  // WEFT_TOOLS_CLI_TRAIN_H_
