// Operator parameters: typed declarations and values parsed from strings.
//
// Every OpDef lists its parameters as `ParamDecl`s (name, type, default,
// range or enum choices, doc). `ParseParams` turns MXNet-style string
// key/value pairs ("(3, 3)", "True", "1e-05", "None", enum names) into a
// `ParamValues`, filling defaults. Unknown keys, bad values, out-of-range
// numbers and missing required parameters fail with Error(kInvalidArgument)
// naming the op, the key, the bad value and what was expected.
#ifndef WEFT_PARAM_H_
#define WEFT_PARAM_H_

#include <map>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "weft/device.h"
#include "weft/dtype.h"
#include "weft/shape.h"

namespace weft {

enum class ParamType {
  kInt,
  kFloat,
  kBool,
  kShape,  // a tuple such as (3, 3); also accepts a bare integer
  kEnum,   // one of `choices`
  kString,
  kDType,    // a dtype name
  kContext,  // "cpu(0)"
};
const char* ParamTypeName(ParamType t);

using StringMap = std::map<std::string, std::string>;

struct ParamDecl {
  std::string name;
  ParamType type = ParamType::kFloat;
  // Text of the default value; ignored when `required`.
  std::string default_value;
  bool required = false;
  // The value may be the literal "None" (an optional parameter).
  bool optional = false;
  // Inclusive numeric range, checked when lo <= hi.
  double lo = 1, hi = 0;
  std::vector<std::string> choices;  // kEnum only
  std::string doc;
  // Collects every key no other declaration names, unparsed, into
  // ParamValue::rest (Custom's attributes for its host creator); at most one
  // per op, of type kString.
  bool rest = false;
};

// One parsed value. `is_none` is set for an optional parameter given "None".
struct ParamValue {
  bool is_none = false;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  Shape shape;
  std::string s;  // kEnum, kString: the text; kDType/kContext: canonical text
  DType dtype = DType::kUnknown;
  Context ctx;
  StringMap rest;  // ParamDecl::rest: the keys no other declaration names
};

// Parsed parameters of one op instance, in declaration order.
class ParamValues {
 public:
  ParamValues() = default;
  ParamValues(const std::vector<ParamDecl>* decls, std::vector<ParamValue> values,
              std::string op_name);

  // The parameters decoded into the struct P (nnvm's attr_parser): P's
  // `static P Decode(const ParamValues&)` runs on the first call for this
  // parse and its result is kept, shared by every copy of these values, so
  // a kernel's per-call code reads fields instead of looking names up.
  // Thread-safe; REQUIRES: values made by ParseParams.
  template <typename P>
  const P& Decoded() const {
    if (const void* d = FindDecoded(typeid(P))) return *static_cast<const P*>(d);
    return *static_cast<const P*>(
        StoreDecoded(typeid(P), std::make_shared<const P>(P::Decode(*this))));
  }

  // Typed getters; asking for an undeclared name is a bug (kInternal).
  int64_t GetInt(const std::string& name) const { return Get(name).i; }
  double GetFloat(const std::string& name) const { return Get(name).f; }
  bool GetBool(const std::string& name) const { return Get(name).b; }
  const Shape& GetShape(const std::string& name) const { return Get(name).shape; }
  const std::string& GetString(const std::string& name) const { return Get(name).s; }
  DType GetDType(const std::string& name) const { return Get(name).dtype; }
  Context GetContext(const std::string& name) const { return Get(name).ctx; }
  bool IsNone(const std::string& name) const { return Get(name).is_none; }
  // Whether the op declares `name`.
  bool Has(const std::string& name) const;
  const ParamValue& Get(const std::string& name) const;
  size_t size() const { return values_.size(); }

 private:
  struct DecodedCache;
  const void* FindDecoded(const std::type_info& type) const;
  // Keeps `value` unless another thread stored one first; returns the kept one.
  const void* StoreDecoded(const std::type_info& type, std::shared_ptr<const void> value) const;

  const std::vector<ParamDecl>* decls_ = nullptr;
  std::vector<ParamValue> values_;
  std::string op_name_;
  std::shared_ptr<DecodedCache> decoded_;  // shared by copies: the values never change
};

// Parses `kwargs` against `decls` for operator `op_name`. Keys in `ignored`
// (and keys of the form __name__, MXNet's hidden attributes) are skipped;
// other unknown keys go to the ParamDecl::rest declaration when there is one.
ParamValues ParseParams(const std::string& op_name, const std::vector<ParamDecl>* decls,
                        const StringMap& kwargs, const std::vector<std::string>& ignored = {});

// Parses one value of `decl`; `what` prefixes the error message.
ParamValue ParseParamValue(const ParamDecl& decl, const std::string& text, const std::string& what);

// Parses MXNet booleans: True/False/true/false/1/0.
bool ParseBool(const std::string& text, bool* out);

}  // namespace weft

#endif  // WEFT_PARAM_H_
