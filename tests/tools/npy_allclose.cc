// npy_allclose: compares two .npy files as numpy.allclose would, for the
// end-to-end tests (tests/tools/e2e_test.sh), which have no NumPy in CI.
//
//   npy_allclose EXPECTED.npy ACTUAL.npy [RTOL [ATOL]]
//
// Same dtype and shape, and |actual - expected| <= ATOL + RTOL * |expected|
// element by element (NaN matches NaN only; defaults RTOL 1e-4, ATOL 1e-5).
// Prints the largest error and the first few mismatches with their indices.
// Exit 0 close, 1 not close, 2 usage or unreadable file. Reads the files
// through the public C ABI (weft_ndarray_load_npy).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "weft/c_api.h"

namespace {

struct Array {
  std::vector<int64_t> shape;
  int dtype = -1;
  std::vector<double> values;
};

bool Load(const char* path, Array* out) {
  WeftNDArray* arr = nullptr;
  if (weft_ndarray_load_npy(path, &arr) != WEFT_OK) {
    std::fprintf(stderr, "npy_allclose: %s: %s\n", path, weft_last_error());
    return false;
  }
  int ndim = 0;
  int64_t size = 0;
  weft_ndarray_ndim(arr, &ndim);
  out->shape.resize(ndim);
  weft_ndarray_shape(arr, out->shape.data(), ndim);
  weft_ndarray_size(arr, &size);
  weft_ndarray_dtype(arr, &out->dtype);
  // Widen to double by the dtype's MXNet code (float32 0, float64 1,
  // uint8 3, int32 4, int64 6: the dtypes .npy files carry).
  const size_t n = static_cast<size_t>(size);
  out->values.resize(n);
  WeftStatus s = WEFT_OK;
  auto widen = [&](auto zero) {
    std::vector<decltype(zero)> raw(n);
    s = weft_ndarray_copy_to(arr, raw.data(), n * sizeof(zero));
    for (size_t i = 0; i < n; ++i) out->values[i] = static_cast<double>(raw[i]);
  };
  switch (out->dtype) {
    case 0:
      widen(float{});
      break;
    case 1:
      widen(double{});
      break;
    case 3:
      widen(uint8_t{});
      break;
    case 4:
      widen(int32_t{});
      break;
    case 6:
      widen(int64_t{});
      break;
    default:
      std::fprintf(stderr, "npy_allclose: %s: unsupported dtype %d\n", path, out->dtype);
      weft_ndarray_free(arr);
      return false;
  }
  if (s != WEFT_OK) std::fprintf(stderr, "npy_allclose: %s: %s\n", path, weft_last_error());
  weft_ndarray_free(arr);
  return s == WEFT_OK;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + ")";
}

std::string IndexText(size_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = static_cast<int64_t>(flat % static_cast<size_t>(shape[d]));
    flat /= static_cast<size_t>(shape[d]);
  }
  return ShapeText(idx);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: npy_allclose EXPECTED.npy ACTUAL.npy [RTOL [ATOL]]\n");
    return 2;
  }
  const double rtol = argc > 3 ? std::atof(argv[3]) : 1e-4;
  const double atol = argc > 4 ? std::atof(argv[4]) : 1e-5;
  Array want, got;
  if (!Load(argv[1], &want) || !Load(argv[2], &got)) return 2;
  if (want.dtype != got.dtype || want.shape != got.shape) {
    std::printf("%s: expected shape %s dtype %d, got shape %s dtype %d\n", argv[2],
                ShapeText(want.shape).c_str(), want.dtype, ShapeText(got.shape).c_str(), got.dtype);
    return 1;
  }
  size_t bad = 0, worst = 0;
  double worst_err = 0;
  for (size_t i = 0; i < want.values.size(); ++i) {
    const double w = want.values[i], g = got.values[i];
    const bool nan = std::isnan(w) || std::isnan(g);
    const double err = nan ? (std::isnan(w) && std::isnan(g) ? 0 : INFINITY) : std::fabs(g - w);
    if (err > worst_err) worst_err = err, worst = i;
    if (err > atol + rtol * std::fabs(w)) {
      if (++bad <= 5)
        std::printf("%s: at %s expected %.9g, got %.9g\n", argv[2],
                    IndexText(i, want.shape).c_str(), w, g);
    }
  }
  std::printf("%s: %zu of %zu elements differ beyond rtol %g atol %g; largest error %.3g at %s\n",
              argv[2], bad, want.values.size(), rtol, atol, worst_err,
              IndexText(worst, want.shape).c_str());
  return bad ? 1 : 0;
}
