// Module: the training loop and evaluation.
#include <chrono>
#include <iostream>
#include <string>

#include "train/progress.h"
#include "weft/module.h"
#include "weft/status.h"

namespace weft {

namespace {

// Waits until every parameter update pushed so far has run.
void WaitParams(const Module& m) {
  for (const auto& kv : m.arg_params()) kv.second.WaitToRead();
  for (const auto& kv : m.aux_params()) kv.second.WaitToRead();
}

}  // namespace

std::vector<std::pair<std::string, double>> Module::Score(DataIter* data, Metric* metric) {
  RequireBound("Score");
  if (data == nullptr || metric == nullptr)
    Fail(StatusCode::kInvalidArgument, "Module::Score: null ", (data ? "metric" : "iterator"));
  metric->Reset();
  data->Reset();
  while (data->Next()) {
    const DataBatch& batch = data->Value();
    Forward(batch, false);
    UpdateMetric(metric, batch.label, batch.pad);
  }
  return metric->Get();
}

std::vector<EpochResult> Module::Fit(DataIter* train, DataIter* eval, Metric* metric,
                                     const FitOptions& options) {
  if (train == nullptr || metric == nullptr)
    Fail(StatusCode::kInvalidArgument, "Module::Fit: null ",
         (train ? "metric" : "training iterator"));
  if (options.num_epoch <= options.begin_epoch)
    Fail(StatusCode::kInvalidArgument, "Module::Fit: num_epoch (", options.num_epoch,
         ") must exceed begin_epoch (", options.begin_epoch, ")");
  if (!exec_ || !for_training_) Bind(train->provide_data(), train->provide_label(), true);
  if (!optimizer_) Fail(StatusCode::kInvalidArgument, "Module::Fit: call InitOptimizer first");
  std::ostream* os = options.log ? options.log : &std::cout;
  std::vector<EpochResult> results;
  const int64_t batches_per_epoch = train->num_batches();
  // With a dist_sync kvstore only rank 0 reports and writes checkpoints.
  const bool lead = !kvstore_ || kvstore_->rank() == 0;
  Progress progress(os, lead ? options.progress : ProgressMode::kSilent, options.log_interval);
  const bool per_batch = progress.active() || static_cast<bool>(options.batch_end_callback);
  std::vector<std::pair<std::string, double>> metric_now;
  for (int epoch = options.begin_epoch; epoch < options.num_epoch; ++epoch) {
    EpochResult r;
    r.epoch = epoch;
    metric->Reset();
    train->Reset();
    auto start = std::chrono::steady_clock::now();
    while (train->Next()) {
      const DataBatch& batch = train->Value();
      Forward(batch, true);
      Backward();
      Update();
      UpdateMetric(metric, batch.label, batch.pad);
      r.samples += batch.data[0].shape()[0] - batch.pad;
      ++r.batches;
      if (!per_batch) continue;
      metric_now = metric->Get();
      BatchEndParam p;
      p.epoch = epoch;
      p.batch = r.batches;
      p.num_batches = batches_per_epoch;
      p.samples = r.samples;
      p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      p.metric = &metric_now;
      progress.Step(p);
      if (options.batch_end_callback && !options.batch_end_callback(p)) {
        r.stopped = true;
        break;
      }
    }
    WaitParams(*this);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.samples_per_sec = r.seconds > 0 ? r.samples / r.seconds : 0;
    r.train_metric = metric->Get();
    progress.Finish();
    const bool summary = lead && options.progress != ProgressMode::kSilent;
    if (summary)
      *os << "Epoch[" << epoch << "] Train: " << FormatMetric(r.train_metric) << "  time "
          << r.seconds << " s  " << static_cast<int64_t>(r.samples_per_sec) << " samples/s"
          << (r.stopped ? "  (stopped after batch " + std::to_string(r.batches) + ")"
                        : std::string())
          << "\n";
    if (r.stopped) {
      os->flush();
      results.push_back(std::move(r));
      break;
    }
    if (eval != nullptr) {
      r.eval_metric = Score(eval, metric);
      if (summary)
        *os << "Epoch[" << epoch << "] Validation: " << FormatMetric(r.eval_metric) << "\n";
    }
    os->flush();
    if (lead && !options.checkpoint_prefix.empty())
      SaveCheckpoint(options.checkpoint_prefix, epoch + 1);
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace weft
