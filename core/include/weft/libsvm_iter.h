// MXNet's LibSVMIter (src/io/iter_libsvm.cc behind its SparseBatchLoader)
// with dense output: batches of LibSVM rows as float32 arrays.
//
// A line is `label[:weight] [qid:n] index:value ...` with zero-based feature
// indices (dmlc-core's default indexing); blanks separate the tokens, '#'
// starts a comment, blank lines are skipped and weights and qids are
// ignored. Each row becomes a dense row of data_shape[0] values (0 where no
// feature is given; a repeated index keeps its last value). Without
// `label_libsvm` the batch label is the rows' label column, shape
// (batch_size,) as MXNet returns it; with it, label_shape must have more than
// one element (MXNet's rule) and the label rows are the label file's
// features, shape (batch_size, label_shape[0]), its own label column
// ignored. Files are read and validated at construction: an index out of
// range, a feature without a value or a token that is not a number throws
// naming the file and line. Batching is MXNet's with round_batch (the only
// mode MXNet's sparse loader has): a short last batch is completed by the
// first rows (`pad` = rows added), and the next epoch continues after them.
// The batch arrays are cpu(0) float32, reused by every Next(). Not synchronised.
// MXNet returns the data as a CSR array instead; docs/libsvm_csr.md says
// what Weft would need for that (sparse storage types through the graph).
#ifndef WEFT_LIBSVM_ITER_H_
#define WEFT_LIBSVM_ITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/row_batch_iter.h"

namespace weft {

class Runtime;

// MXNet's LibSVMIter parameters (num_parts/part_index are not supported).
struct LibSVMIterParams {
  std::string data_libsvm;   // a LibSVM file (MXNet also takes a directory; Weft does not)
  Shape data_shape;          // (number of features,)
  std::string label_libsvm;  // empty (MXNet's "NULL"): labels from data_libsvm
  Shape label_shape = Shape({1});
  int batch_size = 0;
  std::string data_name = "data";
  std::string label_name = "softmax_label";
};

class LibSVMIter : public RowBatchIter {
 public:
  // Reads and validates the files. Throws Error(kIO) for an unreadable file,
  // kInvalidArgument for batch_size <= 0, a data_shape or label_shape that is
  // not 1-D with extent >= 1, a label_shape against MXNet's rule, an empty
  // data file, a malformed line or too few label rows.
  LibSVMIter(const LibSVMIterParams& params, Runtime* rt);
  ~LibSVMIter() override;

  const LibSVMIterParams& params() const { return params_; }

 private:
  LibSVMIterParams params_;
};

}  // namespace weft

#endif  // WEFT_LIBSVM_ITER_H_
