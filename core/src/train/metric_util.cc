// Helpers shared by the metric implementations (see metric_util.h).
#include "metric_util.h"

#include <cmath>
#include <cstdlib>
#include <type_traits>

#include "weft/status.h"

namespace weft {
namespace metric_util {

std::vector<double> HostValues(const NDArray& a, const std::string& metric, const char* what,
                               size_t i) {
  if (a.is_none())
    Fail(StatusCode::kInvalidArgument, "metric ", metric, ": ", what, " ", i,
         " is an empty (none) array");
  std::vector<unsigned char> bytes(a.Bytes());
  a.CopyToHost(bytes.data(), bytes.size());
  std::vector<double> out(static_cast<size_t>(a.Size()));
  DispatchDType(a.dtype(), [&](auto t) {
    using T = decltype(t);
    const T* p = reinterpret_cast<const T*>(bytes.data());
    for (size_t k = 0; k < out.size(); ++k) out[k] = ToDouble(p[k]);
  });
  return out;
}

void ShapeError(const std::string& metric, size_t i, const NDArray& label, const NDArray& pred,
                const std::string& expected) {
  Fail(StatusCode::kShape, "metric ", metric, ": pair ", i, ": label shape ", label.shape(),
       " and prediction shape ", pred.shape(), " do not match (", expected, ")");
}

double ParseNumber(const std::string& metric, const std::string& key, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    Fail(StatusCode::kInvalidArgument, "metric ", metric, ": parameter ", key,
         ": expected a number, given '", text, "'");
  return v;
}

int ParseInt(const std::string& metric, const std::string& key, const std::string& text) {
  const double v = ParseNumber(metric, key, text);
  if (v != std::floor(v) || std::fabs(v) > 1e9)
    Fail(StatusCode::kInvalidArgument, "metric ", metric, ": parameter ", key,
         ": expected an integer, given '", text, "'");
  return static_cast<int>(v);
}

void CheckKeys(const std::string& metric, const StringMap& params,
               const std::vector<const char*>& valid) {
  for (const auto& kv : params) {
    bool ok = false;
    std::string list;
    for (const char* v : valid) {
      ok = ok || kv.first == v;
      list += list.empty() ? v : std::string(", ") + v;
    }
    if (!ok)
      Fail(StatusCode::kInvalidArgument, "metric ", metric, ": unknown parameter '", kv.first,
           "' (valid: ", list.empty() ? "none" : list, ")");
  }
}

int64_t ArgMax(const double* p, int64_t n, int64_t stride) {
  int64_t best = 0;
  for (int64_t c = 1; c < n; ++c)
    if (p[c * stride] > p[best * stride]) best = c;
  return best;
}

}  // namespace metric_util
}  // namespace weft
