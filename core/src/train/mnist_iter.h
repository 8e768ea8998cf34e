// MXNet's MNISTIter over weft's IDX reader and NDArrayIter (internal to
// core/src/train; created through weft/data_iter_factory.h).
#ifndef WEFT_CORE_SRC_TRAIN_MNIST_ITER_H_
#define WEFT_CORE_SRC_TRAIN_MNIST_ITER_H_

#include <memory>
#include <string>

#include "weft/data_iter.h"

namespace weft {

class Runtime;

struct MNISTIterParams {
  std::string image = "./train-images-idx3-ubyte", label = "./train-labels-idx1-ubyte";
  int batch_size = 128;
  bool shuffle = true, flat = false;
  uint64_t seed = 0;
  int num_parts = 1, part_index = 0;
};

// Images float32 (batch, 1, 28, 28), or (batch, 784) with `flat`, in [0, 1];
// labels float32 (batch). Samples [n * part_index / num_parts, n *
// (part_index + 1) / num_parts) of the files (MXNet's partition for
// distributed training); the last incomplete batch is dropped, as MXNet's
// MNISTIter does; with `shuffle`, the order is permuted per epoch from
// `seed`. Throws Error naming the file for unreadable or malformed files,
// kInvalidArgument for a part_index outside [0, num_parts).
class MNISTIter : public DataIter {
 public:
  MNISTIter(const MNISTIterParams& p, Runtime* rt);
  ~MNISTIter() override;
  void Reset() override { it_->Reset(); }
  bool Next() override { return it_->Next(); }
  const DataBatch& Value() const override { return it_->Value(); }
  std::vector<DataDesc> provide_data() const override { return it_->provide_data(); }
  std::vector<DataDesc> provide_label() const override { return it_->provide_label(); }
  int batch_size() const override { return it_->batch_size(); }
  int64_t num_batches() const override { return it_->num_batches(); }

 private:
  std::unique_ptr<NDArrayIter> it_;
};

}  // namespace weft

#endif  // WEFT_CORE_SRC_TRAIN_MNIST_ITER_H_
