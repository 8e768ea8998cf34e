#include "train_params.h"

#include <cctype>
#include <utility>

#include "weft/status.h"

namespace weft {
namespace train {

ParamDecl FloatDecl(const std::string& name, const std::string& def, double lo, double hi) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kFloat;
  d.default_value = def;
  d.required = def.empty();
  d.lo = lo;
  d.hi = hi;
  return d;
}

ParamDecl EnumDecl(const std::string& name, const std::string& def,
                   std::vector<std::string> choices) {
  ParamDecl d;
  d.name = name;
  d.type = ParamType::kEnum;
  d.default_value = def;
  d.choices = std::move(choices);
  return d;
}

namespace {

std::string Unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

std::map<std::string, ParamValue> ParseTrainParams(const std::string& what,
                                                   const std::vector<ParamDecl>& decls,
                                                   const StringMap& params,
                                                   const std::vector<std::string>& ignored) {
  std::map<std::string, ParamValue> out;
  for (const auto& kv : params) {
    bool skip = false;
    for (const auto& ig : ignored) skip = skip || ig == kv.first;
    if (skip) continue;
    const ParamDecl* decl = nullptr;
    for (const auto& d : decls)
      if (d.name == kv.first) decl = &d;
    if (!decl) {
      std::string names;
      for (const auto& d : decls) names += (names.empty() ? "" : ", ") + d.name;
      Fail(StatusCode::kInvalidArgument, what, ": unknown parameter '", kv.first, "' (value '",
           kv.second, "'); valid parameters: ", names.empty() ? "none" : names);
    }
    out[decl->name] = ParseParamValue(*decl, Unquote(kv.second), what);
  }
  for (const auto& d : decls) {
    if (out.count(d.name)) continue;
    if (d.required)
      Fail(StatusCode::kInvalidArgument, what, ": required parameter '", d.name, "' is missing");
    out[d.name] = ParseParamValue(d, d.default_value, what + " (default)");
  }
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace train
}  // namespace weft
