// ONNX export: constant folding of parameter-only and shape-only nodes.
#include "export_fold.h"

#include <vector>

#include "weft/imperative.h"
#include "weft/op.h"
#include "weft/status.h"

namespace weft {
namespace onnx_export {

namespace {

bool HasName(const OpDef& op, const char* name) {
  if (op.name == name) return true;
  for (const auto& a : op.aliases)
    if (a == name) return true;
  return false;
}

// Operators whose outputs are a function of their inputs' shapes only.
bool IsShapeOnly(const OpDef& op) {
  return HasName(op, "_contrib_MultiBoxPrior") || HasName(op, "_contrib_arange_like");
}

}  // namespace

bool TryFold(Context& cx, const ExportNode& n) {
  Runtime* rt = cx.options().runtime;
  const OpDef& op = *n.node->op();
  if (!rt || op.uses_rng) return false;
  std::vector<NDArray> inputs;
  if (op.is_source) {
    // Sources whose parameters fix the output (_arange); those whose shape
    // inference fills in (_zeros with a 0 extent) have converters.
    if (!n.out_shapes[0].is_known()) return false;
    try {
      std::vector<NDArray> outs = Invoke(rt, op.name, {}, n.node->attrs.dict);
      if (outs.empty() || outs[0].shape() != n.out_shapes[0]) return false;
      for (size_t i = 0; i < outs.size() && i < n.outputs.size(); ++i)
        cx.AddConstant(n.outputs[i], outs[i]);
    } catch (const Error&) {
      return false;
    }
    return true;
  }
  if (n.inputs.empty()) return false;
  if (IsShapeOnly(op)) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      NDArray z(n.in_shapes[i], weft::Context::CPU(), n.in_types[i], rt);
      std::vector<char> zeros(z.Bytes(), 0);
      if (!zeros.empty()) z.CopyFromHost(zeros.data(), zeros.size());
      inputs.push_back(z);
    }
  } else {
    for (const auto& name : n.inputs) {
      const NDArray* p = cx.Param(name);
      if (!p) return false;
      inputs.push_back(*p);
    }
  }
  std::vector<NDArray> outs = Invoke(rt, op.name, inputs, n.node->attrs.dict);
  for (size_t i = 0; i < outs.size() && i < n.outputs.size(); ++i)
    cx.AddConstant(n.outputs[i], outs[i]);
  if (IsShapeOnly(op))
    cx.Note(n, "computed at export for input shape " + n.in_shapes[0].ToString() +
                   " and stored as a constant");
  return true;
}

}  // namespace onnx_export
}  // namespace weft
