// Thread-local naming and attribute scopes, hidden keys, scalar formatting
// and the arithmetic operators of Symbol.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "weft/op.h"
#include "weft/symbol.h"

namespace weft {

namespace {
thread_local NameManager* t_current_manager = nullptr;
thread_local StringMap t_scope_attrs;

NameManager* DefaultManager() {
  thread_local NameManager manager;
  return &manager;
}
}  // namespace

const std::vector<std::string>& HiddenKeys() {
  static const std::vector<std::string> keys = {
      "ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage", "profiler_scope"};
  return keys;
}

bool IsHiddenKey(const std::string& key) {
  for (const auto& k : HiddenKeys())
    if (k == key) return true;
  return false;
}

std::string HiddenKeyForm(const std::string& key) {
  return IsHiddenKey(key) ? "__" + key + "__" : key;
}

std::string NameManager::Get(const std::string& name, const std::string& hint) {
  if (!name.empty()) return prefix_ + name;
  int& counter = counters_[hint];
  return prefix_ + hint + std::to_string(counter++);
}

NameManager* NameManager::Current() {
  return t_current_manager ? t_current_manager : DefaultManager();
}

NameScope::NameScope(const std::string& prefix)
    : manager_(std::make_unique<NameManager>(prefix)), previous_(t_current_manager) {
  t_current_manager = manager_.get();
}

NameScope::~NameScope() { t_current_manager = previous_; }

AttrScope::AttrScope(const StringMap& attrs) : previous_(t_scope_attrs) {
  for (const auto& kv : attrs) t_scope_attrs[HiddenKeyForm(kv.first)] = kv.second;
}

AttrScope::~AttrScope() { t_scope_attrs = previous_; }

const StringMap& AttrScope::Current() { return t_scope_attrs; }

std::string FormatScalar(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  bool as_float = static_cast<double>(static_cast<float>(v)) == v;
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
    if (as_float ? std::strtof(buf, nullptr) == static_cast<float>(v)
                 : std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

namespace {
// The arithmetic operators have no runtime at hand: they resolve their
// built-in operators in a registry of core's own operator list
// (RegisterAllOps), built on first use and never changed. Every runtime
// registers the same definitions, and kernels are found by operator name.
const OpRegistry& BuiltinOps() {
  static const OpRegistry* reg = [] {
    auto* r = new OpRegistry();  // leaked like the graphs that point into it
    RegisterAllOps(r);
    return r;
  }();
  return *reg;
}
Symbol Binary(const char* op, const Symbol& a, const Symbol& b) {
  return Symbol::Apply(BuiltinOps(), op, {a, b});
}
Symbol Scalar(const char* op, const Symbol& a, double s) {
  return Symbol::Apply(BuiltinOps(), op, {a}, {{"scalar", FormatScalar(s)}});
}
}  // namespace

Symbol operator+(const Symbol& a, const Symbol& b) { return Binary("_Plus", a, b); }
Symbol operator-(const Symbol& a, const Symbol& b) { return Binary("_Minus", a, b); }
Symbol operator*(const Symbol& a, const Symbol& b) { return Binary("_Mul", a, b); }
Symbol operator/(const Symbol& a, const Symbol& b) { return Binary("_Div", a, b); }
Symbol operator+(const Symbol& a, double s) { return Scalar("_PlusScalar", a, s); }
Symbol operator-(const Symbol& a, double s) { return Scalar("_MinusScalar", a, s); }
Symbol operator*(const Symbol& a, double s) { return Scalar("_MulScalar", a, s); }
Symbol operator/(const Symbol& a, double s) { return Scalar("_DivScalar", a, s); }
Symbol operator+(double s, const Symbol& a) { return Scalar("_PlusScalar", a, s); }
Symbol operator-(double s, const Symbol& a) { return Scalar("_RMinusScalar", a, s); }
Symbol operator*(double s, const Symbol& a) { return Scalar("_MulScalar", a, s); }
Symbol operator/(double s, const Symbol& a) { return Scalar("_RDivScalar", a, s); }

}  // namespace weft
