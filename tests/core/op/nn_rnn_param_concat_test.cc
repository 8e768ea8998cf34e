#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(RnnParamConcat, ValuesAreConcats) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    NDArray a = test::Array({3}, {1, 2, 3}, dt), b = test::Array({2}, {4, 5}, dt);
    auto y = test::Run("_rnn_param_concat", {a, b, a}, {{"num_args", "3"}, {"dim", "0"}});
    EXPECT_EQ(y[0].shape(), Shape({8}));
    EXPECT_EQ(test::Values(y[0]), (std::vector<double>{1, 2, 3, 4, 5, 1, 2, 3}));
    NDArray m = test::Array({2, 1}, {6, 7}, dt), n = test::Array({2, 2}, {8, 9, 10, 11}, dt);
    auto z = test::Run("_npi_rnn_param_concat", {m, n}, {{"num_args", "2"}});  // dim defaults to 1
    EXPECT_EQ(z[0].shape(), Shape({2, 3}));
    EXPECT_EQ(test::Values(z[0]), (std::vector<double>{6, 8, 9, 7, 10, 11}));
  }
}

TEST(RnnParamConcat, UnknownExtentsComeFromTheOutput) {
  // Gluon's bidirectional layer 0: both i2h weights (flattened) unknown.
  std::vector<Shape> in = {Shape(), Shape({16}), Shape(), Shape({16})}, out = {Shape({64})};
  EXPECT_TRUE(test::InferShapes("_rnn_param_concat", {{"num_args", "4"}, {"dim", "0"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({16}));
  EXPECT_EQ(in[2], Shape({16}));
  in = {Shape({0, 3}), Shape({5, 3})};
  out = {Shape({0, 0})};
  EXPECT_FALSE(
      test::InferShapes("_rnn_param_concat", {{"num_args", "2"}, {"dim", "0"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({0, 3}));
  out = {Shape({9, 0})};
  EXPECT_TRUE(test::InferShapes("_rnn_param_concat", {{"num_args", "2"}, {"dim", "0"}}, &in, &out));
  EXPECT_EQ(in[0], Shape({4, 3}));
  EXPECT_EQ(out[0], Shape({9, 3}));
  in = {Shape({2}), Shape({3})};
  out = {Shape()};
  EXPECT_TRUE(
      test::InferShapes("_rnn_param_concat", {{"num_args", "2"}, {"dim", "-1"}}, &in, &out));
  EXPECT_EQ(out[0], Shape({5}));
}

TEST(RnnParamConcat, Errors) {
  std::vector<Shape> in = {Shape(), Shape(), Shape(), Shape({2})}, out = {Shape({8})};
  test::ExpectError(
      [&] {
        test::InferShapes("_rnn_param_concat", {{"num_args", "4"}, {"dim", "0"}}, &in, &out);
      },
      StatusCode::kShape, {"_rnn_param_concat", "8", "3 inputs of unknown extent"});
  in = {Shape({0}), Shape({9})};
  out = {Shape({8})};
  test::ExpectError(
      [&] {
        test::InferShapes("_rnn_param_concat", {{"num_args", "2"}, {"dim", "0"}}, &in, &out);
      },
      StatusCode::kShape, {"_rnn_param_concat", "less the known inputs' 9"});
  NDArray a = test::Array({2, 1}, {1, 2}), b = test::Array({3, 2}, {3, 4, 5, 6, 7, 8});
  test::ExpectError(
      [&] {
        test::Run("_rnn_param_concat", {a, b}, {{"num_args", "2"}});
      },
      StatusCode::kShape, {"_rnn_param_concat", "arg1", "(3,2)"});
  test::ExpectError(
      [&] {
        test::Run("_rnn_param_concat", {a, a}, {{"num_args", "2"}, {"dim", "2"}});
      },
      StatusCode::kInvalidArgument, {"_rnn_param_concat", "dim 2"});
}

TEST(RnnParamConcat, Gradient) {
  NDArray a = test::RandomArray({6}, DType::kFloat64, -1, 1, 1);
  NDArray b = test::RandomArray({4}, DType::kFloat64, -1, 1, 2);
  std::string where;
  EXPECT_LT(test::GradientError("_rnn_param_concat", {a, b, a}, {{"num_args", "3"}, {"dim", "0"}},
                                {}, 1e-6, &where),
            1e-6)
      << where;
}

}  // namespace
}  // namespace weft
