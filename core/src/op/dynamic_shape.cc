// See weft/dynamic_shape.h.
#include "weft/dynamic_shape.h"

#include <map>
#include <memory>

#include "weft/mutex.h"

namespace weft {

namespace {

struct Table {
  Mutex mu;
  std::map<std::string, std::shared_ptr<const DynamicShapeOp>> ops WEFT_GUARDED_BY(mu);
};

Table& Dynamic() {
  static Table* t = new Table;  // never destroyed: looked up until exit
  return *t;
}

}  // namespace

void RegisterDynamicShapeOp(const std::string& op_name, DynamicShapeOp fns) {
  Table& t = Dynamic();
  MutexLock lock(&t.mu);
  t.ops[op_name] = std::make_shared<const DynamicShapeOp>(std::move(fns));
}

const DynamicShapeOp* FindDynamicShapeOp(const std::string& op_name) {
  Table& t = Dynamic();
  MutexLock lock(&t.mu);
  const auto it = t.ops.find(op_name);
  return it == t.ops.end() ? nullptr : it->second.get();
}

}  // namespace weft
