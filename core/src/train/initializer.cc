// Initializers with MXNet's semantics (initializer.py): naming rules,
// "__init__" attributes, and the uniform, normal, xavier, constant, zero
// and one rules. Values are generated on the host in double from the
// initializer's own std::mt19937_64 and copied into the array.
#include "weft/initializer.h"

#include <cfloat>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "train_params.h"
#include "weft/status.h"

namespace weft {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Uniform in [-scale, scale).
class UniformInit : public Initializer {
 public:
  explicit UniformInit(double scale) : scale_(scale) {}

 protected:
  void InitWeight(const std::string& name, NDArray* arr) override {
    std::vector<double> v(static_cast<size_t>(arr->Size()));
    for (double& x : v) x = Uniform(-scale_, scale_);
    Store(name, arr, v);
  }

 private:
  double scale_;
};

// Normal(0, sigma).
class NormalInit : public Initializer {
 public:
  explicit NormalInit(double sigma) : sigma_(sigma) {}

 protected:
  void InitWeight(const std::string& name, NDArray* arr) override {
    std::vector<double> v(static_cast<size_t>(arr->Size()));
    for (double& x : v) x = sigma_ * Gaussian();
    Store(name, arr, v);
  }

 private:
  double sigma_;
};

class ConstantInit : public Initializer {
 public:
  explicit ConstantInit(double value) : value_(value) {}

 protected:
  void InitWeight(const std::string& name, NDArray* arr) override {
    Store(name, arr, std::vector<double>(static_cast<size_t>(arr->Size()), value_));
  }

 private:
  double value_;
};

// MXNet's Xavier: fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] *
// prod(shape[2:]); scale = sqrt(magnitude / factor) with factor the mean of
// the fans, fan_in or fan_out; uniform in [-scale, scale] or N(0, scale).
class XavierInit : public Initializer {
 public:
  XavierInit(bool gaussian, std::string factor_type, double magnitude)
      : gaussian_(gaussian), factor_type_(std::move(factor_type)), magnitude_(magnitude) {}

 protected:
  void InitWeight(const std::string& name, NDArray* arr) override {
    const Shape& s = arr->shape();
    if (s.ndim() < 2)
      Fail(StatusCode::kShape, "xavier initializer: parameter '", name, "' has shape ",
           s.ToString(), "; xavier needs at least 2 dimensions (it cannot be applied to a vector)");
    double hw = 1;
    for (int i = 2; i < s.ndim(); ++i) hw *= static_cast<double>(s[i]);
    const double fan_in = static_cast<double>(s[1]) * hw, fan_out = static_cast<double>(s[0]) * hw;
    double factor = (fan_in + fan_out) / 2.0;
    if (factor_type_ == "in") factor = fan_in;
    if (factor_type_ == "out") factor = fan_out;
    const double scale = std::sqrt(magnitude_ / factor);
    std::vector<double> v(static_cast<size_t>(arr->Size()));
    for (double& x : v) x = gaussian_ ? scale * Gaussian() : Uniform(-scale, scale);
    Store(name, arr, v);
  }

 private:
  bool gaussian_;
  std::string factor_type_;
  double magnitude_;
};

// JSON value -> the text form ParseTrainParams reads.
std::string JsonText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  return v.dump();
}

}  // namespace

Initializer::~Initializer() = default;

double Initializer::Uniform(double lo, double hi) {
  const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;  // [0, 1)
  return lo + (hi - lo) * u;
}

// Box-Muller on two uniforms; the second normal is kept for the next call.
double Initializer::Gaussian() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double u1 = static_cast<double>((rng_() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double a = 2.0 * M_PI * u2;
  spare_ = r * std::sin(a);
  has_spare_ = true;
  return r * std::cos(a);
}

void Initializer::Store(const std::string& name, NDArray* arr, const std::vector<double>& values) {
  WEFT_CHECK(static_cast<int64_t>(values.size()) == arr->Size())
      << "initializer: " << values.size() << " values for " << arr->Size() << " elements of '"
      << name << "'";
  if (arr->dtype() == DType::kFloat64) {
    arr->CopyFromHost(values.data(), values.size() * sizeof(double));
  } else {
    std::vector<float> f(values.begin(), values.end());
    arr->CopyFromHost(f.data(), f.size() * sizeof(float));
  }
}

void Initializer::Init(const std::string& name, NDArray* arr,
                       const std::map<std::string, std::string>& attrs) {
  if (!arr || arr->is_none())
    Fail(StatusCode::kInvalidArgument, "initializer: parameter '", name, "' has no array to fill");
  if (arr->dtype() != DType::kFloat32 && arr->dtype() != DType::kFloat64)
    Fail(StatusCode::kDType, "initializer: parameter '", name, "' has dtype ",
         DTypeName(arr->dtype()), "; expected float32 or float64");
  auto it = attrs.find("__init__");
  if (it != attrs.end() && !it->second.empty()) {
    std::unique_ptr<Initializer> init;
    try {
      init = FromJSON(it->second, rng_());
    } catch (const Error& e) {
      Fail(e.code(), "initializer: parameter '", name, "': bad __init__ attribute: ", e.what());
    }
    init->InitWeight(name, arr);
    return;
  }
  // MXNet's Initializer.__call__ order (suffixes without the underscore,
  // as MXNet tests them), then the statistics of normalisation layers,
  // which MXNet marks with __init__ attributes from the backend.
  const std::vector<std::pair<const char*, int>> rules = {
      {"weight", -1},    {"bias", 0},        {"gamma", 1},         {"beta", 0},
      {"min", 0},        {"max", 1},         {"moving_mean", 0},   {"running_mean", 0},
      {"moving_var", 1}, {"running_var", 1}, {"moving_inv_var", 1}};
  for (const auto& r : rules) {
    if (!EndsWith(name, r.first)) continue;
    if (r.second < 0) break;
    return Store(name, arr, std::vector<double>(static_cast<size_t>(arr->Size()), r.second));
  }
  InitWeight(name, arr);
}

std::unique_ptr<Initializer> Initializer::Create(const std::string& name, const StringMap& params,
                                                 uint64_t seed) {
  const std::string key = train::Lower(name);
  const std::string what = "initializer '" + name + "'";
  std::unique_ptr<Initializer> out;
  if (key == "uniform") {
    auto v = train::ParseTrainParams(what, {train::FloatDecl("scale", "0.07", 0, DBL_MAX)}, params);
    out = std::make_unique<UniformInit>(v["scale"].f);
  } else if (key == "normal") {
    auto v = train::ParseTrainParams(what, {train::FloatDecl("sigma", "0.01", 0, DBL_MAX)}, params);
    out = std::make_unique<NormalInit>(v["sigma"].f);
  } else if (key == "xavier") {
    auto v =
        train::ParseTrainParams(what,
                                {train::EnumDecl("rnd_type", "uniform", {"uniform", "gaussian"}),
                                 train::EnumDecl("factor_type", "avg", {"avg", "in", "out"}),
                                 train::FloatDecl("magnitude", "3", DBL_MIN, DBL_MAX)},
                                params);
    out = std::make_unique<XavierInit>(v["rnd_type"].s == "gaussian", v["factor_type"].s,
                                       v["magnitude"].f);
  } else if (key == "constant") {
    auto v =
        train::ParseTrainParams(what, {train::FloatDecl("value", "", -DBL_MAX, DBL_MAX)}, params);
    out = std::make_unique<ConstantInit>(v["value"].f);
  } else if (key == "zero" || key == "zeros" || key == "one" || key == "ones") {
    train::ParseTrainParams(what, {}, params);
    out = std::make_unique<ConstantInit>(key[1] == 'e' ? 0.0 : 1.0);
  } else {
    Fail(StatusCode::kInvalidArgument, "unknown initializer '", name,
         "'; expected one of 'uniform', 'normal', 'xavier', 'constant', 'zero', 'one'");
  }
  out->name_ = key == "zeros" ? "zero" : key == "ones" ? "one" : key;
  out->rng_.seed(seed);
  return out;
}

std::unique_ptr<Initializer> Initializer::FromJSON(const std::string& text, uint64_t seed) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Create(text, {}, seed);  // a bare name such as zero
  if (j.is_string()) return Create(j.get<std::string>(), {}, seed);
  if (!j.is_array() || j.empty() || j.size() > 2 || !j[0].is_string() ||
      (j.size() == 2 && !j[1].is_object()))
    Fail(StatusCode::kInvalidArgument, "initializer JSON '", text,
         "' is not of the form [\"name\", {params}] or a name");
  StringMap params;
  if (j.size() == 2)
    for (const auto& kv : j[1].items()) params[kv.key()] = JsonText(kv.value());
  return Create(j[0].get<std::string>(), params, seed);
}

}  // namespace weft
