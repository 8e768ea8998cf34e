// SequenceMask, SequenceLast, SequenceReverse: PyTorch references (with and
// without sequence_length, axis 1), numeric gradients, closed forms,
// shape inference and errors.
#include <gtest/gtest.h>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

TEST(NNSequence, MatchesTorchReferences) {
  for (const char* s : {"SequenceMask_len_value", "SequenceMask_len_axis1", "SequenceMask_nolen",
                        "SequenceLast_len", "SequenceLast_len_axis1", "SequenceLast_nolen",
                        "SequenceReverse_len", "SequenceReverse_nolen"})
    EXPECT_TRUE(test::CheckOpRef(s)) << s;
}

TEST(NNSequence, GradientsMatchNumeric) {
  NDArray x = test::RandomArray({4, 3, 2}, DType::kFloat64, -1, 1, 3);
  NDArray len = test::Array({3}, {3, 1, 4}, DType::kInt32);
  const StringMap with_len = {{"use_sequence_length", "True"}};
  for (const char* op : {"SequenceMask", "SequenceLast", "SequenceReverse"}) {
    std::string where;
    EXPECT_LT(test::GradientError(op, {x, len}, with_len, {0}, 1e-6, &where), 1e-8) << op << where;
    EXPECT_LT(test::GradientError(op, {x}, {}, {}, 1e-6, &where), 1e-8) << op << where;
  }
  NDArray xb = test::RandomArray({3, 4, 2}, DType::kFloat64, -1, 1, 4);
  std::string where;
  EXPECT_LT(
      test::GradientError("SequenceLast", {xb, len},
                          {{"use_sequence_length", "True"}, {"axis", "1"}}, {0}, 1e-6, &where),
      1e-8)
      << where;
}

TEST(NNSequence, ClosedForms) {
  // (T=3, N=2): rows of lengths 1 and 3.
  NDArray x = test::Array({3, 2}, {1, 2, 3, 4, 5, 6});
  NDArray len = test::Array({2}, {1, 3});
  const StringMap wl = {{"use_sequence_length", "True"}};
  EXPECT_EQ(test::Values(test::Run("SequenceMask", {x, len},
                                   {{"use_sequence_length", "True"}, {"value", "9"}})[0]),
            (std::vector<double>{1, 2, 9, 4, 9, 6}));
  EXPECT_EQ(test::Values(test::Run("SequenceLast", {x, len}, wl)[0]), (std::vector<double>{1, 6}));
  EXPECT_EQ(test::Values(test::Run("SequenceReverse", {x, len}, wl)[0]),
            (std::vector<double>{1, 6, 3, 4, 5, 2}));
  EXPECT_EQ(test::Values(test::Run("SequenceMask", {x})[0]), test::Values(x));
}

TEST(NNSequence, ShapesAndErrors) {
  std::vector<Shape> in = {Shape({5, 3, 2}), Shape()}, out;
  ASSERT_TRUE(test::InferShapes("SequenceLast", {{"use_sequence_length", "True"}}, &in, &out));
  EXPECT_EQ(in[1], Shape({3}));
  EXPECT_EQ(out[0], Shape({3, 2}));
  std::vector<Shape> in1 = {Shape({5, 3, 2}), Shape()}, out1;
  ASSERT_TRUE(test::InferShapes("SequenceMask", {{"use_sequence_length", "True"}, {"axis", "1"}},
                                &in1, &out1));
  EXPECT_EQ(in1[1], Shape({5}));
  std::vector<Shape> in2 = {Shape()}, out2 = {Shape({4, 2})};
  EXPECT_TRUE(test::InferShapes("SequenceReverse", {}, &in2, &out2));
  EXPECT_EQ(in2[0], Shape({4, 2}));
  NDArray x = test::Array({3, 2}, {1, 2, 3, 4, 5, 6});
  test::ExpectError(
      [&] {
        test::Run("SequenceReverse", {x}, {{"axis", "1"}});
      },
      StatusCode::kInvalidArgument, {"SequenceReverse", "'axis'"});
  test::ExpectError(
      [&] {
        test::Run("SequenceMask", {test::Array({3}, {1, 2, 3})});
      },
      StatusCode::kShape, {"SequenceMask", "rank >= 2"});
  test::ExpectError(
      [&] {
        test::Run("SequenceLast", {x, test::Array({2}, {1, 4})}, {{"use_sequence_length", "True"}});
      },
      StatusCode::kInvalidArgument, {"SequenceLast", "sequence_length[1]"});
  test::ExpectError(
      [&] {
        test::Run("SequenceMask", {x, test::Array({3}, {1, 1, 1})},
                  {{"use_sequence_length", "True"}});
      },
      StatusCode::kShape, {"SequenceMask", "'sequence_length'"});
}

}  // namespace
}  // namespace weft
