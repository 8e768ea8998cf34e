// Shared helpers of the training tests: float arrays to and from vectors,
// the four-quadrant blob data set and a small MLP classifier for it.
#ifndef WEFT_TESTS_CORE_TRAIN_TRAIN_TEST_UTIL_H_
#define WEFT_TESTS_CORE_TRAIN_TRAIN_TEST_UTIL_H_

#include <random>
#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/ndarray.h"
#include "weft/symbol.h"

namespace weft {
namespace test {

inline NDArray FromVector(const std::vector<float>& v, const Shape& shape) {
  NDArray a(shape, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  a.CopyFromHost(v.data(), v.size() * sizeof(float));
  return a;
}

inline std::vector<float> ToVector(const NDArray& a) {
  std::vector<float> v(static_cast<size_t>(a.Size()));
  a.CopyToHost(v.data(), v.size() * sizeof(float));
  return v;
}

// `n` points of four Gaussian blobs in 2-D centred at (±2, ±2) with spread
// `sigma`; point i has class i % 4 (its quadrant). Fixed by `seed`.
struct Blobs {
  NDArray x, y;
};
inline Blobs MakeBlobs(int n, uint32_t seed, float sigma = 0.6f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.f, sigma);
  std::vector<float> x, y;
  for (int i = 0; i < n; ++i) {
    const int c = i % 4;
    x.push_back((c & 1 ? 2.f : -2.f) + noise(rng));
    x.push_back((c & 2 ? 2.f : -2.f) + noise(rng));
    y.push_back(static_cast<float>(c));
  }
  return {FromVector(x, Shape{n, 2}), FromVector(y, Shape{n})};
}

// data -> FC(hidden) -> relu -> FC(4) -> SoftmaxOutput.
inline Symbol BlobMlp(int hidden) {
  Symbol h =
      Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {Symbol::CreateVariable("data")},
                    {{"num_hidden", std::to_string(hidden)}}, "fc1");
  h = Symbol::Apply(Runtime::Global().ops(), "Activation", {h}, {{"act_type", "relu"}}, "relu1");
  h = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {h}, {{"num_hidden", "4"}}, "fc2");
  return Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput",
                       {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_TRAIN_TRAIN_TEST_UTIL_H_
