// FitSession (fit_session.h): Module::Fit's loop as resumable steps.
#include "weft/fit_session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>

#include "train/progress.h"
#include "weft/engine.h"
#include "weft/profiler.h"
#include "weft/status.h"

namespace weft {

namespace {

using Clock = std::chrono::steady_clock;

// Waits until every parameter update pushed so far has run.
void WaitParams(const Module& m) {
  for (const auto& kv : m.arg_params()) kv.second.WaitToRead();
  for (const auto& kv : m.aux_params()) kv.second.WaitToRead();
}

// "12.3 %": one decimal.
std::string FormatPercent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100 * share);
  return text;
}

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Of the time since `asked` (SteadyNs) spent in the iterator's Next(), the
// part the engine sat idle (`busy_before`: its BusyNs then): while work
// pushed before (the last step's optimizer updates) still ran, the
// trainer's wait cost nothing.
double DataWaitSeconds(int64_t asked, int64_t busy_before) {
  const int64_t busy = Engine::Get()->BusyNs() - busy_before, got = SteadyNs();
  return std::max<int64_t>(0, got - asked - busy) * 1e-9;
}

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

struct FitSession::State {
  State(Module* m, DataIter* t, DataIter* e, Metric* me, const FitOptions& o, bool lead_rank)
      : module(m),
        train(t),
        eval(e),
        metric(me),
        options(o),
        os(o.log ? o.log : &std::cout),
        lead(lead_rank),
        progress(os, lead ? o.progress : ProgressMode::kSilent, o.log_interval),
        epoch(o.begin_epoch) {}

  void BeginEpoch();
  void RunBatch();
  // metric_now from the metric, once per batch and only when read.
  void RefreshMetric();
  // Closes the current epoch; a stopped one gets no validation and no checkpoint.
  void CloseEpoch(bool stopped);

  Module* module;
  DataIter* train;
  DataIter* eval;
  Metric* metric;
  FitOptions options;
  std::ostream* os;
  bool lead;  // with a dist_sync kvstore only rank 0 reports and writes checkpoints
  Progress progress;
  int epoch;
  bool in_epoch = false;
  bool done = false;
  Clock::time_point start;
  EpochResult current;
  BatchEndParam batch;
  std::vector<std::pair<std::string, double>> metric_now;
  bool metric_stale = true;
  std::vector<EpochResult> results;
};

void FitSession::State::BeginEpoch() {
  current = EpochResult();
  current.epoch = epoch;
  metric->Reset();
  train->Reset();
  start = Clock::now();
  in_epoch = true;
}

void FitSession::State::RunBatch() {
  const DataBatch& b = train->Value();
  module->Forward(b, true);
  module->Backward();
  module->Update();
  module->UpdateMetric(metric, b.label, b.pad);
  current.samples += b.data[0].shape()[0] - b.pad;
  ++current.batches;
  batch = BatchEndParam();
  batch.epoch = epoch;
  batch.batch = current.batches;
  batch.num_batches = train->num_batches();
  batch.samples = current.samples;
  batch.seconds = SecondsSince(start);
  batch.metric = &metric_now;
  metric_stale = true;
  if (progress.active()) {  // the printer shows the metric; otherwise batch() reads it on demand
    RefreshMetric();
    progress.Step(batch);
  }
}

void FitSession::State::RefreshMetric() {
  if (!metric_stale) return;
  metric_now = metric->Get();
  metric_stale = false;
}

void FitSession::State::CloseEpoch(bool stopped) {
  in_epoch = false;
  EpochResult& r = current;
  r.stopped = stopped;
  WaitParams(*module);
  r.seconds = SecondsSince(start);
  r.samples_per_sec = r.seconds > 0 ? r.samples / r.seconds : 0;
  r.train_metric = metric->Get();
  progress.Finish();
  const bool summary = lead && options.progress != ProgressMode::kSilent;
  if (summary)
    *os << "Epoch[" << r.epoch << "] Train: " << FormatMetric(r.train_metric) << "  time "
        << r.seconds << " s  " << static_cast<int64_t>(r.samples_per_sec) << " samples/s"
        << (stopped ? "  (stopped after batch " + std::to_string(r.batches) + ")" : std::string())
        << "\n";
  if (summary && r.seconds > 0)
    *os << "Epoch[" << r.epoch << "] Data wait: " << FormatPercent(r.data_wait_seconds / r.seconds)
        << " of step time (" << r.data_wait_seconds << " s waiting for the training iterator)\n";
  if (!stopped && eval != nullptr) {
    r.eval_metric = module->Score(eval, metric);
    if (summary)
      *os << "Epoch[" << r.epoch << "] Validation: " << FormatMetric(r.eval_metric) << "\n";
  }
  os->flush();
  if (!stopped && lead && !options.checkpoint_prefix.empty())
    module->SaveCheckpoint(options.checkpoint_prefix, r.epoch + 1);
  results.push_back(r);
}

FitSession::FitSession(Module* module, DataIter* train, DataIter* eval, Metric* metric,
                       const FitOptions& options) {
  if (module == nullptr) Fail(StatusCode::kInvalidArgument, "Module::Fit: null module");
  if (train == nullptr || metric == nullptr)
    Fail(StatusCode::kInvalidArgument, "Module::Fit: null ",
         (train ? "metric" : "training iterator"));
  if (options.num_epoch <= options.begin_epoch)
    Fail(StatusCode::kInvalidArgument, "Module::Fit: num_epoch (", options.num_epoch,
         ") must exceed begin_epoch (", options.begin_epoch, ")");
  if (!module->binded() || !module->for_training())
    module->Bind(train->provide_data(), train->provide_label(), true);
  if (!module->optimizer())
    Fail(StatusCode::kInvalidArgument, "Module::Fit: call InitOptimizer first");
  const bool lead = !module->kvstore() || module->kvstore()->rank() == 0;
  s_ = std::make_unique<State>(module, train, eval, metric, options, lead);
}

FitSession::~FitSession() = default;

FitSession::Event FitSession::Next() {
  State& s = *s_;
  if (s.done) return Event::kDone;
  try {
    if (!s.in_epoch) {
      if (s.epoch >= s.options.num_epoch) {
        s.done = true;
        return Event::kDone;
      }
      s.BeginEpoch();
    }
    // The previous batch's arrays are released when the step reading them
    // (its backward pass) ends: wait for that outside the timed call, so
    // that the data wait counts only the time the iterator's batch is not
    // ready (iterators that reuse their arrays would wait for it in Next()).
    if (s.current.batches > 0) {
      const DataBatch& prev = s.train->Value();
      for (const NDArray& a : prev.data) a.WaitToWrite();
      for (const NDArray& a : prev.label) a.WaitToWrite();
    }
    const int64_t asked = SteadyNs(), busy_before = Engine::Get()->BusyNs();
    bool more = false;
    {
      profiler::Scope timed(profiler::Category::kData, "next", "training data");
      more = s.train->Next();
    }
    s.current.data_wait_seconds += DataWaitSeconds(asked, busy_before);
    if (more) {
      s.RunBatch();
      return Event::kBatchEnd;
    }
    s.CloseEpoch(false);
    ++s.epoch;
    return Event::kEpochEnd;
  } catch (...) {
    s.done = true;
    throw;
  }
}

void FitSession::Stop() {
  State& s = *s_;
  if (s.done) return;
  s.done = true;
  if (s.in_epoch) s.CloseEpoch(true);
}

const BatchEndParam& FitSession::batch() const {
  s_->RefreshMetric();
  return s_->batch;
}

const EpochResult& FitSession::epoch() const {
  if (s_->results.empty())
    Fail(StatusCode::kInvalidArgument, "FitSession::epoch: no epoch has ended yet");
  return s_->results.back();
}

const std::vector<EpochResult>& FitSession::results() const { return s_->results; }

}  // namespace weft
