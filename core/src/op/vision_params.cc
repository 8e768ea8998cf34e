#include "vision_params.h"

#include <cerrno>
#include <cstdlib>

#include "nn_spatial.h"

namespace weft {
namespace op {

ParamDecl FloatTupleParam(const std::string& name, const std::string& def, const std::string& doc) {
  return StringParam(name, def, doc + " (a tuple of floats)");
}

std::vector<float> FloatTupleValue(const NodeAttrs& attrs, const std::string& key, int want_len,
                                   int min_len) {
  const std::string& text = attrs.params.GetString(key);
  std::vector<float> v;
  auto bad = [&](const std::string& why) {
    Fail(StatusCode::kInvalidArgument, OpLabel(attrs), ": parameter '", key, "' = '", text, "' ",
         why);
  };
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    const char* start = text.c_str() + i;
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(start, &end);
    if (end == start || errno == ERANGE) bad("is not a tuple of floats");
    v.push_back(static_cast<float>(x));
    i += static_cast<size_t>(end - start);
  }
  if (want_len >= 0 && static_cast<int>(v.size()) != want_len)
    bad("must have " + std::to_string(want_len) + " values, given " + std::to_string(v.size()));
  if (static_cast<int>(v.size()) < min_len)
    bad("must have at least " + std::to_string(min_len) + " value(s)");
  return v;
}

}  // namespace op
}  // namespace weft
