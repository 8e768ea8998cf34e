// End to end: an LSTM language model (Embedding -> transpose -> RNN ->
// transpose -> FullyConnected -> SoftmaxOutput) bound by Module and
// trained a few dozen SGD steps on a synthetic sequence whose next token
// depends on the previous two (x[t+1] = (x[t] + x[t-1]) mod V), so the
// recurrence must carry state (a model seeing only x[t] cannot beat
// log V); the cross-entropy must fall from log V to below 0.4 log V (60
// Adam steps reach about 0.34 log V).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "weft/module.h"
#include "weft/runtime.h"

namespace weft {
namespace {

constexpr int64_t kVocab = 5, kSeq = 8, kBatch = 16, kEmbed = 8, kHidden = 24;

Symbol LstmLm() {
  Symbol emb =
      Symbol::Apply(Runtime::Global().ops(), "Embedding", {Symbol::CreateVariable("data")},
                    {{"input_dim", std::to_string(kVocab)}, {"output_dim", std::to_string(kEmbed)}},
                    "embed");  // (N, T, E)
  Symbol tne =
      Symbol::Apply(Runtime::Global().ops(), "transpose", {emb}, {{"axes", "(1, 0, 2)"}}, "to_tne");
  const std::string state_shape = StrCat("(1, ", kBatch, ", ", kHidden, ")");
  Symbol h0 = Symbol::Apply(Runtime::Global().ops(), "_zeros", {}, {{"shape", state_shape}}, "h0");
  Symbol c0 = Symbol::Apply(Runtime::Global().ops(), "_zeros", {}, {{"shape", state_shape}}, "c0");
  Symbol rnn = Symbol::Apply(
      Runtime::Global().ops(), "RNN", {tne, Symbol::CreateVariable("lstm_parameters"), h0, c0},
      {{"mode", "lstm"}, {"state_size", std::to_string(kHidden)}, {"num_layers", "1"}},
      "lstm");  // (T, N, H)
  Symbol nth =
      Symbol::Apply(Runtime::Global().ops(), "transpose", {rnn}, {{"axes", "(1, 0, 2)"}}, "to_nth");
  Symbol flat = Symbol::Apply(Runtime::Global().ops(), "Reshape", {nth},
                              {{"shape", StrCat("(-1, ", kHidden, ")")}}, "flat");
  Symbol fc = Symbol::Apply(Runtime::Global().ops(), "FullyConnected", {flat},
                            {{"num_hidden", std::to_string(kVocab)}}, "pred");
  Symbol label =
      Symbol::Apply(Runtime::Global().ops(), "Reshape", {Symbol::CreateVariable("softmax_label")},
                    {{"shape", "(-1,)"}}, "label_flat");
  return Symbol::Apply(Runtime::Global().ops(), "SoftmaxOutput", {fc, label}, {}, "softmax");
}

// `rows` sequences: (rows, T) inputs and their next tokens.
void MakeSequences(int64_t rows, uint32_t seed, NDArray* x, NDArray* y) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> tok(0, kVocab - 1);
  std::vector<float> xs, ys;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int> s = {tok(rng), tok(rng)};
    while (static_cast<int64_t>(s.size()) < kSeq + 1)
      s.push_back((s[s.size() - 1] + s[s.size() - 2]) % kVocab);
    for (int64_t t = 0; t < kSeq; ++t) {
      xs.push_back(static_cast<float>(s[t]));
      ys.push_back(static_cast<float>(s[t + 1]));
    }
  }
  *x = NDArray(Shape{rows, kSeq}, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  *y = NDArray(Shape{rows, kSeq}, Context::CPU(0), DType::kFloat32, &Runtime::Global());
  x->CopyFromHost(xs.data(), xs.size() * sizeof(float));
  y->CopyFromHost(ys.data(), ys.size() * sizeof(float));
}

TEST(RnnLanguageModel, LstmTrainingLowersCrossEntropy) {
  NDArray x, y;
  MakeSequences(4 * kBatch, 3, &x, &y);
  NDArrayIter it({{"data", x}}, {{"softmax_label", y}}, kBatch, true, LastBatch::kPad, 5);
  Module mod(&Runtime::Global(), LstmLm());
  mod.Bind(it.provide_data(), it.provide_label(), true);
  auto init = Initializer::Create("uniform", {{"scale", "0.1"}}, 7);
  mod.InitParams(init.get());
  mod.InitOptimizer(Optimizer::Create("adam", {{"learning_rate", "0.02"}}));
  auto ce = Metric::Create("ce");
  const double before = mod.Score(&it, ce.get())[0].second;
  EXPECT_NEAR(before, std::log(static_cast<double>(kVocab)), 0.2)
      << "an untrained model is near uniform";
  for (int epoch = 0; epoch < 15; ++epoch) {  // 4 batches each: 60 steps
    it.Reset();
    while (it.Next()) {
      mod.Forward(it.Value(), true);
      mod.Backward();
      mod.Update();
    }
  }
  const double after = mod.Score(&it, ce.get())[0].second;
  EXPECT_LT(after, 0.4 * before) << "cross-entropy " << before << " -> " << after;
}

}  // namespace
}  // namespace weft
