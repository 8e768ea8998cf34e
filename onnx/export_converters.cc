// ONNX export: the table of converters, one family file each.
#include "export_context.h"

namespace weft {
namespace onnx_export {

namespace {

const ConverterTable& Table() {
  static const ConverterTable* t = [] {
    auto* m = new ConverterTable;
    AddNNConverters(m);
    AddTensorConverters(m);
    AddElemwiseConverters(m);
    AddIndexConverters(m);
    AddAttentionConverters(m);
    AddRnnConverters(m);
    AddVisionConverters(m);
    AddBoxNmsConverters(m);
    AddMultiBoxConverters(m);
    return m;
  }();
  return *t;
}

}  // namespace

Converter FindConverter(const OpDef& op) {
  const ConverterTable& t = Table();
  auto it = t.find(op.name);
  if (it != t.end()) return it->second;
  for (const auto& a : op.aliases) {
    it = t.find(a);
    if (it != t.end()) return it->second;
  }
  return nullptr;
}

std::vector<std::string> ExportableOps() {
  std::vector<std::string> ops;
  for (const auto& [name, f] : Table()) ops.push_back(name);
  return ops;
}

}  // namespace onnx_export
}  // namespace weft
