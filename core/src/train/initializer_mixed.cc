// MXNet's Mixed initializer (initializer.py): the first initializer whose
// regular expression matches a parameter's name (from its start, as
// Python's re.match) initialises it; no match is an error.
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <utility>

#include "initializer_rules.h"
#include "weft/status.h"

namespace weft {

namespace {

class MixedInit : public Initializer {
 public:
  MixedInit(std::vector<std::string> patterns, std::vector<std::unique_ptr<Initializer>> inits)
      : patterns_(std::move(patterns)), inits_(std::move(inits)) {
    if (patterns_.empty() || patterns_.size() != inits_.size())
      Fail(StatusCode::kInvalidArgument, "mixed initializer: ", patterns_.size(), " patterns and ",
           inits_.size(), " initializers; expected as many of each, at least one");
    for (size_t i = 0; i < patterns_.size(); ++i) {
      if (!inits_[i])
        Fail(StatusCode::kInvalidArgument, "mixed initializer: initializer ", i, " (for pattern '",
             patterns_[i], "') is null");
      try {
        regexes_.emplace_back(patterns_[i], std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        Fail(StatusCode::kInvalidArgument, "mixed initializer: pattern ", i, " '", patterns_[i],
             "' is not a valid regular expression (", e.what(), ")");
      }
    }
  }

 protected:
  Initializer* Delegate(const std::string& name) override {
    for (size_t i = 0; i < regexes_.size(); ++i)
      if (std::regex_search(name, regexes_[i], std::regex_constants::match_continuous))
        return inits_[i].get();
    std::string all;
    for (const auto& p : patterns_) all += (all.empty() ? "'" : ", '") + p + "'";
    Fail(StatusCode::kInvalidArgument, "mixed initializer: parameter '", name,
         "' matches none of the patterns ", all, "; add \".*\" last for a default");
  }

  // From an "__init__" attribute naming "mixed": the chosen initializer's rule.
  void InitWeight(const std::string& name, NDArray* arr) override {
    InitWeightOf(Delegate(name), name, arr);
  }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::unique_ptr<Initializer>> inits_;
  std::vector<std::regex> regexes_;
};

// A JSON list from parameter `key`'s text; errors name `what` and `key`.
nlohmann::json JsonList(const std::string& what, const char* key, const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array())
    Fail(StatusCode::kInvalidArgument, what, ": parameter '", key, "' must be a JSON list, given '",
         text, "'");
  return j;
}

}  // namespace

std::unique_ptr<Initializer> Initializer::Mixed(
    std::vector<std::string> patterns, std::vector<std::unique_ptr<Initializer>> initializers) {
  auto out = std::make_unique<MixedInit>(std::move(patterns), std::move(initializers));
  out->name_ = "mixed";
  return out;
}

namespace init_rules {

std::unique_ptr<Initializer> MixedFromText(const std::string& what, const std::string& patterns,
                                           const std::string& initializers, uint64_t seed) {
  const nlohmann::json p = JsonList(what, "patterns", patterns);
  const nlohmann::json inits = JsonList(what, "initializers", initializers);
  std::vector<std::string> pats;
  for (const auto& x : p) {
    if (!x.is_string())
      Fail(StatusCode::kInvalidArgument, what, ": parameter 'patterns' must list strings, given ",
           x.dump());
    pats.push_back(x.get<std::string>());
  }
  std::mt19937_64 seeds(seed);
  std::vector<std::unique_ptr<Initializer>> made;
  for (size_t i = 0; i < inits.size(); ++i) {
    const std::string text = inits[i].is_string() ? inits[i].get<std::string>() : inits[i].dump();
    try {
      made.push_back(Initializer::FromJSON(text, seeds()));
    } catch (const Error& e) {
      Fail(e.code(), what, ": initializer ", i, " (", text, "): ", e.what());
    }
  }
  return Initializer::Mixed(std::move(pats), std::move(made));
}

}  // namespace init_rules
}  // namespace weft
