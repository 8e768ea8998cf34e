// ONNX import of models exported from PyTorch (scripts/make_onnx_import_models.py,
// tests/data/onnx/): Weft's outputs on the imported model equal PyTorch's,
// stored once as .npy files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "util/test_util.h"
#include "weft/npy.h"
#include "weft/onnx_import.h"
#include "weft/predictor.h"
#include "weft/runtime.h"

namespace weft {
namespace {

std::string DataPath(const std::string& file) { return test::TestDataDir() + "/onnx/" + file; }

// Runs the imported `name`.onnx on its stored inputs with a predictor and
// compares every output with PyTorch's: |w - t| <= rtol * (|t| + max|t|).
// With `fix_shapes`, the inputs' shapes are given to the import (a model
// with dynamic extents whose shape computations must fold). Without `fuse`,
// every ONNX node is imported as its own operator (no LayerNorm, GELU or
// dense-layer fusion). Returns how many groups the import fused.
int CheckModel(const std::string& name, double rtol, bool fix_shapes = false, bool fuse = true) {
  Runtime* rt = &Runtime::Global();
  OnnxImportOptions options;
  options.fuse = fuse;
  std::vector<NDArray> inputs;
  for (size_t i = 0;; ++i) {
    const std::string path = DataPath(name + ".input" + std::to_string(i) + ".npy");
    if (!std::filesystem::exists(path)) break;
    inputs.push_back(LoadNpyFile(path, rt));
    if (fix_shapes) options.input_shapes["input" + std::to_string(i)] = inputs.back().shape();
  }
  const OnnxModel m = ImportOnnxFile(DataPath(name + ".onnx"), rt, options);
  EXPECT_EQ(m.inputs.size(), inputs.size()) << name;
  if (m.inputs.size() != inputs.size()) return m.fused;
  std::vector<std::pair<std::string, Shape>> shapes;
  for (size_t i = 0; i < m.inputs.size(); ++i)
    shapes.emplace_back(m.inputs[i].first, inputs[i].shape());
  auto pred = Predictor::Create(rt, m.symbol, ParamMaps{m.args, m.aux}, shapes, Context::CPU());
  std::vector<Shape> in_shapes;
  std::vector<HostInput> host_in;
  std::vector<std::vector<char>> in_data;  // any dtype (token ids are int64)
  for (const NDArray& a : inputs) {
    in_shapes.push_back(a.shape());
    in_data.emplace_back(a.Bytes());
    a.CopyToHost(in_data.back().data(), in_data.back().size());
    host_in.emplace_back(in_data.back().data(), in_data.back().size(), a.shape());
  }
  const std::vector<Shape> out_shapes = pred->OutputShapes(in_shapes);
  std::vector<std::vector<float>> out(out_shapes.size());
  std::vector<HostOutput> host_out;
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].resize(static_cast<size_t>(out_shapes[k].Size()));
    host_out.emplace_back(out[k].data(), out[k].size() * sizeof(float));
  }
  pred->Predict(host_in, host_out);
  for (size_t k = 0; k < out.size(); ++k) {
    const NDArray ref = LoadNpyFile(DataPath(name + ".output" + std::to_string(k) + ".npy"), rt);
    EXPECT_EQ(out_shapes[k], ref.shape()) << name << " output " << k;
    if (out_shapes[k] != ref.shape()) continue;
    const std::vector<double> t = test::Values(ref);
    double scale = 0;
    for (double v : t) scale = std::max(scale, std::fabs(v));
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      const double err = std::fabs(out[k][i] - t[i]) / (std::fabs(t[i]) + scale);
      if (err > worst) worst = err, at = i;
    }
    EXPECT_LE(worst, rtol) << name << " output " << k << " element " << at << ": weft "
                           << out[k][at] << ", torch " << t[at];
  }
  return m.fused;
}

TEST(OnnxImportModels, MlpWithDynamicBatch) {
  CheckModel("mlp", 1e-5);
  const OnnxModel m = ImportOnnxFile(DataPath("mlp.onnx"), &Runtime::Global());
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].second, Shape({0, 20}));  // dim_param "batch": unknown extent
  EXPECT_EQ(m.opset, 9);
}

TEST(OnnxImportModels, LeNet) { CheckModel("lenet", 1e-5); }

TEST(OnnxImportModels, ResNetWithBatchNormAuxStates) {
  CheckModel("resnet", 1e-5);
  const OnnxModel m = ImportOnnxFile(DataPath("resnet.onnx"), &Runtime::Global());
  // Each BatchNorm's running mean and variance are auxiliary states, its
  // scale and bias arguments, as MXNet splits them.
  EXPECT_EQ(m.aux.size(), 2u * 12);
  for (const auto& kv : m.aux)
    EXPECT_TRUE(kv.first.find("running_") != std::string::npos) << kv.first;
  EXPECT_TRUE(m.args.count("bn1.weight"));
  EXPECT_TRUE(m.aux.count("bn1.running_mean"));
}

// Two LayerNorms, the erf GELU and four dense layers (the attention's
// in-projection is one MatMul too) are fused at import; without the fusion
// the ops of the export give the same outputs.
TEST(OnnxImportModels, TransformerEncoderBlock) {
  EXPECT_GT(CheckModel("encoder", 1e-5), 0);
  EXPECT_EQ(CheckModel("encoder", 1e-5, false, /*fuse=*/false), 0);
}

// Token and position embeddings (Gather on int64 ids), LayerNorm decomposed
// by the opset-14 export (ReduceMean, Sub, Pow, Sqrt, Div), an additive
// attention mask, two outputs.
TEST(OnnxImportModels, TinyBertWithMask) {
  EXPECT_GT(CheckModel("bert_tiny", 1e-5), 0);
  EXPECT_EQ(CheckModel("bert_tiny", 1e-5, false, /*fuse=*/false), 0);
}

// The same exported with dynamic batch and sequence axes: its reshapes are
// computed from Shape at run time in ONNX; Weft folds them at import once
// the input shapes are given, and says which node needs them otherwise.
TEST(OnnxImportModels, TinyBertWithDynamicAxes) {
  CheckModel("bert_dyn", 1e-5, /*fix_shapes=*/true);
  test::ExpectError(
      [] { ImportOnnxFile(DataPath("bert_dyn.onnx"), &Runtime::Global()); },
      StatusCode::kNotImplemented,
      {"bert_dyn.onnx: node '/Shape' (Shape)", "the shape of its input 'input0' is (0,0)",
       "give the input shapes at import"});
}

TEST(OnnxImportModels, Lstm) { CheckModel("lstm", 1e-5); }

TEST(OnnxImportModels, BidirectionalGru) { CheckModel("gru", 1e-5); }

// Resize (nearest x2, bilinear to a folded size), RoiAlign (half-pixel,
// ROIs and batch indices split from one input), Gemm, TopK.
TEST(OnnxImportModels, DetectionHeadResizeRoiAlignTopK) { CheckModel("det_head", 1e-5); }

// Attributes that became inputs: opset 7 (Clip min/max, Upsample scales,
// Slice starts/ends, ReduceMean and Unsqueeze axes as attributes) and
// opset 18 (the same as inputs, Split num_outputs, a negative Slice step;
// Debian's libonnx 1.12 knows opsets up to 17, so opset 18 shapes come from
// Weft's inference). References from NumPy.
TEST(OnnxImportModels, Opset7Attributes) { CheckModel("opset7", 1e-6); }
TEST(OnnxImportModels, Opset18Inputs) { CheckModel("opset18", 1e-6); }

// MatMul's weight in an external file (at an offset), the bias in the typed
// float_data field.
TEST(OnnxImportModels, ExternalDataAndTypedFields) { CheckModel("ext_data", 1e-5); }

// Attention written with torch.einsum (opset 12): projections by per-head
// weights, scores, weighted values, the output projection, an ellipsis.
TEST(OnnxImportModels, EinsumAttention) { CheckModel("einsum_att", 1e-5); }

// Control flow built with onnx.helper, NumPy references: two If nodes on
// opposite conditions (both branches run; the branches read the graph's
// input and initializers and hold a Constant), onto _cond.
TEST(OnnxImportModels, IfOntoCond) { CheckModel("ctrl_if", 1e-5); }

// A Loop with a constant trip count and scan outputs (its body reads the
// iteration number and outer initializers), and a Loop whose condition
// depends on the data, onto _while_loop.
TEST(OnnxImportModels, LoopOntoWhileLoop) { CheckModel("ctrl_loop", 1e-5); }

// A Scan with one state and two scan outputs, onto _foreach.
TEST(OnnxImportModels, ScanOntoForeach) { CheckModel("ctrl_scan", 1e-5); }

TEST(OnnxImportModels, SupportedOpsListed) {
  const std::vector<std::string> ops = OnnxSupportedOps();
  for (const char* op :
       {"Conv", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization", "LSTM", "GRU",
        "Shape", "ConstantOfShape", "Softmax", "Einsum", "If", "Loop", "Scan"})
    EXPECT_TRUE(std::count(ops.begin(), ops.end(), op)) << op;
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
}

}  // namespace
}  // namespace weft
