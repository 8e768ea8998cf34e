// The bench's models (bench/bench_executor.cc) as symbols for tests: an MLP
// (784-512-256-10), LeNet (MNIST) and ResNet-18 (ImageNet layout, any
// square input), each ending in SoftmaxOutput with softmax_label.
#ifndef WEFT_TESTS_UTIL_BENCH_MODELS_H_
#define WEFT_TESTS_UTIL_BENCH_MODELS_H_

#include <string>
#include <vector>

#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace test {
namespace bench {

inline Symbol Apply(const std::string& op, const std::vector<Symbol>& in, const StringMap& p,
                    const std::string& name) {
  return Symbol::Apply(Runtime::Global().ops(), op, in, p, name);
}

inline std::string Pair(int v) { return "(" + std::to_string(v) + "," + std::to_string(v) + ")"; }

inline Symbol Relu(const Symbol& x, const std::string& name) {
  return Apply("Activation", {x}, {{"act_type", "relu"}}, name);
}

inline Symbol Conv(const Symbol& x, int filters, int k, int stride, bool bias,
                   const std::string& name) {
  return Apply("Convolution", {x},
               {{"kernel", Pair(k)},
                {"stride", Pair(stride)},
                {"pad", Pair(k / 2)},
                {"num_filter", std::to_string(filters)},
                {"no_bias", bias ? "False" : "True"}},
               name);
}

inline Symbol Bn(const Symbol& x, const std::string& name) {
  return Apply("BatchNorm", {x}, {{"fix_gamma", "False"}, {"eps", "1e-5"}}, name);
}

inline Symbol Fc(const Symbol& x, int n, const std::string& name) {
  return Apply("FullyConnected", {x}, {{"num_hidden", std::to_string(n)}}, name);
}

inline Symbol Softmax(const Symbol& x) {
  return Apply("SoftmaxOutput", {x, Symbol::CreateVariable("softmax_label")}, {}, "softmax");
}

// The models of bench/bench_executor.cc.
inline Symbol Mlp() {
  Symbol h = Relu(Fc(Symbol::CreateVariable("data"), 512, "fc1"), "relu1");
  return Softmax(Fc(Relu(Fc(h, 256, "fc2"), "relu2"), 10, "fc3"));
}

inline Symbol LeNet() {
  auto pool = [](const Symbol& x, const std::string& n) {
    return Apply("Pooling", {x}, {{"kernel", "(2,2)"}, {"stride", "(2,2)"}, {"pool_type", "max"}},
                 n);
  };
  Symbol h = Apply("Convolution", {Symbol::CreateVariable("data")},
                   {{"kernel", "(5,5)"}, {"num_filter", "20"}}, "conv1");
  h = pool(Relu(h, "relu1"), "pool1");
  h = pool(Relu(Apply("Convolution", {h}, {{"kernel", "(5,5)"}, {"num_filter", "50"}}, "conv2"),
                "relu2"),
           "pool2");
  h = Relu(Fc(Apply("Flatten", {h}, {}, "flatten"), 500, "fc1"), "relu3");
  return Softmax(Fc(h, 10, "fc2"));
}

inline Symbol ResNet18() {
  Symbol h =
      Relu(Bn(Conv(Symbol::CreateVariable("data"), 64, 7, 2, false, "conv0"), "bn0"), "relu0");
  h = Apply("Pooling", {h},
            {{"kernel", "(3,3)"}, {"stride", "(2,2)"}, {"pad", "(1,1)"}, {"pool_type", "max"}},
            "pool0");
  const int filters[4] = {64, 128, 256, 512};
  for (int s = 0; s < 4; ++s)
    for (int b = 0; b < 2; ++b) {
      const std::string n = "stage" + std::to_string(s + 1) + "_unit" + std::to_string(b + 1);
      const int stride = (s > 0 && b == 0) ? 2 : 1;
      Symbol r =
          Relu(Bn(Conv(h, filters[s], 3, stride, false, n + "_conv1"), n + "_bn1"), n + "_relu1");
      r = Bn(Conv(r, filters[s], 3, 1, false, n + "_conv2"), n + "_bn2");
      Symbol sc = (s > 0 && b == 0)
                      ? Bn(Conv(h, filters[s], 1, stride, false, n + "_sc"), n + "_sc_bn")
                      : h;
      h = Relu(Apply("elemwise_add", {r, sc}, {}, n + "_add"), n + "_relu2");
    }
  h = Apply("Pooling", {h}, {{"global_pool", "True"}, {"pool_type", "avg"}, {"kernel", "(1,1)"}},
            "pool1");
  return Softmax(Fc(Apply("Flatten", {h}, {}, "flatten"), 1000, "fc1"));
}

}  // namespace bench
}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_UTIL_BENCH_MODELS_H_
