// MXNet's CSVIter (src/io/iter_csv.cc behind its BatchLoader): batches of
// rows of a CSV file, each row reshaped to `data_shape`, with labels from a
// second CSV file (or 0).
//
// Parsing follows dmlc-core's CSV parser: lines end at '\n' or '\r', empty
// lines are skipped, a UTF-8 byte order mark is ignored, fields are split at
// ',' and read as numbers: float32 with the C library's strtof (correctly
// rounded; dmlc-core's own fast strtof may differ in the last bit of a long
// decimal), int32 and int64 with strtoll base 0 as dmlc does ("0x10" is 16,
// "010" is 8; int32 wraps). Text after a number in a field is ignored and a
// field without a number (empty, "abc") is skipped; a field never reads into
// the next line. A row must then hold exactly
// data_shape.Size() values (label_shape.Size() for labels), else the
// constructor throws naming the file, the row and both counts; a label file
// with fewer rows than the data also throws. Both files are read and parsed
// at construction (held in memory; MXNet streams them).
//
// Batches follow MXNet's BatchLoader. A short last batch with round_batch
// is completed by the first rows of the data (`pad` = rows added), and the
// next epoch starts after them (a Reset after such a batch does not rewind);
// without round_batch, the short batch's last `pad` rows keep the previous
// batch's values (zeros in the first batch). Each batch's `index` holds its
// rows' line numbers among the data rows. The batch arrays are cpu(0)
// arrays of `dtype`, shapes (batch_size, data_shape...) and (batch_size,
// label_shape...), reused by every Next(). Not synchronised.
#ifndef WEFT_CSV_ITER_H_
#define WEFT_CSV_ITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/row_batch_iter.h"

namespace weft {

class Runtime;

// MXNet's CSVIter parameters (and its BatchParam's).
struct CSVIterParams {
  std::string data_csv;   // a CSV file (MXNet also takes a directory; Weft does not)
  Shape data_shape;       // one example's shape
  std::string label_csv;  // empty (MXNet's "NULL"): every label is 0
  Shape label_shape = Shape({1});
  int batch_size = 0;
  bool round_batch = true;
  DType dtype = DType::kFloat32;  // float32, int32 or int64
  std::string data_name = "data";
  std::string label_name = "softmax_label";
};

class CSVIter : public RowBatchIter {
 public:
  // Reads and validates both files. Throws Error(kIO) for an unreadable
  // file, kInvalidArgument for batch_size <= 0, a shape with an extent < 1,
  // an empty data file, a row of the wrong size or too few label rows (each
  // naming the file and row), kDType for another dtype.
  CSVIter(const CSVIterParams& params, Runtime* rt);
  ~CSVIter() override;

  const CSVIterParams& params() const { return params_; }

 private:
  CSVIterParams params_;
};

}  // namespace weft

#endif  // WEFT_CSV_ITER_H_
