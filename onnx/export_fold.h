// ONNX export: nodes computed at export time and written as constants
// (onnx/export_*.cc only). A node is folded when the export has a runtime
// (OnnxExportOptions::runtime) and either every input is a parameter or an
// earlier constant (weights arithmetic, Gluon's _rnn_param_concat), or its
// outputs depend only on its inputs' shapes (MultiBoxPrior's anchors).
// Random operators are never folded.
#ifndef WEFT_ONNX_EXPORT_FOLD_H_
#define WEFT_ONNX_EXPORT_FOLD_H_

#include "export_context.h"

namespace weft {
namespace onnx_export {

// Folds `n` into constants named n.outputs when it can; returns whether it did.
bool TryFold(Context& cx, const ExportNode& n);

}  // namespace onnx_export
}  // namespace weft

#endif  // WEFT_ONNX_EXPORT_FOLD_H_
