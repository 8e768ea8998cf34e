// MXNet's Bilinear and LSTMBias initializers (initializer.py): fixed values
// laid out by the array's shape.
#include <cmath>

#include "initializer_rules.h"
#include "weft/status.h"

namespace weft {
namespace init_rules {

namespace {

// The bilinear upsampling kernel over the last two axes, the same for every
// (output, input) channel pair; f and c come from the width, as in MXNet.
class BilinearInit : public Initializer {
 protected:
  void InitWeight(const std::string& name, NDArray* arr) override {
    const Shape& s = arr->shape();
    if (s.ndim() != 4)
      Fail(StatusCode::kShape, "bilinear initializer: parameter '", name, "' has shape ",
           s.ToString(), "; it needs 4 dimensions (out, in, height, width)");
    const int64_t height = s[2], width = s[3];
    const double f = std::ceil(static_cast<double>(width) / 2.0);
    const double c = (2 * f - 1 - std::fmod(f, 2.0)) / (2.0 * f);
    std::vector<double> v(static_cast<size_t>(arr->Size()));
    for (size_t i = 0; i < v.size(); ++i) {
      const double x = static_cast<double>(static_cast<int64_t>(i) % width);
      const double y = static_cast<double>((static_cast<int64_t>(i) / width) % height);
      v[i] = (1 - std::fabs(x / f - c)) * (1 - std::fabs(y / f - c));
    }
    Store(name, arr, v);
  }
};

// Zero, except the forget gate's quarter of the first axis (gate order
// i, f, c, o), which gets forget_bias.
class LSTMBiasInit : public Initializer {
 public:
  explicit LSTMBiasInit(double forget_bias) : forget_bias_(forget_bias) {}

 protected:
  void InitWeight(const std::string& name, NDArray* arr) override {
    const Shape& s = arr->shape();
    if (s.ndim() < 1)
      Fail(StatusCode::kShape, "lstmbias initializer: parameter '", name, "' has shape ",
           s.ToString(), "; it needs at least 1 dimension (4 gates x hidden)");
    const int64_t hidden = s[0] / 4, row = s.ProdRange(1, s.ndim());
    std::vector<double> v(static_cast<size_t>(arr->Size()), 0.0);
    for (int64_t i = hidden * row; i < 2 * hidden * row; ++i)
      v[static_cast<size_t>(i)] = forget_bias_;
    Store(name, arr, v);
  }

 private:
  double forget_bias_;
};

}  // namespace

std::unique_ptr<Initializer> Bilinear() { return std::make_unique<BilinearInit>(); }

std::unique_ptr<Initializer> LSTMBias(double forget_bias) {
  return std::make_unique<LSTMBiasInit>(forget_bias);
}

}  // namespace init_rules
}  // namespace weft
