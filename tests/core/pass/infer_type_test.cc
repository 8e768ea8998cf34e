// InferType: the same bidirectional structure as InferShape, for dtypes.
#include <gtest/gtest.h>

#include "core/graph/graph_test_nn_ops.h"
#include "core/json/json_test_util.h"
#include "weft/pass.h"
#include "weft/symbol.h"

namespace weft {
namespace {

using Names = std::vector<std::string>;
using Types = std::vector<DType>;
const OpRegistry& Reg() { return test::ModelTestRegistry(); }

Symbol Var(const std::string& name, DType hint = DType::kUnknown) {
  VariableHints h;
  h.dtype = hint;
  return Symbol::CreateVariable(name, h);
}
Symbol Op(const std::string& op, const std::vector<Symbol>& args, const StringMap& params = {},
          const std::string& name = "") {
  return Symbol::Apply(Reg(), op, args, params, name);
}
pass::TypeResult Infer(const Symbol& s, const pass::DTypeMap& in = {}) {
  return pass::InferType(IndexedGraph(s.outputs), in);
}

TEST(InferTypeTest, OneKnownTypeFillsTheSeedGraph) {
  Symbol a = Var("a"), b = Var("b"), c = Var("c");
  for (DType t : {DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kUint8, DType::kInt8,
                  DType::kInt32, DType::kInt64}) {
    SCOPED_TRACE(DTypeName(t));
    pass::TypeResult r = Infer(a * b + b * c, {{"c", t}});
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(r.arg_types, (Types{t, t, t}));
    EXPECT_EQ(r.out_types, Types{t});
    for (DType x : r.dtypes) EXPECT_EQ(x, t);
  }
}

TEST(InferTypeTest, UnknownIsMinusOneAndListed) {
  Symbol a = Var("a"), b = Var("b");
  pass::TypeResult r = Infer(Op("elemwise_add", {a, b}, {}, "add"));
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(static_cast<int>(r.dtypes[0]), -1);
  EXPECT_EQ(r.unknown_names, (Names{"a", "b", "add_output"}));
  EXPECT_EQ(r.arg_types, (Types{DType::kUnknown, DType::kUnknown}));
}

TEST(InferTypeTest, BackwardSweepFillsInputsFromOutputs) {
  Symbol x = Var("x"), y = Var("y");
  pass::TypeResult r = Infer(Op("identity", {x}, {}, "id") + y, {{"y", DType::kFloat64}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_types, (Types{DType::kFloat64, DType::kFloat64}));
  // A source op's dtype parameter flows back into the other operand.
  Symbol z = Op("_zeros", {}, {{"shape", "(2,)"}, {"dtype", "int64"}}, "z");
  pass::TypeResult zr = Infer(Op("elemwise_mul", {Var("w"), z}));
  EXPECT_EQ(zr.arg_types, Types{DType::kInt64});
}

TEST(InferTypeTest, WeightsTakeTheDataType) {
  Symbol fc = Op("FullyConnected", {Var("data")}, {{"num_hidden", "3"}}, "fc");
  pass::TypeResult r = Infer(fc, {{"data", DType::kFloat16}});
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.arg_types, (Types{DType::kFloat16, DType::kFloat16, DType::kFloat16}));
  Symbol bn = Op("BatchNorm", {Var("x")}, {}, "bn");
  pass::TypeResult b = Infer(bn, {{"x", DType::kFloat64}});
  EXPECT_EQ(b.aux_types, (Types{DType::kFloat64, DType::kFloat64}));
  EXPECT_EQ(b.out_types, (Types{DType::kFloat64, DType::kFloat64, DType::kFloat64}));
}

TEST(InferTypeTest, ConflictsNameNodeOpInputAndBothTypes) {
  Symbol a = Var("a"), b = Var("b");
  test::ExpectWeftError(
      [&] {
        Infer(Op("elemwise_add", {a, b}, {}, "add"),
              {{"a", DType::kFloat32}, {"b", DType::kFloat64}});
      },
      StatusCode::kDType,
      {"InferType: node 'add' (elemwise_add)", "lhs=a float32", "rhs=b float64"});
  OpRegistry reg;
  OpDef caster;
  caster.name = "Caster";
  caster.infer_type = [](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
    (*in)[0] = DType::kInt32;
    (*out)[0] = DType::kInt32;
    return true;
  };
  reg.Add(caster);
  Symbol c = Symbol::Apply(reg, "Caster", {Var("x")}, {}, "cast");
  test::ExpectWeftError(
      [&] {
        Infer(c, {{"x", DType::kFloat16}});
      },
      StatusCode::kDType,
      {"InferType: node 'cast' (Caster)", "input 'data'", "'x'", "provided dtype float16",
       "inferred dtype int32"});
}

TEST(InferTypeTest, DTypeHintsAreUsedUnlessOverridden) {
  Symbol x = Var("x", DType::kFloat64);
  Symbol named = Symbol::CreateVariable(
      "n", VariableHints{Shape(), DType::kUnknown, "", {}, {}, {{"__dtype__", "int8"}}});
  pass::TypeResult r = Infer(Symbol::Group({x, named}));
  EXPECT_EQ(r.arg_types, (Types{DType::kFloat64, DType::kInt8}));
  EXPECT_EQ(x.GetAttr("__dtype__").value(), "1");  // stored as MXNet's code
  pass::TypeResult given = Infer(x * 2.0, {{"x", DType::kFloat16}});
  EXPECT_EQ(given.out_types, Types{DType::kFloat16});
  Symbol bad = Symbol::CreateVariable(
      "bad", VariableHints{Shape(), DType::kUnknown, "", {}, {}, {{"__dtype__", "float7"}}});
  test::ExpectWeftError([&] { Infer(bad); }, StatusCode::kInvalidArgument,
                        {"variable 'bad'", "__dtype__", "float7"});
  test::ExpectWeftError(
      [&] {
        Infer(x, {{"y", DType::kFloat32}});
      },
      StatusCode::kInvalidArgument, {"no input named 'y'"});
  test::ExpectWeftError(
      [&] {
        Infer(x, {{"x", static_cast<DType>(42)}});
      },
      StatusCode::kDType, {"'x'", "42"});
}

TEST(InferTypeTest, SliceOutputsAndScalarOpsKeepTheType) {
  Symbol split = Op("SliceChannel", {Var("x") + 1.0}, {{"num_outputs", "2"}}, "split");
  pass::TypeResult r = Infer(split, {{"x", DType::kUint8}});
  EXPECT_EQ(r.out_types, (Types{DType::kUint8, DType::kUint8}));
}

}  // namespace
}  // namespace weft
