// MXNet's Orthogonal initializer (initializer.py): `scale` times an
// orthonormal basis of a random (rows, cols) matrix, rows = shape[0] and
// cols = prod(shape[1:]). MXNet takes U or V of numpy's SVD; here the Q of
// a Householder QR in double serves (orthonormal columns when rows >= cols,
// else orthonormal rows), with column signs fixed so R's diagonal is
// positive (for normal draws Q is then Haar-distributed).
#include <cmath>
#include <utility>

#include "initializer_rules.h"
#include "weft/status.h"

namespace weft {
namespace init_rules {

namespace {

// Q (m x n, m >= n, column-major: q[j * m + i]) with orthonormal columns
// spanning A's (a, m x n column-major, overwritten).
std::vector<double> HouseholderQ(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> vs(static_cast<size_t>(n));
  std::vector<double> diag(static_cast<size_t>(n));
  auto at = [&](std::vector<double>& x, int64_t i, int64_t j) -> double& {
    return x[static_cast<size_t>(j * m + i)];
  };
  // H_k = I - 2 v v^T / (v^T v) on rows k.., applied to the columns j >= k.
  auto reflect = [&](const std::vector<double>& v, int64_t k, std::vector<double>& x, int64_t j) {
    double vv = 0, dot = 0;
    for (int64_t i = k; i < m; ++i) {
      vv += v[static_cast<size_t>(i - k)] * v[static_cast<size_t>(i - k)];
      dot += v[static_cast<size_t>(i - k)] * at(x, i, j);
    }
    if (vv == 0) return;
    const double f = 2 * dot / vv;
    for (int64_t i = k; i < m; ++i) at(x, i, j) -= f * v[static_cast<size_t>(i - k)];
  };
  for (int64_t k = 0; k < n; ++k) {
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += at(a, i, k) * at(a, i, k);
    norm = std::sqrt(norm);
    const double alpha = at(a, k, k) >= 0 ? -norm : norm;
    std::vector<double>& v = vs[static_cast<size_t>(k)];
    for (int64_t i = k; i < m; ++i) v.push_back(at(a, i, k));
    v[0] -= alpha;
    for (int64_t j = k; j < n; ++j) reflect(v, k, a, j);
    diag[static_cast<size_t>(k)] = at(a, k, k);
  }
  // Q = H_0 ... H_{n-1} applied to the first n columns of the identity.
  std::vector<double> q(static_cast<size_t>(m * n), 0.0);
  for (int64_t j = 0; j < n; ++j) at(q, j, j) = 1;
  for (int64_t k = n - 1; k >= 0; --k)
    for (int64_t j = 0; j < n; ++j) reflect(vs[static_cast<size_t>(k)], k, q, j);
  for (int64_t j = 0; j < n; ++j)
    if (diag[static_cast<size_t>(j)] < 0)
      for (int64_t i = 0; i < m; ++i) at(q, i, j) = -at(q, i, j);
  return q;
}

class OrthogonalInit : public Initializer {
 public:
  OrthogonalInit(double scale, bool normal) : scale_(scale), normal_(normal) {}

 protected:
  void InitWeight(const std::string& name, NDArray* arr) override {
    const Shape& s = arr->shape();
    if (s.ndim() < 1)
      Fail(StatusCode::kShape, "orthogonal initializer: parameter '", name, "' has shape ",
           s.ToString(), "; it needs at least 1 dimension");
    const int64_t rows = s[0], cols = s.ProdRange(1, s.ndim());
    std::vector<double> draw(static_cast<size_t>(rows * cols));  // row-major (rows, cols)
    for (double& x : draw) x = normal_ ? Gaussian() : Uniform(-1.0, 1.0);
    // Column-major storage of a row-major (rows, cols) matrix is its
    // transpose: factor the tall side so Q has orthonormal columns.
    const bool tall = rows >= cols;
    std::vector<double> a(draw.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        a[static_cast<size_t>(tall ? c * rows + r : r * cols + c)] =
            draw[static_cast<size_t>(r * cols + c)];
    const int64_t m = tall ? rows : cols, n = tall ? cols : rows;
    const std::vector<double> q = HouseholderQ(std::move(a), m, n);
    std::vector<double> out(draw.size());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        out[static_cast<size_t>(r * cols + c)] =
            scale_ * q[static_cast<size_t>(tall ? c * rows + r : r * cols + c)];
    Store(name, arr, out);
  }

 private:
  double scale_;
  bool normal_;
};

}  // namespace

std::unique_ptr<Initializer> Orthogonal(double scale, bool normal) {
  return std::make_unique<OrthogonalInit>(scale, normal);
}

}  // namespace init_rules
}  // namespace weft
