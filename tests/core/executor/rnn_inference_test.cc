// Inference on an LSTM as Gluon exports it (each weight Reshape'd to a
// vector and joined by _rnn_param_concat, zero begin states, a
// FullyConnected(flatten=False) decoder): the parameter join is a constant
// step (run once, not per Forward), optimised and plain binds agree, and
// weights written after bind reach the output (the oneDNN kernels keep
// their packed weights only while the arrays are unchanged).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/pass/inference_test_util.h"

namespace weft {
namespace {

using test::Apply;

constexpr int64_t kSteps = 5, kBatch = 3, kIn = 4, kHidden = 6, kLayers = 2, kVocab = 7;

// The symbol and the shape of every input.
Symbol GluonLstm(pass::ShapeMap* shapes) {
  (*shapes)["data"] = Shape{kSteps, kBatch, kIn};
  std::vector<Symbol> pieces;
  for (const char* kind : {"weight", "bias"})
    for (int64_t l = 0; l < kLayers; ++l)
      for (const char* gate : {"i2h", "h2h"}) {
        const std::string name = StrCat("lstm_l", l, "_", gate, "_", kind);
        const int64_t in = std::string(gate) == "h2h" ? kHidden : l == 0 ? kIn : kHidden;
        (*shapes)[name] = std::string(kind) == "bias" ? Shape{4 * kHidden} : Shape{4 * kHidden, in};
        pieces.push_back(
            Apply("Reshape", {Symbol::CreateVariable(name)}, {{"shape", "(-1,)"}}, name + "_flat"));
      }
  Symbol params =
      Apply("_rnn_param_concat", pieces, {{"dim", "0"}, {"num_args", "8"}}, "lstm_params");
  const std::string state = StrCat("(", kLayers, ", ", kBatch, ", ", kHidden, ")");
  Symbol h0 = Apply("_zeros", {}, {{"shape", state}}, "h0");
  Symbol c0 = Apply("_zeros", {}, {{"shape", state}}, "c0");
  Symbol rnn = Apply("RNN", {Symbol::CreateVariable("data"), params, h0, c0},
                     {{"mode", "lstm"},
                      {"state_size", std::to_string(kHidden)},
                      {"num_layers", std::to_string(kLayers)}},
                     "lstm");
  return Apply("FullyConnected", {rnn},
               {{"num_hidden", std::to_string(kVocab)}, {"flatten", "False"}}, "decoder");
}

void Overwrite(Executor* ex, const std::string& arg, unsigned seed) {
  for (size_t i = 0; i < ex->arg_names().size(); ++i)
    if (ex->arg_names()[i] == arg) {
      NDArray a = ex->arg_arrays()[i];
      test::RandomArray(a.shape(), a.dtype(), -1, 1, seed).CopyTo(&a);
      return;
    }
  ADD_FAILURE() << "no argument " << arg;
}

TEST(RnnInference, GluonLstmJoinsItsParametersOnce) {
  pass::ShapeMap shapes;
  const Symbol y = GluonLstm(&shapes);
  std::unique_ptr<Executor> on;
  EXPECT_LT(test::CompareOptimized(y, shapes, 31, &on), 1e-5);
  const std::string s = on->DebugString();
  EXPECT_NE(s.find("Name=lstm_params (constant)"), std::string::npos) << s;
  EXPECT_NE(s.find("Name=lstm_l0_i2h_weight_flat (constant)"), std::string::npos) << s;
  EXPECT_EQ(s.find("Name=lstm (constant)"), std::string::npos) << s;
}

TEST(RnnInference, WeightsWrittenAfterBindReachTheOutput) {
  pass::ShapeMap shapes;
  const Symbol y = GluonLstm(&shapes);
  auto ex = test::BindInference(y, shapes, true);
  test::FillRandom(ex.get(), 41);
  ex->Forward(false);
  std::vector<double> last = test::Values(ex->outputs()[0]);
  // One recurrent weight, one bias, then the decoder's weight: each time
  // the output changes and equals that of a fresh bind of the same arrays.
  unsigned seed = 50;
  for (const char* arg : {"lstm_l1_h2h_weight", "lstm_l0_i2h_bias", "decoder_weight"}) {
    Overwrite(ex.get(), arg, seed++);
    ex->Forward(false);
    const std::vector<double> now = test::Values(ex->outputs()[0]);
    EXPECT_NE(now, last) << arg;
    auto fresh = test::BindInference(y, shapes, true);
    test::CopyArrays(*ex, fresh.get());
    fresh->Forward(false);
    EXPECT_LT(test::MaxRelDiff(*ex, *fresh), 1e-6) << arg;
    last = now;
  }
  // Nothing written: the same output again.
  ex->Forward(false);
  EXPECT_EQ(test::Values(ex->outputs()[0]), last);
}

}  // namespace
}  // namespace weft
