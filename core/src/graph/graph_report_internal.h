// What the summary and the DOT picture share: the symbol indexed with its
// shapes and types inferred, and their text forms.
#ifndef WEFT_CORE_SRC_GRAPH_GRAPH_REPORT_INTERNAL_H_
#define WEFT_CORE_SRC_GRAPH_GRAPH_REPORT_INTERNAL_H_

#include <memory>
#include <set>
#include <string>

#include "weft/graph.h"
#include "weft/pass.h"
#include "weft/symbol.h"

namespace weft {
namespace report {

struct Inferred {
  std::unique_ptr<IndexedGraph> g;
  pass::ShapeResult shapes;
  pass::TypeResult types;
  std::set<std::string> aux;  // the symbol's auxiliary states
};
// Infers what it can (partial results are fine); inputs named in `shapes`
// default to float32.
Inferred Infer(const Symbol& sym, const pass::ShapeMap& shapes, const pass::DTypeMap& dtypes);
// "3x224x224" (the batch axis dropped, as MXNet prints), "?" when unknown.
std::string ShapeText(const Shape& s);
// 1234567 -> "1.23M".
std::string Compact(int64_t n);

}  // namespace report
}  // namespace weft

#endif  // WEFT_CORE_SRC_GRAPH_GRAPH_REPORT_INTERNAL_H_
