// MXNet's AMP lists for float16 and bfloat16 (generated: amp_lists.cc).
// Internal to core/src/amp; the public entry is amp::DefaultLists.
#ifndef WEFT_CORE_SRC_AMP_AMP_LISTS_H_
#define WEFT_CORE_SRC_AMP_AMP_LISTS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "weft/amp.h"

namespace weft {
namespace amp {

// MXNet's lists (generated, amp_lists.cc).
OpLists Float16Lists();
OpLists BFloat16Lists();

// The lists ConvertSymbol applies (convert_model.cc).
struct Lists {
  std::set<std::string> target, fp32, widest, excluded;
  std::map<std::string, std::map<std::string, std::vector<std::string>>> conditional;
};
// The lists of `opts` (its overrides, else the defaults of its target dtype),
// checked as MXNet's convert_symbol checks them: no operator in two lists,
// every operator in some default list. Throws Error(kInvalidArgument)
// naming the operators.
Lists CheckedLists(const ConvertOptions& opts);
// With `data_names` float32, sets every other input's __dtype__ to the code
// type inference gives it (float32 where it cannot tell), as MXNet's
// convert_symbol does.
void SetParamDTypes(Symbol* sym, const std::set<std::string>& data_names);

}  // namespace amp
}  // namespace weft

#endif  // WEFT_CORE_SRC_AMP_AMP_LISTS_H_
