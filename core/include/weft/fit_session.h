// FitSession: Module::Fit as steps the caller drives, one training batch or
// one epoch's close per Next().
//
// Module::Fit runs a session to its end and calls FitOptions'
// batch_end_callback at each kBatchEnd. A host that cannot take a native
// callback (the Java, C# and Go bindings: weft_fit_session_* in the C ABI)
// drives the session itself and runs its own batch-end and epoch-end
// callbacks on its own thread between two Next() calls: there is one loop,
// and no callback crosses a language runtime.
//
// Events, in order, for each epoch in [begin_epoch, num_epoch):
//   kBatchEnd  after each training batch (forward, backward, update pushed,
//              metric updated); batch() describes it.
//   kEpochEnd  after the epoch's last batch: the pushed updates have run, the
//              summary is printed (throughput, then "Epoch[N] Data wait: X %
//              of step time": the share of the epoch's seconds spent blocked
//              in the training iterator's Next()), the validation iterator scored (the metric
//              then holds the validation values) and the checkpoint written;
//              epoch() describes it.
// and kDone once every epoch ran (or after Stop). Stop() after a kBatchEnd
// closes that epoch as MXNet's early stop does (waits for the updates, prints
// the summary marked stopped, no validation, no checkpoint); after a
// kEpochEnd it only skips the later epochs. Not thread-safe; the module, the
// iterators and the metric must outlive the session and not be used by
// anything else until it is done.
#ifndef WEFT_FIT_SESSION_H_
#define WEFT_FIT_SESSION_H_

#include <memory>
#include <vector>

#include "weft/module.h"

namespace weft {

class FitSession {
 public:
  enum class Event { kBatchEnd, kEpochEnd, kDone };

  // Checks the arguments (Error(kInvalidArgument): null train or metric,
  // num_epoch <= begin_epoch, no optimizer) and binds the module for
  // training when needed. options.batch_end_callback is ignored.
  FitSession(Module* module, DataIter* train, DataIter* eval, Metric* metric,
             const FitOptions& options);
  ~FitSession();
  FitSession(const FitSession&) = delete;
  FitSession& operator=(const FitSession&) = delete;

  // Runs the next step. Errors of the model or the data propagate; the
  // session is then done.
  Event Next();
  // Ends training after the current step (see above); idempotent.
  void Stop();

  // The last batch (valid after kBatchEnd, until the next Next()).
  const BatchEndParam& batch() const;
  // The last closed epoch (valid after kEpochEnd, and after Stop).
  const EpochResult& epoch() const;
  // Every closed epoch so far.
  const std::vector<EpochResult>& results() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace weft

#endif  // WEFT_FIT_SESSION_H_
