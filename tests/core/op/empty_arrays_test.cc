// Arrays with a zero extent (weft/shape.h: only a run makes them, e.g. the
// rows an ONNX NonMaxSuppression did not find): allocation and views, the
// operators that take them (OpDef::infer_empty_shape and pointwise ops) on
// empty inputs, their output shapes, a kernel that still runs where an
// output has elements, the refusal of the others, and shape inference that
// keeps reading 0 as unknown.
#include <gtest/gtest.h>

#include "util/test_util.h"
#include "weft/imperative.h"
#include "weft/pass.h"
#include "weft/runtime.h"
#include "weft/symbol.h"

namespace weft {
namespace {

NDArray Empty(const Shape& s, DType t = DType::kFloat32) { return test::Array(s, {}, t); }

Shape Out(const std::string& op, const std::vector<NDArray>& in, const StringMap& p = {}) {
  const std::vector<NDArray> out = test::Run(op, in, p);
  EXPECT_EQ(out.size(), 1u) << op;
  EXPECT_TRUE(test::Values(out[0]).empty()) << op;
  return out[0].shape();
}

TEST(EmptyArrays, ShapesAndArrays) {
  EXPECT_FALSE(Shape({0, 3}).is_known());  // inference's unknown extent
  EXPECT_TRUE(Shape({0, 3}).is_concrete());
  EXPECT_TRUE(Shape({0, 3}).has_zero_extent());
  EXPECT_FALSE(Shape({2, 3}).has_zero_extent());
  EXPECT_FALSE(Shape({-1, 3}).is_concrete());
  EXPECT_FALSE(Shape().is_concrete());
  const NDArray a = Empty({0, 3});
  EXPECT_EQ(a.Size(), 0);
  EXPECT_EQ(a.Bytes(), 0u);
  EXPECT_EQ(a.Reshape({3, 0}).shape(), Shape({3, 0}));
  EXPECT_THROW(a.Reshape({1, 3}), Error);
  const NDArray b = test::Array({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(b.Slice(1, 1).shape(), Shape({0, 3}));
  EXPECT_EQ(b.Slice(2, 2).Size(), 0);
  EXPECT_THROW(b.Slice(2, 1), Error);
  EXPECT_EQ(a.Copy(Context::CPU()).shape(), Shape({0, 3}));
  test::ExpectError(
      [] {
        NDArray(Shape({-1, 3}), Context::CPU(), DType::kFloat32, &Runtime::Global());
      },
      StatusCode::kShape, {"(-1,3)", "must be known"});
}

TEST(EmptyArrays, ShapeOpsGiveEmptyOutputs) {
  const NDArray rows = Empty({0, 3}), idx = Empty({0}, DType::kInt64);
  const NDArray data = test::Array({4, 3}, std::vector<double>(12, 1));
  EXPECT_EQ(Out("take", {data, idx}), Shape({0, 3}));
  EXPECT_EQ(Out("take", {data, Empty({0, 2})}, {{"axis", "0"}}), Shape({0, 2, 3}));
  EXPECT_EQ(Out("take", {rows, test::Array({1}, {1})}, {{"axis", "1"}}), Shape({0, 1}));
  EXPECT_EQ(Out("gather_nd", {data, Empty({2, 0}, DType::kInt64)}), Shape({0}));
  EXPECT_EQ(Out("squeeze", {Empty({0, 1})}, {{"axis", "(1,)"}}), Shape({0}));
  EXPECT_EQ(Out("squeeze", {Empty({1, 0, 1})}), Shape({0}));
  EXPECT_EQ(Out("expand_dims", {rows}, {{"axis", "0"}}), Shape({1, 0, 3}));
  EXPECT_EQ(Out("Reshape", {rows}, {{"shape", "(-1,)"}}), Shape({0}));
  EXPECT_EQ(Out("Reshape", {rows}, {{"shape", "(-1, 2, 3)"}}), Shape({0, 2, 3}));
  EXPECT_EQ(Out("Reshape", {rows}, {{"shape", "(3, -1)"}}), Shape({3, 0}));
  EXPECT_EQ(Out("Flatten", {Empty({0, 2, 3})}), Shape({0, 6}));
  EXPECT_EQ(Out("transpose", {rows}), Shape({3, 0}));
  EXPECT_EQ(Out("slice", {rows}, {{"begin", "(None, 1)"}, {"end", "(None, 3)"}}), Shape({0, 2}));
  EXPECT_EQ(Out("slice_axis", {rows}, {{"axis", "0"}, {"begin", "0"}, {"end", "None"}}),
            Shape({0, 3}));
  EXPECT_EQ(Out("slice_axis", {rows}, {{"axis", "1"}, {"begin", "1"}, {"end", "3"}}),
            Shape({0, 2}));
  EXPECT_EQ(Out("Concat", {rows, rows}, {{"num_args", "2"}, {"dim", "0"}}), Shape({0, 3}));
  EXPECT_EQ(Out("Concat", {rows, Empty({0, 2})}, {{"num_args", "2"}, {"dim", "1"}}), Shape({0, 5}));
}

TEST(EmptyArrays, ElementwiseOpsGiveEmptyOutputs) {
  const NDArray rows = Empty({0, 4});
  EXPECT_EQ(Out("Cast", {rows}, {{"dtype", "int64"}}), Shape({0, 4}));
  EXPECT_EQ(test::Run("Cast", {rows}, {{"dtype", "int64"}})[0].dtype(), DType::kInt64);
  EXPECT_EQ(Out("Activation", {rows}, {{"act_type", "sigmoid"}}), Shape({0, 4}));
  EXPECT_EQ(Out("_mul_scalar", {rows}, {{"scalar", "0.5"}}), Shape({0, 4}));
  EXPECT_EQ(Out("exp", {rows}), Shape({0, 4}));
  EXPECT_EQ(Out("elemwise_add", {rows, Empty({0, 4})}), Shape({0, 4}));
  EXPECT_EQ(Out("broadcast_mul", {rows, test::Array({1, 4}, {1, 2, 3, 4})}), Shape({0, 4}));
  EXPECT_EQ(Out("broadcast_add", {test::Array({4}, {1, 2, 3, 4}), rows}), Shape({0, 4}));
  test::ExpectOpError("elemwise_add", {rows, test::Array({1, 4}, {1, 2, 3, 4})}, {},
                      StatusCode::kShape, {"elemwise_add", "input 1 ('rhs')", "(1,4)", "(0,4)"});
  test::ExpectOpError("broadcast_add", {rows, test::Array({3, 4}, std::vector<double>(12, 1))}, {},
                      StatusCode::kShape, {"cannot be broadcast"});
}

// Where an output has elements the kernel runs, reading nothing of the
// empty input: Concat of no rows and two rows gives the two rows.
TEST(EmptyArrays, KernelRunsWhenAnOutputHasElements) {
  const std::vector<NDArray> out =
      test::Run("Concat", {Empty({0, 3}), test::Array({2, 3}, {1, 2, 3, 4, 5, 6})},
                {{"num_args", "2"}, {"dim", "0"}});
  EXPECT_EQ(out[0].shape(), Shape({2, 3}));
  EXPECT_EQ(test::Values(out[0]), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  const std::vector<NDArray> cols = test::Run(
      "Concat", {test::Array({2, 1}, {7, 8}), Empty({2, 0})}, {{"num_args", "2"}, {"dim", "1"}});
  EXPECT_EQ(test::Values(cols[0]), (std::vector<double>{7, 8}));
}

TEST(EmptyArrays, OtherOpsAndBadShapesAreRefused) {
  const NDArray rows = Empty({0, 3});
  test::ExpectOpError("sum", {rows}, {}, StatusCode::kNotImplemented,
                      {"operator sum", "input 0 ('data')", "(0,3)", "does not take empty arrays"});
  test::ExpectOpError("take", {rows, test::Array({2}, {0, 0})}, {}, StatusCode::kShape,
                      {"operator take", "no elements on axis 0"});
  test::ExpectOpError("Reshape", {rows}, {{"shape", "(1, 3)"}}, StatusCode::kShape,
                      {"cannot reshape (0,3)"});
  test::ExpectOpError("squeeze", {rows}, {{"axis", "(0,)"}}, StatusCode::kShape,
                      {"has extent 0, expected 1"});
  test::ExpectOpError("Concat", {rows, Empty({0, 2})}, {{"num_args", "2"}, {"dim", "0"}},
                      StatusCode::kShape, {"input 'arg1' (0,2)", "outside dim 0"});
}

// Shape inference keeps MXNet 1.x's reading: a variable's (0, 3) is an
// unknown extent, filled from the graph.
TEST(EmptyArrays, InferenceStillReadsZeroAsUnknown) {
  Runtime* rt = &Runtime::Global();
  const Symbol x = Symbol::CreateVariable("x"), y = Symbol::CreateVariable("y");
  const Symbol sum = Symbol::Apply(rt->ops(), "elemwise_add", {x, y}, {}, "add0");
  const Graph g{sum.outputs};
  const pass::ShapeResult r =
      pass::InferShape(IndexedGraph(g), {{"x", Shape({0, 3})}, {"y", Shape({2, 3})}});
  EXPECT_EQ(r.out_shapes[0], Shape({2, 3}));
}

}  // namespace
}  // namespace weft
