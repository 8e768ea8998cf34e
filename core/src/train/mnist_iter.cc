// MNISTIter (see mnist_iter.h).
#include "train/mnist_iter.h"

#include "weft/idx.h"
#include "weft/status.h"

namespace weft {

MNISTIter::MNISTIter(const MNISTIterParams& p, Runtime* rt) {
  if (p.num_parts < 1 || p.part_index < 0 || p.part_index >= p.num_parts)
    Fail(StatusCode::kInvalidArgument, "MNISTIter: part_index ", p.part_index,
         " is outside [0, num_parts = ", p.num_parts, ")");
  MNISTData d = LoadMNIST(p.image, p.label, rt);
  const int64_t n = d.images.shape()[0];
  const int64_t lo = n * p.part_index / p.num_parts, hi = n * (p.part_index + 1) / p.num_parts;
  NDArray images = d.images.Slice(lo, hi), labels = d.labels.Slice(lo, hi);
  if (p.flat) images = images.Reshape(Shape({hi - lo, 28 * 28}));
  it_ = std::make_unique<NDArrayIter>(
      std::vector<std::pair<std::string, NDArray>>{{"data", images}},
      std::vector<std::pair<std::string, NDArray>>{{"softmax_label", labels}}, p.batch_size,
      p.shuffle, LastBatch::kDiscard, p.seed);
}

MNISTIter::~MNISTIter() = default;

}  // namespace weft
