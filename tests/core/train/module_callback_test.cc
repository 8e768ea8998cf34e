// Module::Fit's batch-end callback: called once per batch with the epoch,
// batch, sample count and training metric; returning false stops training
// after that batch with the parameters updated through it, no validation or
// checkpoint for the stopped epoch, and the module still usable.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/train/train_test_util.h"
#include "weft/runtime.h"
#include "weft/module.h"

namespace weft {
namespace {

using test::ToVector;

Symbol Mlp() { return test::BlobMlp(8); }

// 50 samples of four quadrant classes in batches of 16: 4 batches per epoch,
// the last padded by 14.
struct Fixture {
  NDArray x, y;
  std::unique_ptr<NDArrayIter> it;
  std::unique_ptr<Module> mod;
  std::unique_ptr<Metric> acc = Metric::Create("acc");
  Fixture() {
    test::Blobs b = test::MakeBlobs(50, 5, 0.5f);
    x = b.x;
    y = b.y;
    it = std::make_unique<NDArrayIter>(
        std::vector<std::pair<std::string, NDArray>>{{"data", x}},
        std::vector<std::pair<std::string, NDArray>>{{"softmax_label", y}}, 16, false,
        LastBatch::kPad);
    mod = std::make_unique<Module>(&Runtime::Global(), Mlp());
    mod->Bind(it->provide_data(), it->provide_label(), true);
    auto init = Initializer::Create("xavier", {}, 3);
    mod->InitParams(init.get());
    mod->InitOptimizer(Optimizer::Create("sgd", {{"learning_rate", "0.1"}}));
  }
};

TEST(ModuleCallback, CalledOncePerBatchWithEpochBatchSamplesAndMetric) {
  Fixture f;
  std::vector<BatchEndParam> seen;
  std::vector<double> acc_seen;
  FitOptions fo;
  fo.num_epoch = 3;
  fo.begin_epoch = 1;
  fo.progress = ProgressMode::kSilent;
  fo.batch_end_callback = [&](const BatchEndParam& p) {
    seen.push_back(p);
    EXPECT_NE(p.metric, nullptr);
    if (p.metric == nullptr || p.metric->size() != 1) return false;
    EXPECT_EQ((*p.metric)[0].first, "accuracy");
    acc_seen.push_back((*p.metric)[0].second);
    return true;
  };
  std::vector<EpochResult> r = f.mod->Fit(f.it.get(), nullptr, f.acc.get(), fo);
  ASSERT_EQ(r.size(), 2u);
  ASSERT_EQ(seen.size(), 8u);  // epochs 1 and 2, 4 batches each
  const int64_t samples[4] = {16, 32, 48, 50};
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].epoch, 1 + static_cast<int>(i / 4)) << i;
    EXPECT_EQ(seen[i].batch, static_cast<int64_t>(i % 4) + 1) << i;
    EXPECT_EQ(seen[i].num_batches, 4) << i;
    EXPECT_EQ(seen[i].samples, samples[i % 4]) << i;
    EXPECT_GE(seen[i].seconds, 0) << i;
    EXPECT_GE(acc_seen[i], 0.0) << i;
    EXPECT_LE(acc_seen[i], 1.0) << i;
  }
  // The last batch's metric is the epoch's training metric.
  EXPECT_DOUBLE_EQ(acc_seen[3], r[0].train_metric[0].second);
  EXPECT_DOUBLE_EQ(acc_seen[7], r[1].train_metric[0].second);
  EXPECT_FALSE(r[0].stopped);
  EXPECT_EQ(r[1].batches, 4);
}

TEST(ModuleCallback, ReturningFalseStopsAfterThatBatch) {
  Fixture f;
  int calls = 0;
  std::map<std::string, std::vector<float>> at_stop;
  FitOptions fo;
  fo.num_epoch = 5;
  fo.progress = ProgressMode::kNone;  // the summary only
  std::ostringstream log;
  fo.log = &log;
  fo.checkpoint_prefix = ::testing::TempDir() + "weft_callback_stop";
  fo.batch_end_callback = [&](const BatchEndParam& p) {
    ++calls;
    return !(p.epoch == 1 && p.batch == 2);  // stop in the second epoch's second batch
  };
  NDArrayIter val({{"data", f.x}}, {{"softmax_label", f.y}}, 16, false, LastBatch::kPad);
  std::vector<EpochResult> r = f.mod->Fit(f.it.get(), &val, f.acc.get(), fo);
  EXPECT_EQ(calls, 6);  // 4 in epoch 0, 2 in epoch 1
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].stopped);
  EXPECT_FALSE(r[0].eval_metric.empty());
  EXPECT_TRUE(r[1].stopped);
  EXPECT_EQ(r[1].batches, 2);
  EXPECT_EQ(r[1].samples, 32);
  EXPECT_TRUE(r[1].eval_metric.empty()) << "a stopped epoch is not validated";
  EXPECT_NE(log.str().find("Epoch[1] Train: accuracy="), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("(stopped after batch 2)"), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find("Epoch[1] Validation"), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find("Epoch[2]"), std::string::npos) << log.str();
  // Epoch 0 completed and was checkpointed as 1; the stopped epoch was not.
  EXPECT_TRUE(std::ifstream(fo.checkpoint_prefix + "-0001.params").good());
  EXPECT_FALSE(std::ifstream(fo.checkpoint_prefix + "-0002.params").good());
  std::remove((fo.checkpoint_prefix + "-symbol.json").c_str());
  std::remove((fo.checkpoint_prefix + "-0001.params").c_str());

  // The module is usable: the parameters are readable, Score works, and a
  // later Fit goes on from the stopped state (here: with the updates of the
  // six batches run, which differ from the initial values).
  std::vector<float> w = ToVector(f.mod->arg_params().at("fc1_weight"));
  EXPECT_EQ(w.size(), 16u);
  auto score = f.mod->Score(f.it.get(), f.acc.get());
  ASSERT_EQ(score.size(), 1u);
  fo.begin_epoch = 1;
  fo.num_epoch = 2;
  fo.checkpoint_prefix.clear();
  fo.batch_end_callback = nullptr;
  r = f.mod->Fit(f.it.get(), nullptr, f.acc.get(), fo);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].batches, 4);
  EXPECT_NE(ToVector(f.mod->arg_params().at("fc1_weight")), w);
}

TEST(ModuleCallback, StoppingMatchesAShorterRun) {
  // Stopping after batch 2 leaves exactly the parameters of a run over the
  // first 32 samples alone (same init, no shuffle): the stop is after the
  // batch's update, and nothing after it ran.
  Fixture stopped;
  FitOptions fo;
  fo.progress = ProgressMode::kSilent;
  fo.batch_end_callback = [](const BatchEndParam& p) { return p.batch < 2; };
  stopped.mod->Fit(stopped.it.get(), nullptr, stopped.acc.get(), fo);

  Fixture shorter;
  NDArray x32 = shorter.x.Slice(0, 32), y32 = shorter.y.Slice(0, 32);
  NDArrayIter it32({{"data", x32}}, {{"softmax_label", y32}}, 16, false, LastBatch::kPad);
  fo.batch_end_callback = nullptr;
  shorter.mod->Fit(&it32, nullptr, shorter.acc.get(), fo);
  for (const auto& kv : stopped.mod->arg_params())
    EXPECT_EQ(ToVector(kv.second), ToVector(shorter.mod->arg_params().at(kv.first))) << kv.first;
}

TEST(ModuleCallback, ProgressLinesStillPrintedWithACallback) {
  Fixture f;
  FitOptions fo;
  fo.progress = ProgressMode::kLines;
  fo.log_interval = 2;
  std::ostringstream log;
  fo.log = &log;
  int calls = 0;
  fo.batch_end_callback = [&](const BatchEndParam&) { return ++calls > 0; };
  f.mod->Fit(f.it.get(), nullptr, f.acc.get(), fo);
  EXPECT_EQ(calls, 4);
  EXPECT_NE(log.str().find("Epoch[0] Batch [2/4]"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("Epoch[0] Batch [4/4]"), std::string::npos) << log.str();
}

// Delegates to `inner`, sleeping `delay` in every Next() first: a data
// pipeline that keeps the trainer waiting.
class SlowIter : public DataIter {
 public:
  SlowIter(DataIter* inner, std::chrono::milliseconds delay) : inner_(inner), delay_(delay) {}
  void Reset() override { inner_->Reset(); }
  bool Next() override {
    std::this_thread::sleep_for(delay_);
    return inner_->Next();
  }
  const DataBatch& Value() const override { return inner_->Value(); }
  std::vector<DataDesc> provide_data() const override { return inner_->provide_data(); }
  std::vector<DataDesc> provide_label() const override { return inner_->provide_label(); }
  int batch_size() const override { return inner_->batch_size(); }
  int64_t num_batches() const override { return inner_->num_batches(); }

 private:
  DataIter* inner_;
  std::chrono::milliseconds delay_;
};

TEST(ModuleFit, ReportsTheTimeSpentWaitingForData) {
  Fixture f;
  SlowIter slow(f.it.get(), std::chrono::milliseconds(25));
  FitOptions fo;
  fo.num_epoch = 2;
  fo.progress = ProgressMode::kNone;
  std::ostringstream log;
  fo.log = &log;
  std::vector<EpochResult> r = f.mod->Fit(&slow, nullptr, f.acc.get(), fo);
  ASSERT_EQ(r.size(), 2u);
  for (const EpochResult& e : r) {
    // Five Next() calls per epoch (four batches and the end), each asleep
    // for 25 ms, all inside the epoch's seconds; only the part the engine
    // sat idle counts (the tiny step's updates still running at the start
    // of a wait take well under 10 ms of it).
    EXPECT_GE(e.data_wait_seconds, 5 * 0.015) << e.epoch;
    EXPECT_LE(e.data_wait_seconds, e.seconds) << e.epoch;
  }
  EXPECT_NE(log.str().find("Epoch[0] Data wait: "), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("% of step time"), std::string::npos) << log.str();
  // Silent: no line, the figure still in the result.
  fo.progress = ProgressMode::kSilent;
  std::ostringstream quiet;
  fo.log = &quiet;
  r = f.mod->Fit(f.it.get(), nullptr, f.acc.get(), fo);
  EXPECT_TRUE(quiet.str().empty()) << quiet.str();
  EXPECT_LE(r[0].data_wait_seconds, r[0].seconds);
}

}  // namespace
}  // namespace weft
