// Parameter initializers with MXNet's semantics (python/mxnet/initializer.py).
//
// An Initializer fills an NDArray for a named parameter: the name's suffix
// picks a fixed rule for biases and normalisation statistics, an "__init__"
// attribute (MXNet's JSON form) overrides the choice, and everything else
// gets the initializer's own rule (uniform, normal, xavier, orthogonal,
// bilinear, ...). A "mixed" initializer instead hands each parameter to the
// first of its initializers whose regular expression matches the name.
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
  // "one"/"ones", "constant" (value, required), "orthogonal" (scale=1.414,
  // rand_type uniform|normal), "msraprelu"/"msra_prelu" (factor_type=avg,
  // slope=0.25), "bilinear", "lstmbias"/"lstm_bias" (forget_bias=1), and
  // "mixed" (patterns, initializers; see Mixed). Parameter values are text
  // ("0.5", "\"avg\"" and "avg" both accepted). Throws Error(kInvalidArgument)
  // on unknown names, unknown parameters and bad values.
  //
  //   orthogonal  draws a (shape[0], prod(shape[1:])) matrix (uniform in
  //               [-1, 1) or standard normal) and stores scale times an
  //               orthonormal basis of it: orthonormal columns when
  //               shape[0] >= prod(shape[1:]), orthonormal rows otherwise.
  //               MXNet takes the SVD's U or V; Weft takes the Q of a
  //               Householder QR (signs fixed by R's diagonal), with the
  //               same property from its own draws.
  //   msraprelu   xavier with rnd_type gaussian and magnitude
  //               2 / (1 + slope^2).
  //   bilinear    4-D weights of upsampling deconvolutions: element
  //               (.., .., y, x) = (1 - |x/f - c|) (1 - |y/f - c|) with
  //               f = ceil(shape[3] / 2), c = (2f - 1 - f % 2) / (2f).
  //   lstmbias    0 except rows [n/4, n/2) of the first axis (n = shape[0]),
  //               the forget gate of MXNet's gate order i, f, c, o, which
  //               get forget_bias. Like every rule it applies to names that
  //               no suffix rule claims ("*bias" gets 0, as in MXNet) or
  //               through an "__init__" attribute, as MXNet's LSTM cells set.
  //   mixed       patterns: a JSON list of regular expressions (ECMAScript,
  //               matched from the start of the name as Python's re.match);
  //               initializers: a JSON list of as many initializers in the
  //               FromJSON form, e.g. patterns '["bias", ".*"]' with
  //               initializers '["zero", ["uniform", {"scale": 0.1}]]'; each
  //               is seeded from `seed`. In JSON: ["mixed", {"patterns":
  //               [...], "initializers": [...]}].
  static std::unique_ptr<Initializer> Create(const std::string& name, const StringMap& params = {},
                                             uint64_t seed = 0);
  // Creates from MXNet's serialised form: a JSON list [name, {params}] or a
  // bare name. Throws Error(kInvalidArgument) on malformed text.
  static std::unique_ptr<Initializer> FromJSON(const std::string& text, uint64_t seed = 0);

  // MXNet's Mixed: parameter names matching patterns[i] (and no earlier
  // pattern) are initialised by initializers[i], rules and "__init__"
  // attributes included; a name matching no pattern is an Error naming it.
  // Throws Error(kInvalidArgument) for lists of different or zero lengths,
  // a null initializer or a bad regular expression.
  static std::unique_ptr<Initializer> Mixed(std::vector<std::string> patterns,
                                            std::vector<std::unique_ptr<Initializer>> initializers);

  // This initializer's registry name ("xavier").
  const std::string& name() const { return name_; }

 protected:
  // The initializer that takes over parameter `name` entirely (Mixed's
  // choice), or null to apply this one. Init calls it first.
  virtual Initializer* Delegate(const std::string& name);
  // Runs `init`'s InitWeight (for subclasses that route to another).
  static void InitWeightOf(Initializer* init, const std::string& name, NDArray* arr) {
    init->InitWeight(name, arr);
  }

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
