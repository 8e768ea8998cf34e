// Tests of maximum/minimum/power/hypot/mod in their same-shape
// (elemwise_binary.cc), broadcast (broadcast.cc) and scalar
// (elemwise_scalar.cc) forms: PyTorch reference files
// (scripts/gen_op_refs_elemwise.py), numeric gradients, MXNet's tie and NaN
// rules, Python-style mod, aliases, scalar parameters and shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "util/op_refs.h"
#include "weft/runtime.h"
#include "weft/symbol_json.h"
#include "util/test_util.h"

namespace weft {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ElemwiseBinaryMath, MatchesPyTorchReferences) {
  for (const char* name : {"maximum", "minimum", "power", "hypot", "mod"}) {
    const std::string n = name;
    EXPECT_TRUE(test::CheckOpRef("_" + n + "_basic")) << n;
    EXPECT_TRUE(test::CheckOpRef("broadcast_" + n + "_row")) << n;
    EXPECT_TRUE(test::CheckOpRef("broadcast_" + n + "_both")) << n;
  }
  for (const char* stem :
       {"_Maximum_alias", "_Mod_alias", "_maximum_scalar_basic", "_minimum_scalar_basic",
        "_MinimumScalar_alias", "_power_scalar_basic", "_rpower_scalar_basic",
        "_hypot_scalar_basic", "_mod_scalar_basic", "_mod_scalar_negative", "_rmod_scalar_basic"})
    EXPECT_TRUE(test::CheckOpRef(stem)) << stem;
}

// Values in [lo, hi) with every other one negated when `both_signs`.
NDArray Signed(const Shape& s, double lo, double hi, unsigned seed, bool both_signs = true) {
  std::vector<double> v = test::Values(test::RandomArray(s, DType::kFloat64, lo, hi, seed));
  if (both_signs)
    for (size_t i = 0; i < v.size(); i += 2) v[i] = -v[i];
  return test::Array(s, v, DType::kFloat64);
}

TEST(ElemwiseBinaryMath, GradientsMatchNumeric) {
  struct Case {
    std::string op;
    Shape l, r;
    double llo, lhi, rlo, rhi;
    bool lsign, rsign;
  };
  std::vector<Case> cases;
  for (const auto& [l, r] : std::vector<std::pair<Shape, Shape>>{
           {{3, 4}, {3, 4}}, {{2, 3, 4}, {3, 1}}, {{2, 1, 4}, {1, 3, 1}}}) {
    const std::string pre = l == r ? "_" : "broadcast_";
    cases.push_back({pre + "maximum", l, r, 0.1, 2, 0.1, 2, true, true});
    cases.push_back({pre + "minimum", l, r, 0.1, 2, 0.1, 2, true, true});
    cases.push_back({pre + "power", l, r, 0.5, 2, 0.1, 1.5, false, true});
    cases.push_back({pre + "hypot", l, r, 0.1, 2, 0.1, 2, true, true});
    // lhs in (0.05, 0.45) + k: far from the jumps at multiples of rhs.
    cases.push_back({pre + "mod", l, r, 0.6, 0.95, 2.0, 2.0, true, true});
  }
  unsigned seed = 1;
  for (const Case& c : cases) {
    NDArray a = Signed(c.l, c.llo, c.lhi, seed++, c.lsign);
    NDArray b = c.op.find("mod") != std::string::npos
                    ? test::Array(c.r, std::vector<double>(c.r.Size(), 2.0), DType::kFloat64)
                    : Signed(c.r, c.rlo, c.rhi, seed++, c.rsign);
    std::string where;
    const double err = test::GradientError(c.op, {a, b}, {}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.op << " " << c.l << " " << c.r << ": " << where;
  }
  struct ScalarCase {
    const char* op;
    const char* scalar;
    double lo, hi;
    bool sign;
  };
  for (const ScalarCase& c : {ScalarCase{"_maximum_scalar", "0.05", 0.1, 2, true},
                              ScalarCase{"_minimum_scalar", "-0.05", 0.1, 2, true},
                              ScalarCase{"_power_scalar", "1.5", 0.2, 2, false},
                              ScalarCase{"_rpower_scalar", "2.5", 0.1, 2, true},
                              ScalarCase{"_hypot_scalar", "1.5", 0.1, 2, true},
                              ScalarCase{"_mod_scalar", "2", 0.6, 0.95, true},
                              ScalarCase{"_rmod_scalar", "2.5", 0.6, 0.95, true}}) {
    std::string where;
    const double err = test::GradientError(c.op, {Signed({3, 4}, c.lo, c.hi, seed++, c.sign)},
                                           {{"scalar", c.scalar}}, {}, 1e-6, &where);
    EXPECT_LT(err, 1e-6) << c.op << ": " << where;
  }
}

// Runs a two-output backward op on (ograd = 1, lhs, rhs).
std::vector<std::vector<double>> Backward2(const std::string& op, const std::vector<double>& l,
                                           const std::vector<double>& r) {
  const Shape s({static_cast<int64_t>(l.size())});
  auto g = test::Run(op, {test::Array(s, std::vector<double>(l.size(), 1.0), DType::kFloat64),
                          test::Array(s, l, DType::kFloat64), test::Array(s, r, DType::kFloat64)});
  return {test::Values(g[0]), test::Values(g[1])};
}

TEST(ElemwiseBinaryMath, MaxMinTiesGoToLhsAsMXNet) {
  const std::vector<double> l = {1, 2, 3}, r = {1, 3, 2};
  for (const char* op : {"_backward_maximum", "_backward_broadcast_maximum"}) {
    auto g = Backward2(op, l, r);
    EXPECT_EQ(g[0], (std::vector<double>{1, 0, 1})) << op;
    EXPECT_EQ(g[1], (std::vector<double>{0, 1, 0})) << op;
  }
  for (const char* op : {"_backward_minimum", "_backward_broadcast_minimum"}) {
    auto g = Backward2(op, l, r);
    EXPECT_EQ(g[0], (std::vector<double>{1, 1, 0})) << op;
    EXPECT_EQ(g[1], (std::vector<double>{0, 0, 1})) << op;
  }
  // Scalar forms: the data wins ties.
  const NDArray og = test::Array({3}, {1, 1, 1}, DType::kFloat64);
  const NDArray x = test::Array({3}, {0, 1, 2}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("_backward_maximum_scalar", {og, x}, {{"scalar", "1"}})[0]),
            (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(test::Values(test::Run("_backward_minimum_scalar", {og, x}, {{"scalar", "1"}})[0]),
            (std::vector<double>{1, 1, 0}));
}

void ExpectNaNAware(const std::vector<double>& got, const std::vector<double>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
    else
      EXPECT_DOUBLE_EQ(got[i], want[i]) << what << " element " << i;
  }
}

TEST(ElemwiseBinaryMath, MaxMinPropagateNaN) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const NDArray a = test::Array({3}, {kNaN, 1, 2}, dt), b = test::Array({3}, {1, kNaN, 1}, dt);
    for (const char* op : {"_maximum", "broadcast_maximum"})
      ExpectNaNAware(test::Values(test::Run(op, {a, b})[0]), {kNaN, kNaN, 2}, op);
    for (const char* op : {"_minimum", "broadcast_minimum"})
      ExpectNaNAware(test::Values(test::Run(op, {a, b})[0]), {kNaN, kNaN, 1}, op);
    ExpectNaNAware(test::Values(test::Run("_maximum_scalar", {a}, {{"scalar", "1.5"}})[0]),
                   {kNaN, 1.5, 2}, "_maximum_scalar");
    ExpectNaNAware(test::Values(test::Run("_minimum_scalar", {a}, {{"scalar", "1.5"}})[0]),
                   {kNaN, 1, 1.5}, "_minimum_scalar");
  }
}

TEST(ElemwiseBinaryMath, ModHasTheSignOfTheDivisorAndZeroForZero) {
  const std::vector<double> l = {5, -5, 5, -5, 6, -6, 3.5, 2}, r = {3, 3, -3, -3, 3, -3, 0, 0.75};
  const std::vector<double> want = {2, 1, -1, -2, 0, 0, 0, 0.5};
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const Shape s({8});
    const NDArray a = test::Array(s, l, dt), b = test::Array(s, r, dt);
    ExpectNaNAware(test::Values(test::Run("_mod", {a, b})[0]), want, "_mod");
    ExpectNaNAware(test::Values(test::Run("broadcast_mod", {a, b})[0]), want, "broadcast_mod");
  }
  const NDArray x = test::Array({4}, {5, -5, 0, 2.5}, DType::kFloat64);
  ExpectNaNAware(test::Values(test::Run("_mod_scalar", {x}, {{"scalar", "-3"}})[0]),
                 {-1, -2, 0, -0.5}, "_mod_scalar");
  ExpectNaNAware(test::Values(test::Run("_mod_scalar", {x}, {{"scalar", "0"}})[0]), {0, 0, 0, 0},
                 "_mod_scalar by 0");
  ExpectNaNAware(test::Values(test::Run("_rmod_scalar", {x}, {{"scalar", "7"}})[0]), {2, -3, 0, 2},
                 "_rmod_scalar");
  // d(l mod r)/dr = -floor(l / r).
  auto g = Backward2("_backward_mod", {5, -5, 5}, {3, 3, -3});
  EXPECT_EQ(g[0], (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(g[1], (std::vector<double>{-1, 2, 2}));
}

TEST(ElemwiseBinaryMath, AliasesAndScalarParameters) {
  const OpRegistry& ops = Runtime::Global().ops();
  const std::pair<const char*, const char*> aliases[] = {{"_Maximum", "_maximum"},
                                                         {"_Minimum", "_minimum"},
                                                         {"_Power", "_power"},
                                                         {"_Hypot", "_hypot"},
                                                         {"_Mod", "_mod"},
                                                         {"_MaximumScalar", "_maximum_scalar"},
                                                         {"_MinimumScalar", "_minimum_scalar"},
                                                         {"_PowerScalar", "_power_scalar"},
                                                         {"_RPowerScalar", "_rpower_scalar"},
                                                         {"_HypotScalar", "_hypot_scalar"},
                                                         {"_ModScalar", "_mod_scalar"},
                                                         {"_RModScalar", "_rmod_scalar"}};
  for (const auto& [alias, name] : aliases) EXPECT_EQ(ops.Get(alias).name, name) << alias;
  // MXNet 1.x registers no `maximum`/`minimum` ops (they are Python helpers).
  EXPECT_EQ(ops.Find("maximum"), nullptr);
  // MXNet 1.9's scalar parameters: scalar defaults to 1; is_int is accepted.
  const NDArray x = test::Array({2}, {2, 3}, DType::kFloat64);
  EXPECT_EQ(test::Values(test::Run("_plus_scalar", {x})[0]), (std::vector<double>{3, 4}));
  EXPECT_EQ(
      test::Values(test::Run("_rpower_scalar", {x}, {{"scalar", "2"}, {"is_int", "False"}})[0]),
      (std::vector<double>{4, 8}));
}

TEST(ElemwiseBinaryMath, IncompatibleBroadcastNamesOpAndShapes) {
  for (const char* op : {"broadcast_maximum", "broadcast_minimum", "broadcast_power",
                         "broadcast_hypot", "broadcast_mod"}) {
    test::ExpectError(
        [&] {
          test::Run(op, {test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1),
                         test::RandomArray({4}, DType::kFloat32, 0, 1, 2)});
        },
        StatusCode::kShape, {op, "(2,3)", "(4,)"});
  }
  test::ExpectError(
      [] {
        test::Run("_maximum", {test::RandomArray({2, 3}, DType::kFloat32, 0, 1, 1),
                               test::RandomArray({3, 2}, DType::kFloat32, 0, 1, 2)});
      },
      StatusCode::kShape, {"_maximum", "(2,3)", "(3,2)"});
}

TEST(ElemwiseBinaryMath, BackwardShapeInference) {
  std::vector<Shape> in = {Shape({2, 3}), Shape(), Shape()}, out(2);
  EXPECT_TRUE(test::InferShapes("_backward_power", {}, &in, &out));
  EXPECT_EQ(in[1], Shape({2, 3}));
  EXPECT_EQ(out[1], Shape({2, 3}));
  in = {Shape({2, 3, 4}), Shape({2, 3, 4}), Shape({3, 1})};
  out = {Shape(), Shape()};
  EXPECT_TRUE(test::InferShapes("_backward_broadcast_hypot", {}, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 3, 4}));
  EXPECT_EQ(out[1], Shape({3, 1}));
}

TEST(ElemwiseBinaryMath, EveryOpHasAKernelWithReqAdd) {
  const Runtime& rt = Runtime::Global();
  for (const char* base : {"maximum", "minimum", "power", "hypot", "mod"}) {
    const std::string b = base;
    for (const std::string& op :
         {"_" + b, "_backward_" + b, "broadcast_" + b, "_backward_broadcast_" + b,
          "_" + b + "_scalar", "_backward_" + b + "_scalar"}) {
      const Kernel* k = rt.kernels().Find(op, DeviceType::kCPU);
      ASSERT_NE(k, nullptr) << op;
      EXPECT_TRUE(k->supports_add) << op;
      EXPECT_FALSE(rt.ops().Get(op).doc.empty()) << op;
    }
  }
  for (const char* op :
       {"_rpower_scalar", "_backward_rpower_scalar", "_rmod_scalar", "_backward_rmod_scalar"})
    EXPECT_NE(rt.kernels().Find(op, DeviceType::kCPU), nullptr) << op;
  // req=add on a broadcast backward op accumulates into both outputs.
  const NDArray og = test::Array({2, 2}, {1, 1, 1, 1}, DType::kFloat64);
  const NDArray l = test::Array({2, 2}, {1, 4, 3, 0}, DType::kFloat64);
  const NDArray r = test::Array({2}, {2, 2}, DType::kFloat64);
  std::vector<NDArray> outs = {test::Array({2, 2}, {10, 10, 10, 10}, DType::kFloat64),
                               test::Array({2}, {10, 10}, DType::kFloat64)};
  InvokeOptions opts;
  opts.reqs = {OpReq::kAdd, OpReq::kAdd};
  Invoke(&Runtime::Global(), "_backward_broadcast_maximum", {og, l, r}, {}, &outs, opts);
  EXPECT_EQ(test::Values(outs[0]), (std::vector<double>{10, 11, 11, 10}));
  EXPECT_EQ(test::Values(outs[1]), (std::vector<double>{11, 11}));
}

// The variable named `name` among the ancestors of `e`, or null.
NodePtr FindVariable(const NodeEntry& e, const std::string& name) {
  if (e.node->is_variable()) return e.node->attrs.name == name ? e.node : nullptr;
  for (const NodeEntry& in : e.node->inputs)
    if (NodePtr v = FindVariable(in, name)) return v;
  return nullptr;
}

// How exported models spell these ops: ReLU6 as _maximum_scalar (MXNet 1.9
// with is_int) then the legacy _MinimumScalar, a BERT-style
// _contrib_div_sqrt_dim, and an attention mask from broadcast_lesser.
TEST(ElemwiseBinaryMath, LoadsAndRunsExportedSpellings) {
  const std::string text = R"JS({"attrs": {"mxnet_version": ["int", 10900]},
    "heads": [[3, 0, 0], [6, 0, 0]], "arg_nodes": [0, 4],
    "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7],
    "nodes": [
      {"op": "null", "name": "data", "inputs": []},
      {"op": "_maximum_scalar", "name": "r0", "attrs": {"scalar": "0.0", "is_int": "False"},
       "inputs": [[0, 0, 0]]},
      {"op": "_MinimumScalar", "name": "r6", "attrs": {"scalar": "6"}, "inputs": [[1, 0, 0]]},
      {"op": "_contrib_div_sqrt_dim", "name": "q", "inputs": [[2, 0, 0]]},
      {"op": "null", "name": "len", "inputs": []},
      {"op": "broadcast_lesser", "name": "lt", "inputs": [[0, 0, 0], [4, 0, 0]]},
      {"op": "_equal_scalar", "name": "mask", "attrs": {"scalar": "1"}, "inputs": [[5, 0, 0]]}
    ]})JS";
  LoadedSymbol s = LoadJSON(text, Runtime::Global().ops());
  const NodeEntry& q = s.symbol.outputs[0];
  std::map<const Node*, NDArray> bind = {
      {FindVariable(q, "data").get(),
       test::Array({2, 4}, {-3, 1, 8, 4, 6.5, 0, 2, -1}, DType::kFloat64)},
      {FindVariable(s.symbol.outputs[1], "len").get(),
       test::Array({2, 1}, {2, 5}, DType::kFloat64)}};
  EXPECT_EQ(test::Values(test::Eval(q, bind)), (std::vector<double>{0, 0.5, 3, 2, 3, 0, 1, 0}));
  EXPECT_EQ(test::Values(test::Eval(s.symbol.outputs[1], bind)),
            (std::vector<double>{1, 1, 0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace weft
