// RNN: PyTorch references (LSTM / GRU / vanilla, 1-2 layers, bidirectional,
// state outputs, sequence lengths), numeric gradients in float64 (including
// the cell clipping and sequence lengths), dropout in training, shape
// inference and error paths.
#include <gtest/gtest.h>

#include <cmath>

#include "util/op_refs.h"
#include "util/test_util.h"

namespace weft {
namespace {

std::vector<NDArray> RunMode(const std::string& op, const std::vector<NDArray>& in,
                             const StringMap& params, bool train) {
  std::vector<NDArray> out;
  InvokeOptions opts;
  opts.is_train = train;
  Invoke(&Runtime::Global(), op, in, params, &out, opts);
  return out;
}

// MXNet's packed parameter count.
int64_t ParamSize(int64_t g, int64_t in, int64_t h, int64_t layers, int64_t d) {
  return d * g * h * (in + h + 2) + (layers - 1) * d * g * h * (d * h + h + 2);
}

// Random float64 inputs (data, parameters, state[, state_cell]) of a small RNN.
std::vector<NDArray> SmallInputs(int64_t g, bool lstm, int64_t t, int64_t n, int64_t in, int64_t h,
                                 int64_t layers, int64_t d, unsigned seed) {
  const DType f64 = DType::kFloat64;
  std::vector<NDArray> v = {
      test::RandomArray({t, n, in}, f64, -1, 1, seed),
      test::RandomArray({ParamSize(g, in, h, layers, d)}, f64, -0.7, 0.7, seed + 1),
      test::RandomArray({layers * d, n, h}, f64, -1, 1, seed + 2)};
  if (lstm) v.push_back(test::RandomArray({layers * d, n, h}, f64, -1, 1, seed + 3));
  return v;
}

TEST(NNRnn, MatchesTorchReferences) {
  for (const char* c : {"lstm_1l", "lstm_1l_nostate", "lstm_2l_bi", "gru_1l", "gru_2l_bi",
                        "rnn_tanh_2l", "rnn_relu_bi", "lstm_seqlen_bi", "gru_seqlen_2l", "lstmp_1l",
                        "lstmp_2l_bi", "lstmp_seqlen_bi"})
    EXPECT_TRUE(test::CheckOpRef(std::string("RNN_") + c));
}

TEST(NNRnn, GradientMatchesNumeric) {
  struct Case {
    const char* mode;
    int64_t g, layers, d;
  };
  for (const Case& c : {Case{"lstm", 4, 2, 2}, Case{"gru", 3, 2, 2}, Case{"rnn_tanh", 1, 2, 1},
                        Case{"rnn_relu", 1, 1, 2}}) {
    const bool lstm = std::string(c.mode) == "lstm";
    auto in = SmallInputs(c.g, lstm, 3, 2, 2, 2, c.layers, c.d, 11);
    StringMap p = {{"mode", c.mode},
                   {"state_size", "2"},
                   {"num_layers", std::to_string(c.layers)},
                   {"bidirectional", c.d == 2 ? "True" : "False"},
                   {"state_outputs", "True"}};
    std::string where;
    EXPECT_LT(test::GradientError("RNN", in, p, {}, 1e-6, &where), 1e-6) << c.mode << " " << where;
  }
}

// LSTM with a projection (LSTMP): state h has P values, the cell H; the
// packed vector adds W_h2r (P x H) after each W_h2h (4H x P).
TEST(NNRnn, ProjectedLstmGradientMatchesNumeric) {
  const int64_t t = 3, n = 3, in_size = 2, h = 3, proj = 2, layers = 2, d = 2;
  const int64_t gh = 4 * h, size = d * gh * (in_size + proj + 2) +
                                   (layers - 1) * d * gh * (d * proj + proj + 2) +
                                   layers * d * proj * h;
  const DType f64 = DType::kFloat64;
  std::vector<NDArray> in = {test::RandomArray({t, n, in_size}, f64, -1, 1, 61),
                             test::RandomArray({size}, f64, -0.7, 0.7, 62),
                             test::RandomArray({layers * d, n, proj}, f64, -1, 1, 63),
                             test::RandomArray({layers * d, n, h}, f64, -1, 1, 64),
                             test::Array({n}, {3, 1, 2}, DType::kInt32)};
  StringMap p = {{"mode", "lstm"},
                 {"state_size", "3"},
                 {"num_layers", "2"},
                 {"bidirectional", "True"},
                 {"projection_size", "2"},
                 {"state_outputs", "True"},
                 {"use_sequence_length", "True"},
                 {"lstm_state_clip_min", "-0.6"},
                 {"lstm_state_clip_max", "0.6"}};
  auto out = test::Run("RNN", in, p);
  EXPECT_EQ(out[0].shape(), Shape({t, n, d * proj}));
  EXPECT_EQ(out[1].shape(), Shape({layers * d, n, proj}));
  EXPECT_EQ(out[2].shape(), Shape({layers * d, n, h}));
  std::string where;
  EXPECT_LT(test::GradientError("RNN", in, p, {0, 1, 2, 3}, 1e-6, &where), 1e-6) << where;
}

TEST(NNRnn, ClippedLstmGradientMatchesNumeric) {
  auto in = SmallInputs(4, true, 4, 2, 2, 3, 1, 1, 21);
  StringMap p = {{"mode", "lstm"},
                 {"state_size", "3"},
                 {"num_layers", "1"},
                 {"state_outputs", "True"},
                 {"lstm_state_clip_min", "-0.3"},
                 {"lstm_state_clip_max", "0.35"}};
  auto out = test::Run("RNN", in, p);
  bool clipped = false;
  for (double v : test::Values(out[2])) {
    EXPECT_LE(std::fabs(v), 0.35 + 1e-12);
    clipped = clipped || v == -0.3 || v == 0.35;
  }
  EXPECT_TRUE(clipped) << "the case should exercise the clip";
  std::string where;
  EXPECT_LT(test::GradientError("RNN", in, p, {}, 1e-7, &where), 1e-5) << where;
}

TEST(NNRnn, ClipNanMapsNanCellStatesToTheMinimum) {
  auto in = SmallInputs(4, true, 2, 2, 2, 3, 1, 1, 23);
  in[0] = test::Array({2, 2, 2}, std::vector<double>(8, std::nan("")), DType::kFloat64);
  StringMap p = {{"mode", "lstm"},
                 {"state_size", "3"},
                 {"num_layers", "1"},
                 {"state_outputs", "True"},
                 {"lstm_state_clip_min", "-0.5"},
                 {"lstm_state_clip_max", "0.5"}};
  for (double v : test::Values(test::Run("RNN", in, p)[2])) EXPECT_TRUE(std::isnan(v));
  p["lstm_state_clip_nan"] = "True";
  for (double v : test::Values(test::Run("RNN", in, p)[2])) EXPECT_EQ(v, -0.5);
}

TEST(NNRnn, SequenceLengthGradientMatchesNumeric) {
  auto in = SmallInputs(4, true, 4, 3, 2, 2, 2, 2, 31);
  in.push_back(test::Array({3}, {2, 4, 1}, DType::kInt32));
  StringMap p = {{"mode", "lstm"},          {"state_size", "2"},
                 {"num_layers", "2"},       {"bidirectional", "True"},
                 {"state_outputs", "True"}, {"use_sequence_length", "True"}};
  std::string where;
  EXPECT_LT(test::GradientError("RNN", in, p, {0, 1, 2, 3}, 1e-6, &where), 1e-6) << where;
  // Steps past a row's length output zeros.
  auto y = test::Values(test::Run("RNN", in, p)[0]);  // (4, 3, 4)
  for (int t = 0; t < 4; ++t)
    for (int b = 0; b < 3; ++b)
      for (int j = 0; j < 4; ++j)
        if (t >= std::vector<int>{2, 4, 1}[b]) {
          EXPECT_EQ(y[(t * 3 + b) * 4 + j], 0) << t << b << j;
        }
}

TEST(NNRnn, DropoutBetweenLayersInTraining) {
  auto in = SmallInputs(3, false, 4, 3, 3, 4, 2, 1, 41);
  StringMap p = {{"mode", "gru"}, {"state_size", "4"}, {"num_layers", "2"}, {"p", "0.5"}};
  StringMap p0 = p;
  p0["p"] = "0";
  auto inf = test::Values(RunMode("RNN", in, p, false)[0]);
  EXPECT_EQ(inf, test::Values(RunMode("RNN", in, p0, true)[0])) << "no dropout outside training";
  auto a = test::Values(RunMode("RNN", in, p, true)[0]);
  EXPECT_NE(a, inf);
  EXPECT_EQ(a, test::Values(RunMode("RNN", in, p, true)[0]))
      << "masks are a function of the inputs";
  // The backward op rebuilds the forward's masks (they cannot be checked by
  // finite differences: a perturbed input draws other masks); its gradients
  // differ from those without dropout and are reproducible.
  NDArray og = test::RandomArray({4, 3, 4}, DType::kFloat64, -1, 1, 5);
  auto g = RunMode("_backward_RNN", {in[0], in[1], in[2], og}, p, true);
  auto g0 = RunMode("_backward_RNN", {in[0], in[1], in[2], og}, p0, true);
  EXPECT_NE(test::Values(g[1]), test::Values(g0[1]));
  EXPECT_EQ(test::Values(g[1]),
            test::Values(RunMode("_backward_RNN", {in[0], in[1], in[2], og}, p, true)[1]));
}

// A training forward hands its buffers to the backward; the result equals
// the backward that reruns the sweep itself.
TEST(NNRnn, BackwardAfterTrainingForwardMatchesRecompute) {
  for (const char* p : {"0", "0.4"}) {
    auto in = SmallInputs(4, true, 3, 2, 3, 3, 2, 2, 61);
    StringMap params = {{"mode", "lstm"},          {"state_size", "3"},       {"num_layers", "2"},
                        {"bidirectional", "True"}, {"state_outputs", "True"}, {"p", p}};
    std::vector<NDArray> bin = in;
    bin.push_back(test::RandomArray({3, 2, 6}, DType::kFloat64, -1, 1, 7));
    bin.push_back(test::RandomArray({4, 2, 3}, DType::kFloat64, -1, 1, 8));
    bin.push_back(test::RandomArray({4, 2, 3}, DType::kFloat64, -1, 1, 9));
    auto recomputed = RunMode("_backward_RNN", bin, params, true);
    RunMode("RNN", in, params, true);
    auto handed = RunMode("_backward_RNN", bin, params, true);
    for (size_t i = 0; i < recomputed.size(); ++i)
      EXPECT_EQ(test::Values(recomputed[i]), test::Values(handed[i]))
          << "p " << p << " input " << i;
    // Other inputs than the forward's: no hand-over (the recomputed result).
    RunMode("RNN", in, params, true);
    std::vector<NDArray> other = bin;
    other[0] = test::RandomArray({3, 2, 3}, DType::kFloat64, -1, 1, 99);
    auto g_other = RunMode("_backward_RNN", other, params, true);
    EXPECT_NE(test::Values(g_other[1]), test::Values(recomputed[1]));
  }
}

TEST(NNRnn, ShapeInference) {
  std::vector<Shape> in = {Shape({5, 4, 3}), Shape(), Shape(), Shape()}, out;
  ASSERT_TRUE(test::InferShapes("RNN",
                                {{"mode", "lstm"},
                                 {"state_size", "6"},
                                 {"num_layers", "2"},
                                 {"bidirectional", "True"},
                                 {"state_outputs", "True"}},
                                &in, &out));
  EXPECT_EQ(in[1], Shape({ParamSize(4, 3, 6, 2, 2)}));
  EXPECT_EQ(in[2], Shape({4, 4, 6}));
  EXPECT_EQ(in[3], Shape({4, 4, 6}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], Shape({5, 4, 12}));
  EXPECT_EQ(out[1], Shape({4, 4, 6}));
  // GRU without state outputs; the batch flows from the state to data.
  std::vector<Shape> in2 = {Shape({7, 0, 2}), Shape(), Shape({1, 3, 5})}, out2;
  EXPECT_TRUE(test::InferShapes("RNN", {{"mode", "gru"}, {"state_size", "5"}, {"num_layers", "1"}},
                                &in2, &out2));
  EXPECT_EQ(in2[0], Shape({7, 3, 2}));
  EXPECT_EQ(in2[1], Shape({3 * 5 * (2 + 5 + 2)}));
  EXPECT_EQ(out2[0], Shape({7, 3, 5}));
}

TEST(NNRnn, Errors) {
  StringMap p = {{"mode", "lstm"}, {"state_size", "4"}, {"num_layers", "1"}};
  auto in = SmallInputs(4, true, 2, 2, 3, 4, 1, 1, 51);
  // Wrong parameter vector: names the expected and the given size.
  NDArray bad_w = test::RandomArray({100}, DType::kFloat64, -1, 1, 1);
  test::ExpectError(
      [&] {
        test::Run("RNN", {in[0], bad_w, in[2], in[3]}, p);
      },
      StatusCode::kShape, {"RNN", "'parameters'", "(144,)", "given (100,)"});
  test::ExpectError(
      [&] {
        test::Run("RNN", {in[1], in[1], in[2], in[3]}, p);
      },
      StatusCode::kShape, {"RNN", "'data'", "rank 3"});
  StringMap proj = p;
  proj["projection_size"] = "5";
  test::ExpectError([&] { test::Run("RNN", in, proj); }, StatusCode::kInvalidArgument,
                    {"RNN", "'projection_size' = 5", "state_size = 4"});
  proj["projection_size"] = "2";  // the unprojected LSTM's state and parameters no longer fit
  test::ExpectError([&] { test::Run("RNN", in, proj); }, StatusCode::kShape,
                    {"RNN", "'state'", "expected (1,2,2)", "given (1,2,4)"});
  NDArray proj_state = test::RandomArray({1, 2, 2}, DType::kFloat64, -1, 1, 52);
  test::ExpectError(
      [&] {
        test::Run("RNN", {in[0], in[1], proj_state, in[3]}, proj);
      },
      StatusCode::kShape, {"RNN", "'parameters'", "projection_size 2", "given (144,)"});
  StringMap gru_proj = {
      {"mode", "gru"}, {"state_size", "4"}, {"num_layers", "1"}, {"projection_size", "2"}};
  test::ExpectError(
      [&] {
        test::Run("RNN", {in[0], in[1], in[2]}, gru_proj);
      },
      StatusCode::kInvalidArgument, {"RNN", "projection_size", "'lstm'", "'gru'"});
  StringMap half_clip = p;
  half_clip["lstm_state_clip_min"] = "-1";
  test::ExpectError([&] { test::Run("RNN", in, half_clip); }, StatusCode::kInvalidArgument,
                    {"RNN", "lstm_state_clip_max"});
  StringMap gru_clip = {{"mode", "gru"},
                        {"state_size", "4"},
                        {"num_layers", "1"},
                        {"lstm_state_clip_min", "-1"},
                        {"lstm_state_clip_max", "1"}};
  test::ExpectError(
      [&] {
        test::Run("RNN", {in[0], in[1], in[2]}, gru_clip);
      },
      StatusCode::kInvalidArgument, {"RNN", "lstm"});
  StringMap p1 = p;
  p1["p"] = "1";
  test::ExpectError([&] { test::Run("RNN", in, p1); }, StatusCode::kInvalidArgument,
                    {"RNN", "'p'"});
  StringMap sl = p;
  sl["use_sequence_length"] = "True";
  std::vector<NDArray> in_sl = in;
  in_sl.push_back(test::Array({2}, {1, 3}));
  test::ExpectError([&] { test::Run("RNN", in_sl, sl); }, StatusCode::kInvalidArgument,
                    {"RNN", "sequence_length[1]"});
  test::ExpectError(
      [&] {
        test::Run("RNN", in, {{"state_size", "4"}, {"num_layers", "1"}});
      },
      StatusCode::kInvalidArgument, {"RNN", "mode"});
}

}  // namespace
}  // namespace weft
