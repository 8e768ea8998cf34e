// Reference data for operator tests: loading the JSON files that
// scripts/gen_op_refs.py (and scripts/gen_op_refs_*.py) write with PyTorch,
// and checking an operator's forward outputs and symbolic input gradients
// against them. Header-only (the test binary globs only test sources), so
// any test file can include it. CI needs no torch: the files are committed.
//
// Files live in tests/data/op_refs/<stem>.json, stem = "<op>_<case>"
// (the directory can be overridden with the env var WEFT_OP_REFS_DIR).
// One file is a JSON object:
//   "op":        the MXNet operator name to invoke (canonical name or alias)
//   "case":      a short label of the parameter combination
//   "params":    {key: value}, MXNet string kwargs exactly as passed to Invoke
//   "is_train":  optional bool (default false): forward and gradient run in
//                training mode
//   "inputs":    [Array, ...] one per op input, in the op's input order
//   "outputs":   [Array or null, ...] one per op output; null = not compared
//   "out_grads": [Array or null, ...] head gradient of each output; null =
//                zeros (missing key: all zeros)
//   "in_grads":  [Array or null, ...] expected gradient of
//                sum_j <out_grads[j], outputs[j]> w.r.t. each input; null =
//                not compared (non-differentiable inputs such as labels)
//   "inputs_after": optional [Array or null, ...] expected input values after
//                the forward call (mutated inputs: moving statistics,
//                optimizer state); null = not compared
//   "tol":       optional {"float32": [rtol, atol], "float64": [rtol, atol]}
//                overriding the defaults below
// Array = {"shape": [d0, d1, ...], "data": [row-major numbers],
//          "dtype": optional fixed dtype name ("int32", "float32", ...)}.
// Values are float64 computed by PyTorch and written with full precision.
// An Array without "dtype" takes the dtype the test runs in (float32 or
// float64), so one file serves both; one with "dtype" (e.g. indices of a
// cast-free integer input) always keeps it.
// A value x matches reference r when |x - r| <= atol + rtol * |r|; defaults
// float32 (1e-4, 1e-5), float64 (1e-10, 1e-12).
#ifndef WEFT_TESTS_UTIL_OP_REFS_H_
#define WEFT_TESTS_UTIL_OP_REFS_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "util/test_util.h"

namespace weft {
namespace test {

// One reference array (shape + float64 values, optional fixed dtype).
struct RefArray {
  Shape shape;
  std::vector<double> data;
  DType fixed_dtype = DType::kUnknown;  // kUnknown: follows the test dtype

  // The values as an NDArray of `dtype` (or the fixed dtype) on cpu(0).
  NDArray ToNDArray(DType dtype) const {
    return Array(shape, data, fixed_dtype == DType::kUnknown ? dtype : fixed_dtype);
  }
};

struct OpRef {
  std::string stem;  // "<op>_<case>"
  std::string op;
  std::string name;  // the case label
  StringMap params;
  bool is_train = false;
  std::vector<RefArray> inputs;
  std::vector<std::optional<RefArray>> outputs, out_grads, in_grads, inputs_after;
  std::map<std::string, std::pair<double, double>> tol;  // dtype name -> (rtol, atol)

  // (rtol, atol) for comparisons in `dtype`.
  std::pair<double, double> Tolerance(DType dtype) const {
    auto it = tol.find(DTypeName(dtype));
    if (it != tol.end()) return it->second;
    return dtype == DType::kFloat64 ? std::make_pair(1e-10, 1e-12) : std::make_pair(1e-4, 1e-5);
  }
};

// The directory holding the reference files.
inline std::string OpRefDir() {
  if (const char* env = std::getenv("WEFT_OP_REFS_DIR")) return env;
  return TestDataDir() + "/op_refs";
}

namespace op_refs_detail {

inline RefArray ParseArray(const nlohmann::json& j, const std::string& what) {
  RefArray a;
  if (!j.is_object() || !j.contains("shape") || !j.contains("data"))
    Fail(StatusCode::kIO, "op_refs: ", what, " is not an {shape, data} object");
  a.shape = Shape(j.at("shape").get<std::vector<int64_t>>());
  a.data = j.at("data").get<std::vector<double>>();
  if (j.contains("dtype")) a.fixed_dtype = ParseDType(j.at("dtype").get<std::string>());
  if (static_cast<int64_t>(a.data.size()) != a.shape.Size())
    Fail(StatusCode::kIO, "op_refs: ", what, " has ", a.data.size(), " values for shape ",
         a.shape.ToString());
  return a;
}

inline std::vector<std::optional<RefArray>> ParseList(const nlohmann::json& root,
                                                      const std::string& key) {
  std::vector<std::optional<RefArray>> out;
  if (!root.contains(key)) return out;
  size_t i = 0;
  for (const auto& e : root.at(key)) {
    if (e.is_null())
      out.emplace_back(std::nullopt);
    else
      out.emplace_back(ParseArray(e, StrCat(key, "[", i, "]")));
    ++i;
  }
  return out;
}

}  // namespace op_refs_detail

// Loads tests/data/op_refs/<stem>.json; throws Error(kIO) naming the file.
inline OpRef LoadOpRef(const std::string& stem) {
  const std::string path = OpRefDir() + "/" + stem + ".json";
  std::ifstream f(path);
  if (!f) Fail(StatusCode::kIO, "op_refs: cannot open ", path);
  nlohmann::json root;
  try {
    f >> root;
  } catch (const std::exception& e) {
    Fail(StatusCode::kIO, "op_refs: ", path, ": ", e.what());
  }
  OpRef r;
  r.stem = stem;
  r.op = root.at("op").get<std::string>();
  r.name = root.value("case", std::string());
  if (root.contains("params"))
    for (const auto& [k, v] : root.at("params").items())
      r.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  r.is_train = root.value("is_train", false);
  size_t i = 0;
  for (const auto& e : root.at("inputs"))
    r.inputs.push_back(op_refs_detail::ParseArray(e, StrCat(path, ": inputs[", i++, "]")));
  r.outputs = op_refs_detail::ParseList(root, "outputs");
  r.out_grads = op_refs_detail::ParseList(root, "out_grads");
  r.in_grads = op_refs_detail::ParseList(root, "in_grads");
  r.inputs_after = op_refs_detail::ParseList(root, "inputs_after");
  if (root.contains("tol"))
    for (const auto& [k, v] : root.at("tol").items())
      r.tol[k] = {v.at(0).get<double>(), v.at(1).get<double>()};
  return r;
}

// Whether `got` has `want`'s shape and every value within tolerance.
inline ::testing::AssertionResult ArrayNear(const NDArray& got, const RefArray& want, double rtol,
                                            double atol) {
  if (got.shape() != want.shape)
    return ::testing::AssertionFailure()
           << "shape " << got.shape().ToString() << ", expected " << want.shape.ToString();
  std::vector<double> v = Values(got);
  for (size_t i = 0; i < v.size(); ++i) {
    const double diff = std::fabs(v[i] - want.data[i]);
    if (!(diff <= atol + rtol * std::fabs(want.data[i])))
      return ::testing::AssertionFailure() << "element " << i << ": got " << v[i] << ", expected "
                                           << want.data[i] << " (|diff| " << diff << ")";
  }
  return ::testing::AssertionSuccess();
}

namespace op_refs_detail {

// Evaluates `entry` imperatively (like test::Eval) with `is_train`.
inline const std::vector<NDArray>& EvalTrain(const NodePtr& node,
                                             const std::map<const Node*, NDArray>& bindings,
                                             bool is_train,
                                             std::map<const Node*, std::vector<NDArray>>* memo) {
  auto it = memo->find(node.get());
  if (it != memo->end()) return it->second;
  std::vector<NDArray> outs;
  if (node->is_variable()) {
    outs.push_back(bindings.at(node.get()));
  } else {
    std::vector<NDArray> ins;
    for (const auto& e : node->inputs)
      ins.push_back(EvalTrain(e.node, bindings, is_train, memo)[e.index]);
    InvokeOptions opts;
    opts.is_train = is_train;
    Invoke(&Runtime::Global(), node->attrs.op->name, ins, node->attrs.dict, &outs, opts);
  }
  return (*memo)[node.get()] = outs;
}

inline std::vector<NDArray> FreshInputs(const OpRef& r, DType dtype) {
  std::vector<NDArray> in;
  for (const auto& a : r.inputs) in.push_back(a.ToNDArray(dtype));
  return in;
}

}  // namespace op_refs_detail

// Runs the reference's op in `dtype` and compares outputs, mutated inputs
// and (through OpDef::gradient, evaluated op by op) the input gradients.
inline ::testing::AssertionResult CheckOpRef(const OpRef& r, DType dtype) {
  const auto [rtol, atol] = r.Tolerance(dtype);
  const std::string label = StrCat(r.stem, " (", DTypeName(dtype), "): ");
  std::vector<NDArray> in = op_refs_detail::FreshInputs(r, dtype);
  std::vector<NDArray> outs;
  InvokeOptions opts;
  opts.is_train = r.is_train;
  Invoke(&Runtime::Global(), r.op, in, r.params, &outs, opts);
  for (size_t j = 0; j < r.outputs.size() && j < outs.size(); ++j) {
    if (!r.outputs[j]) continue;
    auto res = ArrayNear(outs[j], *r.outputs[j], rtol, atol);
    if (!res)
      return ::testing::AssertionFailure() << label << "output " << j << ": " << res.message();
  }
  if (r.outputs.size() > outs.size())
    return ::testing::AssertionFailure()
           << label << outs.size() << " outputs, reference has " << r.outputs.size();
  for (size_t i = 0; i < r.inputs_after.size() && i < in.size(); ++i) {
    if (!r.inputs_after[i]) continue;
    auto res = ArrayNear(in[i], *r.inputs_after[i], rtol, atol);
    if (!res)
      return ::testing::AssertionFailure()
             << label << "input " << i << " after forward: " << res.message();
  }
  bool any_grad = false;
  for (const auto& g : r.in_grads) any_grad = any_grad || g.has_value();
  if (!any_grad) return ::testing::AssertionSuccess();

  const OpRegistry& reg = Runtime::Global().ops();
  std::map<const Node*, NDArray> bindings;
  std::vector<NodeEntry> entries;
  std::vector<NDArray> fresh = op_refs_detail::FreshInputs(r, dtype);
  for (size_t i = 0; i < fresh.size(); ++i) {
    NodePtr v = MakeVariable(StrCat("in", i));
    bindings[v.get()] = fresh[i];
    entries.push_back({v, 0, 0});
  }
  NodePtr node = MakeOpNode(reg, r.op, "node", entries, r.params);
  if (!node->op()->gradient)
    return ::testing::AssertionFailure() << label << "op declares no gradient";
  std::vector<NodeEntry> ograds;
  for (size_t j = 0; j < outs.size(); ++j) {
    NodePtr v = MakeVariable(StrCat("ograd", j));
    if (j < r.out_grads.size() && r.out_grads[j]) {
      bindings[v.get()] = r.out_grads[j]->ToNDArray(outs[j].dtype());
    } else {
      bindings[v.get()] =
          Array(outs[j].shape(), std::vector<double>(outs[j].Size(), 0.0), outs[j].dtype());
    }
    ograds.push_back({v, 0, 0});
  }
  std::vector<NodeEntry> grads = node->op()->gradient(reg, node, ograds);
  if (grads.size() != fresh.size())
    return ::testing::AssertionFailure() << label << "gradient gives " << grads.size()
                                         << " entries for " << fresh.size() << " inputs";
  std::map<const Node*, std::vector<NDArray>> memo;
  for (size_t i = 0; i < r.in_grads.size() && i < grads.size(); ++i) {
    if (!r.in_grads[i]) continue;
    NDArray g =
        op_refs_detail::EvalTrain(grads[i].node, bindings, r.is_train, &memo)[grads[i].index];
    auto res = ArrayNear(g, *r.in_grads[i], rtol, atol);
    if (!res)
      return ::testing::AssertionFailure()
             << label << "gradient of input " << i << ": " << res.message();
  }
  return ::testing::AssertionSuccess();
}

// Runs `op`'s shape inference on partially known shapes (bidirectional
// checks): `*in` / `*out` are read and filled; returns infer_shape's result.
inline bool InferShapes(const std::string& op, const StringMap& params, std::vector<Shape>* in,
                        std::vector<Shape>* out) {
  const OpRegistry& reg = Runtime::Global().ops();
  std::vector<NodeEntry> entries;
  for (size_t i = 0; i < in->size(); ++i) entries.push_back({MakeVariable(StrCat("in", i)), 0, 0});
  NodePtr node = MakeOpNode(reg, op, op, entries, params);
  out->resize(node->num_outputs());
  return node->op()->infer_shape(node->attrs, in, out);
}

// Loads `stem` and checks it in float32 and float64.
inline ::testing::AssertionResult CheckOpRef(const std::string& stem) {
  OpRef r = LoadOpRef(stem);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    auto res = CheckOpRef(r, dt);
    if (!res) return res;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace test
}  // namespace weft

#endif  // WEFT_TESTS_UTIL_OP_REFS_H_
