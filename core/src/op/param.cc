#include "weft/param.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "weft/mutex.h"
#include "weft/status.h"

namespace weft {

const char* ParamTypeName(ParamType t) {
  switch (t) {
    case ParamType::kInt:
      return "int";
    case ParamType::kFloat:
      return "float";
    case ParamType::kBool:
      return "boolean";
    case ParamType::kShape:
      return "shape";
    case ParamType::kEnum:
      return "enum";
    case ParamType::kString:
      return "string";
    case ParamType::kDType:
      return "dtype";
    case ParamType::kContext:
      return "context";
  }
  return "unknown";
}

bool ParseBool(const std::string& text, bool* out) {
  if (text == "True" || text == "true" || text == "1") {
    *out = true;
    return true;
  }
  if (text == "False" || text == "false" || text == "0") {
    *out = false;
    return true;
  }
  return false;
}

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n\r");
  return s.substr(b, e - b + 1);
}

std::string JoinChoices(const std::vector<std::string>& c) {
  std::string s = "{";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", '" : "'") + c[i] + "'";
  return s + "}";
}

std::string Expected(const ParamDecl& d) {
  switch (d.type) {
    case ParamType::kInt:
      return "an integer";
    case ParamType::kFloat:
      return "a number";
    case ParamType::kBool:
      return "a boolean (True/False/1/0)";
    case ParamType::kShape:
      return "a tuple such as (3, 3) or an integer";
    case ParamType::kEnum:
      return "one of " + JoinChoices(d.choices);
    case ParamType::kString:
      return "a string";
    case ParamType::kDType:
      return "a dtype name such as float32";
    case ParamType::kContext:
      return "a context such as cpu(0)";
  }
  return "a value";
}

}  // namespace

ParamValue ParseParamValue(const ParamDecl& d, const std::string& raw, const std::string& what) {
  std::string text = Trim(raw);
  auto bad = [&](const std::string& why) -> ParamValue {
    Fail(StatusCode::kInvalidArgument, what, ": invalid value '", raw, "' for parameter '", d.name,
         "'", why.empty() ? "" : " (" + why + ")", "; expected ", Expected(d));
  };
  ParamValue v;
  if (d.optional && text == "None") {
    v.is_none = true;
    return v;
  }
  switch (d.type) {
    case ParamType::kInt: {
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno == ERANGE) {
        // Accept integral floats such as "2.0" as MXNet does.
        double f = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || f != std::floor(f) || std::fabs(f) > 9e15)
          return bad("");
        x = static_cast<long long>(f);
      }
      v.i = x;
      v.f = static_cast<double>(x);
      break;
    }
    case ParamType::kFloat: {
      char* end = nullptr;
      double f = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') {
        if (text == "inf" || text == "Infinity")
          f = INFINITY;
        else if (text == "-inf" || text == "-Infinity")
          f = -INFINITY;
        else
          return bad("");
      }
      v.f = f;
      break;
    }
    case ParamType::kBool:
      if (!ParseBool(text, &v.b)) return bad("");
      v.i = v.b;
      break;
    case ParamType::kShape:
      try {
        v.shape = Shape::Parse(text);
      } catch (const Error& e) {
        return bad(e.what());
      }
      break;
    case ParamType::kEnum: {
      bool found = false;
      for (size_t k = 0; k < d.choices.size(); ++k) {
        if (d.choices[k] == text) {
          v.i = static_cast<int64_t>(k);
          found = true;
        }
      }
      if (!found) return bad("");
      v.s = text;
      break;
    }
    case ParamType::kString:
      v.s = raw;
      break;
    case ParamType::kDType:
      try {
        v.dtype = ParseDType(text);
      } catch (const Error& e) {
        return bad("");
      }
      v.s = DTypeName(v.dtype);
      break;
    case ParamType::kContext:
      try {
        v.ctx = Context::Parse(text);
      } catch (const Error& e) {
        return bad("");
      }
      v.s = v.ctx.ToString();
      break;
  }
  if (d.lo <= d.hi && (d.type == ParamType::kInt || d.type == ParamType::kFloat)) {
    double x = d.type == ParamType::kInt ? static_cast<double>(v.i) : v.f;
    if (!(x >= d.lo && x <= d.hi)) return bad(StrCat("out of range [", d.lo, ", ", d.hi, "]"));
  }
  return v;
}

ParamValues ParseParams(const std::string& op_name, const std::vector<ParamDecl>* decls,
                        const StringMap& kwargs, const std::vector<std::string>& ignored) {
  std::vector<ParamValue> values(decls->size());
  std::vector<bool> seen(decls->size(), false);
  std::string what = "operator " + op_name;
  for (const auto& kv : kwargs) {
    const std::string& key = kv.first;
    if (key.size() > 4 && key.compare(0, 2, "__") == 0 && key.compare(key.size() - 2, 2, "__") == 0)
      continue;
    bool skip = false;
    for (const auto& ig : ignored) skip = skip || ig == key;
    if (skip) continue;
    size_t idx = decls->size();
    for (size_t i = 0; i < decls->size(); ++i)
      if ((*decls)[i].name == key) idx = i;
    if (idx == decls->size()) {
      for (size_t i = 0; i < decls->size(); ++i)
        if ((*decls)[i].rest) idx = i;
      if (idx != decls->size()) {
        values[idx].rest[key] = kv.second;
        seen[idx] = true;
        continue;
      }
      std::string names;
      for (const auto& d : *decls) names += (names.empty() ? "" : ", ") + d.name;
      Fail(StatusCode::kInvalidArgument, what, ": unknown parameter '", key, "' (value '",
           kv.second, "'); valid parameters: ", names.empty() ? "none" : names);
    }
    values[idx] = ParseParamValue((*decls)[idx], kv.second, what);
    seen[idx] = true;
  }
  for (size_t i = 0; i < decls->size(); ++i) {
    if (seen[i]) continue;
    const ParamDecl& d = (*decls)[i];
    if (d.required)
      Fail(StatusCode::kInvalidArgument, what, ": required parameter '", d.name,
           "' is missing; expected ", Expected(d));
    values[i] = ParseParamValue(d, d.default_value, what + " (default)");
  }
  return ParamValues(decls, std::move(values), op_name);
}

struct ParamValues::DecodedCache {
  Mutex mu;
  std::vector<std::pair<const std::type_info*, std::shared_ptr<const void>>> entries
      WEFT_GUARDED_BY(mu);
};

ParamValues::ParamValues(const std::vector<ParamDecl>* decls, std::vector<ParamValue> values,
                         std::string op_name)
    : decls_(decls),
      values_(std::move(values)),
      op_name_(std::move(op_name)),
      decoded_(std::make_shared<DecodedCache>()) {}

const void* ParamValues::FindDecoded(const std::type_info& type) const {
  WEFT_CHECK(decoded_) << "operator " << op_name_ << ": decoding parameters that were not parsed";
  MutexLock lock(&decoded_->mu);
  for (const auto& e : decoded_->entries)
    if (*e.first == type) return e.second.get();
  return nullptr;
}

const void* ParamValues::StoreDecoded(const std::type_info& type,
                                      std::shared_ptr<const void> value) const {
  MutexLock lock(&decoded_->mu);
  for (const auto& e : decoded_->entries)
    if (*e.first == type) return e.second.get();
  decoded_->entries.emplace_back(&type, std::move(value));
  return decoded_->entries.back().second.get();
}

bool ParamValues::Has(const std::string& name) const {
  if (!decls_) return false;
  for (const ParamDecl& d : *decls_)
    if (d.name == name) return true;
  return false;
}

const ParamValue& ParamValues::Get(const std::string& name) const {
  if (decls_) {
    for (size_t i = 0; i < decls_->size(); ++i)
      if ((*decls_)[i].name == name) return values_[i];
  }
  Fail(StatusCode::kInternal, "operator ", op_name_, " has no parameter '", name, "'");
}

}  // namespace weft
