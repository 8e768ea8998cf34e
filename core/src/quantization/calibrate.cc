// Calibration statistics (MXNet 1.9.1's _LayerOutputMinMaxCollector and
// _LayerHistogramCollector with combine_histogram, python/mxnet/contrib/
// quantization.py) and the KL-divergence threshold of its
// _contrib_calibrate_entropy (src/operator/quantization/calibrate.cc).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "weft/quantize_model.h"
#include "weft/status.h"

namespace weft {
namespace quant {

namespace {

// numpy.histogram(values, bins=n, range=(-th, th)) added into `hist`
// starting at bin `offset` (values outside the range are dropped).
void AddHistogram(const std::vector<float>& values, float th, size_t n, size_t offset,
                  std::vector<double>* hist) {
  const double lo = th > 0 ? -th : -0.5, hi = th > 0 ? th : 0.5;
  const double per = static_cast<double>(n) / (hi - lo);
  for (float v : values) {
    if (!(v >= lo && v <= hi)) continue;
    size_t b = static_cast<size_t>((v - lo) * per);
    if (b >= n) b = n - 1;
    (*hist)[offset + b] += 1;
  }
}

// MXNet's SmoothDistribution: zeros become eps, taken evenly off the
// non-zero entries; empty when all are zero or the smoothing would not fit.
std::vector<double> Smooth(const std::vector<double>& p, double eps = 1e-4) {
  const size_t zeros = static_cast<size_t>(std::count(p.begin(), p.end(), 0.0));
  const size_t nonzeros = p.size() - zeros;
  if (nonzeros == 0) return {};
  const double eps1 = eps * static_cast<double>(zeros) / static_cast<double>(nonzeros);
  if (eps1 >= 1.0) return {};
  std::vector<double> out(p);
  for (double& v : out) v += v == 0 ? eps : -eps1;
  return out;
}

double KLDivergence(std::vector<double> p, std::vector<double> q) {
  const double ps = std::accumulate(p.begin(), p.end(), 0.0);
  const double qs = std::accumulate(q.begin(), q.end(), 0.0);
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double a = p[i] / ps, b = q[i] / qs;
    if (a > 0 && b > 0) kl += a * std::log(a / b);
  }
  return kl;
}

// The divergence of clipping `hist` to the 2i + 1 central bins and
// quantizing those to `levels` bins.
double DivergenceAt(const std::vector<double>& hist, size_t i, size_t levels) {
  const size_t zero = hist.size() / 2, start = zero - i, stop = zero + i + 1;
  const size_t width = stop - start;
  std::vector<double> p(hist.begin() + start, hist.begin() + stop);
  for (size_t j = 0; j < start; ++j) p.front() += hist[j];
  for (size_t j = stop; j < hist.size(); ++j) p.back() += hist[j];
  // As MXNet: the clipped bins without the first (it went into p's outlier
  // bin with everything below it).
  std::vector<double> sliced(hist.begin() + start, hist.begin() + stop);
  sliced.front() = 0;
  const size_t merged = width / levels;
  std::vector<double> q(width, 0.0);
  for (size_t j = 0; j < levels; ++j) {
    const size_t b = j * merged, e = j + 1 == levels ? width : (j + 1) * merged;
    const double total = std::accumulate(sliced.begin() + b, sliced.begin() + e, 0.0);
    const auto used =
        std::count_if(sliced.begin() + b, sliced.begin() + e, [](double v) { return v != 0; });
    if (used == 0) continue;
    for (size_t k = b; k < e; ++k)
      if (p[k] != 0) q[k] = total / static_cast<double>(used);
  }
  const std::vector<double> ps = Smooth(p), qs = Smooth(q);
  if (ps.empty() || qs.empty()) return std::numeric_limits<double>::infinity();
  return KLDivergence(ps, qs);
}

}  // namespace

float EntropyThreshold(const std::vector<double>& hist, const std::vector<float>& edges,
                       int num_quantized_bins, float* divergence) {
  const size_t n = hist.size(), levels = static_cast<size_t>(num_quantized_bins);
  if (n % 2 == 0 || edges.size() != n + 1 || num_quantized_bins < 1 || levels > n)
    Fail(StatusCode::kInvalidArgument,
         "calibrate_entropy: expected an odd number of bins >= ", num_quantized_bins,
         " and one more edge; given ", n, " bins and ", edges.size(), " edges");
  double best = std::numeric_limits<double>::max();
  float threshold = edges.back();
  for (size_t i = levels / 2; i <= n / 2; ++i) {
    const double d = DivergenceAt(hist, i, levels);
    if (d < best) {
      best = d;
      threshold = edges[n / 2 + i + 1];
    }
  }
  if (divergence) *divergence = static_cast<float>(best);
  return threshold;
}

void LayerStats::Collect(const std::string& name, const std::vector<float>& values) {
  if (values.empty()) return;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const float mn = *lo, mx = *hi, th = std::max(std::fabs(mn), std::fabs(mx));
  auto it = layers_.find(name);
  if (it == layers_.end()) {
    Layer l;
    l.hist.assign(static_cast<size_t>(num_bins_), 0.0);
    AddHistogram(values, th, l.hist.size(), 0, &l.hist);
    l.min = mn;
    l.max = mx;
    l.th = th;
    layers_[name] = std::move(l);
    return;
  }
  Layer& l = it->second;
  l.min = std::min(l.min, mn);
  l.max = std::max(l.max, mx);
  if (th <= l.th) {
    AddHistogram(values, l.th, l.hist.size(), 0, &l.hist);
    return;
  }
  // combine_histogram: widen by whole old bins on each side.
  const size_t old_n = l.hist.size();
  const double step = 2.0 * l.th / static_cast<double>(old_n);
  const size_t half = static_cast<size_t>(std::floor((th - l.th) / step)) + 1;
  std::vector<double> wide(old_n + 2 * half, 0.0);
  const float new_th = static_cast<float>(static_cast<double>(half) * step + l.th);
  AddHistogram(values, new_th, wide.size(), 0, &wide);
  for (size_t j = 0; j < old_n; ++j) wide[half + j] += l.hist[j];
  l.hist = std::move(wide);
  l.th = new_th;
}

CalibTable LayerStats::MinMax() const {
  CalibTable t;
  for (const auto& [name, l] : layers_) t[name] = {l.min, l.max};
  return t;
}

CalibTable LayerStats::Entropy(const std::string& quantized_dtype) const {
  CalibTable t;
  for (const auto& [name, l] : layers_) {
    const bool unsigned_out =
        l.min >= 0 && (quantized_dtype == "auto" || quantized_dtype == "uint8");
    const size_t n = l.hist.size();
    std::vector<float> edges(n + 1);
    const double th = l.th > 0 ? l.th : 0.5;
    for (size_t i = 0; i <= n; ++i)
      edges[i] = static_cast<float>(-th + 2.0 * th * static_cast<double>(i) / n);
    const float th_opt = EntropyThreshold(l.hist, edges, unsigned_out ? 511 : 255);
    t[name] = {unsigned_out ? 0.f : -th_opt, th_opt};
  }
  return t;
}

}  // namespace quant
}  // namespace weft
