// Module: the training loop (a FitSession run to its end) and evaluation.
#include <string>

#include "weft/fit_session.h"
#include "weft/module.h"
#include "weft/status.h"

namespace weft {

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
  FitSession session(this, train, eval, metric, options);
  for (FitSession::Event e; (e = session.Next()) != FitSession::Event::kDone;) {
    if (e == FitSession::Event::kBatchEnd && options.batch_end_callback &&
        !options.batch_end_callback(session.batch()))
      session.Stop();
  }
  return session.results();
}

}  // namespace weft
