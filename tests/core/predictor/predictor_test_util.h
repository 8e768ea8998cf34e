// Helpers of the Predictor tests: host buffers and a small conv + BatchNorm
// classifier with random weights and its unoptimised executor as reference.
#ifndef WEFT_TESTS_CORE_PREDICTOR_PREDICTOR_TEST_UTIL_H_
#define WEFT_TESTS_CORE_PREDICTOR_PREDICTOR_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/pass/inference_test_util.h"
#include "util/test_util.h"
#include "weft/predictor.h"

namespace weft {
namespace test {
namespace predictor {

inline std::vector<float> Floats(const NDArray& a) {
  std::vector<float> v(static_cast<size_t>(a.Size()));
  a.CopyToHost(v.data(), v.size() * sizeof(float));
  return v;
}

inline HostInput In(const std::vector<float>& v, const Shape& shape) {
  return {v.data(), v.size() * sizeof(float), shape};
}
inline HostOutput Out(std::vector<float>* v) { return {v->data(), v->size() * sizeof(float)}; }

inline double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}

// conv -> BatchNorm -> relu -> FC -> SoftmaxOutput (label not given).
inline Symbol ConvBnNet() {
  Symbol h = Apply("Convolution", {Symbol::CreateVariable("data")},
                   {{"kernel", "(3,3)"}, {"pad", "(1,1)"}, {"num_filter", "8"}}, "conv1");
  h = Apply("BatchNorm", {h}, {{"fix_gamma", "False"}}, "bn1");
  h = Apply("Activation", {h}, {{"act_type", "relu"}}, "relu1");
  h = Apply("FullyConnected", {h}, {{"num_hidden", "5"}}, "fc1");
  return Apply("SoftmaxOutput", {h, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

struct Net {
  Symbol sym = ConvBnNet();
  ParamMaps params;
  std::unique_ptr<Executor> ref;  // unoptimised, batch `batch`
  explicit Net(int batch) {
    ref = test::BindInference(sym, {{"data", Shape{batch, 3, 6, 6}}}, /*optimize=*/false);
    test::FillRandom(ref.get(), 7);
    const auto& names = ref->arg_names();
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] != "data" && names[i] != "softmax_label")
        params.args[names[i]] = ref->arg_arrays()[i].Copy(Context::CPU(0));
    for (size_t i = 0; i < ref->aux_names().size(); ++i)
      params.aux[ref->aux_names()[i]] = ref->aux_arrays()[i].Copy(Context::CPU(0));
  }
  std::vector<float> Input() const { return Floats(ref->arg_arrays()[0]); }
  std::vector<float> Expected() {
    ref->Forward(false);
    return Floats(ref->outputs()[0]);
  }
};

}  // namespace predictor
}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_CORE_PREDICTOR_PREDICTOR_TEST_UTIL_H_
