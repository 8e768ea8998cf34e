// Initializers with MXNet's semantics (initializer.py): naming rules,
// "__init__" attributes, the registry of names, and the uniform, normal,
// xavier (and msraprelu), constant, zero and one rules; orthogonal,
// bilinear, lstmbias and mixed are in initializer_*.cc. Values are generated on the host in double
// from the initializer's own std::mt19937_64 and copied into the array.
#include "weft/initializer.h"

#include <cfloat>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <utility>

#include "initializer_rules.h"
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

Initializer* Initializer::Delegate(const std::string& /*name*/) { return nullptr; }

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
  if (Initializer* d = Delegate(name)) return d->Init(name, arr, attrs);
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

namespace {

using Maker =
    std::function<std::unique_ptr<Initializer>(const std::string&, const StringMap&, uint64_t)>;

// One registry entry: its names (the first is the one name() reports) and
// how to build it from the parameter texts (`what` prefixes errors).
struct InitEntry {
  std::vector<const char*> names;
  Maker make;
};

ParamDecl TextDecl(const std::string& name) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kString;
  d.required = true;
  return d;
}

ParamDecl FactorTypeDecl() { return train::EnumDecl("factor_type", "avg", {"avg", "in", "out"}); }
constexpr double kBig = DBL_MAX;

std::unique_ptr<Initializer> MakeXavier(const std::string& what, const StringMap& params) {
  auto v =
      train::ParseTrainParams(what,
                              {train::EnumDecl("rnd_type", "uniform", {"uniform", "gaussian"}),
                               FactorTypeDecl(), train::FloatDecl("magnitude", "3", DBL_MIN, kBig)},
                              params);
  return std::make_unique<XavierInit>(v["rnd_type"].s == "gaussian", v["factor_type"].s,
                                      v["magnitude"].f);
}

// MXNet's MSRAPrelu is a gaussian Xavier of magnitude 2 / (1 + slope^2).
std::unique_ptr<Initializer> MakeMSRAPrelu(const std::string& what, const StringMap& params) {
  auto v = train::ParseTrainParams(
      what, {FactorTypeDecl(), train::FloatDecl("slope", "0.25", -kBig, kBig)}, params);
  const double slope = v["slope"].f;
  return std::make_unique<XavierInit>(true, v["factor_type"].s, 2.0 / (1 + slope * slope));
}

std::unique_ptr<Initializer> MakeOrthogonal(const std::string& what, const StringMap& params) {
  auto v = train::ParseTrainParams(what,
                                   {train::FloatDecl("scale", "1.414", -kBig, kBig),
                                    train::EnumDecl("rand_type", "uniform", {"uniform", "normal"})},
                                   params);
  return init_rules::Orthogonal(v["scale"].f, v["rand_type"].s == "normal");
}

// A rule with one float parameter.
template <typename Make>
Maker OneFloat(const char* key, const char* def, double lo, Make make) {
  return [=](const std::string& what, const StringMap& params, uint64_t) {
    auto v = train::ParseTrainParams(what, {train::FloatDecl(key, def, lo, kBig)}, params);
    return make(v[key].f);
  };
}

Maker Fixed(double value) {
  return [=](const std::string& what, const StringMap& params, uint64_t) {
    train::ParseTrainParams(what, {}, params);
    return std::unique_ptr<Initializer>(std::make_unique<ConstantInit>(value));
  };
}

const std::vector<InitEntry>& Registry() {
  static const std::vector<InitEntry> entries = {
      {{"uniform"},
       OneFloat("scale", "0.07", 0,
                [](double a) {
                  return std::unique_ptr<Initializer>(std::make_unique<UniformInit>(a));
                })},
      {{"normal"},
       OneFloat(
           "sigma", "0.01", 0,
           [](double a) { return std::unique_ptr<Initializer>(std::make_unique<NormalInit>(a)); })},
      {{"xavier"},
       [](const std::string& w, const StringMap& p, uint64_t) { return MakeXavier(w, p); }},
      {{"constant"},
       OneFloat("value", "", -kBig,
                [](double a) {
                  return std::unique_ptr<Initializer>(std::make_unique<ConstantInit>(a));
                })},
      {{"zero", "zeros"}, Fixed(0.0)},
      {{"one", "ones"}, Fixed(1.0)},
      {{"orthogonal"},
       [](const std::string& w, const StringMap& p, uint64_t) { return MakeOrthogonal(w, p); }},
      {{"msraprelu", "msra_prelu"},
       [](const std::string& w, const StringMap& p, uint64_t) { return MakeMSRAPrelu(w, p); }},
      {{"bilinear"},
       [](const std::string& w, const StringMap& p, uint64_t) {
         train::ParseTrainParams(w, {}, p);
         return init_rules::Bilinear();
       }},
      {{"lstmbias", "lstm_bias"}, OneFloat("forget_bias", "1", -kBig, init_rules::LSTMBias)},
      {{"mixed"},
       [](const std::string& w, const StringMap& p, uint64_t seed) {
         auto v = train::ParseTrainParams(w, {TextDecl("patterns"), TextDecl("initializers")}, p);
         return init_rules::MixedFromText(w, v["patterns"].s, v["initializers"].s, seed);
       }},
  };
  return entries;
}

}  // namespace

std::unique_ptr<Initializer> Initializer::Create(const std::string& name, const StringMap& params,
                                                 uint64_t seed) {
  const std::string key = train::Lower(name);
  std::string all;
  for (const InitEntry& e : Registry()) {
    for (const char* n : e.names) {
      all += (all.empty() ? "'" : ", '") + std::string(n) + "'";
      if (key != n) continue;
      std::unique_ptr<Initializer> out = e.make("initializer '" + name + "'", params, seed);
      out->name_ = e.names[0];
      out->rng_.seed(seed);
      return out;
    }
  }
  Fail(StatusCode::kInvalidArgument, "unknown initializer '", name, "'; expected one of ", all);
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
