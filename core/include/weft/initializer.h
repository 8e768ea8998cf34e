// Parameter initializers with MXNet's semantics (python/mxnet/initializer.py).
//
// An Initializer fills an NDArray for a named parameter: the name's suffix
// picks a fixed rule for biases and normalisation statistics, an "__init__"
// attribute (MXNet's JSON form) overrides the choice, and everything else
// gets the initializer's own rule (uniform, normal, xavier, constant, ...).
// Random rules draw from the initializer's own std::mt19937_64, seeded at
// creation: the same seed and the same sequence of Init calls give
// bit-identical arrays (uniform and Box-Muller normal draws are made by Weft
// from the raw 64-bit outputs, not by the standard library's
// implementation-defined distributions). Values are made
// on the host in double precision and copied to the array (any context).
// An Initializer is not thread-safe (it owns a generator); use one per thread.
#ifndef WEFT_INITIALIZER_H_
#define WEFT_INITIALIZER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "weft/ndarray.h"
#include "weft/param.h"

namespace weft {

class Initializer {
 public:
  virtual ~Initializer();

  // Fills `arr` (float32/float64, any context) for the parameter `name`
  // following MXNet's suffix rules, tested in this order (plain suffixes,
  // as MXNet's endswith): *weight -> this initializer's rule; *bias, *beta,
  // *min -> 0; *gamma, *max -> 1; *moving_mean, *running_mean -> 0;
  // *moving_var, *running_var, *moving_inv_var -> 1; anything else -> this
  // initializer's rule (MXNet raises there; the contract asks for the rule).
  // If `attrs` holds "__init__" (MXNet's JSON form: "[\"xavier\",
  // {\"magnitude\": 2}]", or a
  // bare name such as "zero"), that initializer is used instead, drawing its
  // seed from this one's generator. Throws Error naming the parameter on a
  // bad array, dtype or __init__ text. Waits for the copy into `arr`.
  void Init(const std::string& name, NDArray* arr,
            const std::map<std::string, std::string>& attrs = {});

  // Creates an initializer by MXNet's registry name (case-insensitive):
  // "uniform" (scale=0.07), "normal" (sigma=0.01), "xavier" (rnd_type
  // uniform|gaussian, factor_type avg|in|out, magnitude=3), "zero"/"zeros",
  // "one"/"ones", "constant" (value, required). Parameter values are text
  // ("0.5", "\"avg\"" and "avg" both accepted). Throws Error(kInvalidArgument)
  // on unknown names, unknown parameters and bad values.
  static std::unique_ptr<Initializer> Create(const std::string& name, const StringMap& params = {},
                                             uint64_t seed = 0);
  // Creates from MXNet's serialised form: a JSON list [name, {params}] or a
  // bare name. Throws Error(kInvalidArgument) on malformed text.
  static std::unique_ptr<Initializer> FromJSON(const std::string& text, uint64_t seed = 0);

  // This initializer's registry name ("xavier").
  const std::string& name() const { return name_; }

 protected:
  // Fills `arr` with this initializer's rule; `name` is for error messages.
  virtual void InitWeight(const std::string& name, NDArray* arr) = 0;

  // Helpers for subclasses. Store checks `arr` (allocated, float32/float64)
  // and copies `values` (one per element, row-major) into it, converting
  // to the array's dtype; Error(kInvalidArgument/kDType) names `name`.
  static void Store(const std::string& name, NDArray* arr, const std::vector<double>& values);
  // A uniform double in [lo, hi) and a standard normal draw (Box-Muller),
  // both made from raw 64-bit outputs of `rng_` (portable, deterministic).
  double Uniform(double lo, double hi);
  double Gaussian();

  std::string name_;
  std::mt19937_64 rng_;

 private:
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace weft

#endif  // WEFT_INITIALIZER_H_
