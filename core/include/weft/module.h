// Module: a symbol with its parameters, bound for training or inference,
// and the training loop around it (MXNet's Module and its fit()).
//
// A Module names which arguments are data and labels; every other argument
// is a parameter. Parameters named fixed (MXNet's fixed_param_names) are
// bound without a gradient (grad_req null) and never updated: they keep
// the values InitParams gives them. Bind() allocates an executor for the iterator's batch
// shapes; InitParams() fills the parameters (an Initializer, optionally
// overridden by given arrays such as a loaded checkpoint); InitOptimizer()
// attaches an Optimizer (rescale_grad = 1/batch_size, multipliers from the
// symbol's attributes). Fit() runs epochs: per batch forward, backward,
// one optimizer update per parameter, a metric update and the batch-end
// callbacks (the caller's, and the built-in progress printer that
// FitOptions::progress selects); per epoch, the training metric, throughput
// and the validation metric. A batch-end callback returning false stops
// training after that batch. Parameters live in the executor's argument
// arrays and are updated in place.
//
// Padded batches (DataBatch::pad > 0, the last batch of an iterator in pad
// mode) are trained on as given, as MXNet does; metrics skip the padded
// rows so Score() counts every sample exactly once.
//
// Thread-safety: one Module must be used by one thread at a time.
#ifndef WEFT_MODULE_H_
#define WEFT_MODULE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "weft/data_iter.h"
#include "weft/executor.h"
#include "weft/initializer.h"
#include "weft/kvstore.h"
#include "weft/metric.h"
#include "weft/optimizer.h"
#include "weft/symbol.h"

namespace weft {

// How Fit reports progress.
enum class ProgressMode {
  kAuto,    // a bar when the stream is a terminal (stdout/stderr), else lines
  kBar,     // a carriage-return progress bar
  kLines,   // a plain line every `log_interval` batches and after the last
  kNone,    // only the per-epoch summary
  kSilent,  // nothing
};

// What a batch-end callback sees (valid during the call only).
struct BatchEndParam {
  int epoch = 0;
  int64_t batch = 0;         // 1-based, within the epoch
  int64_t num_batches = -1;  // batches per epoch, -1 when the iterator does not know
  int64_t samples = 0;       // samples trained so far this epoch (without padding)
  double seconds = 0;        // since the epoch started
  const std::vector<std::pair<std::string, double>>* metric =
      nullptr;  // the training metric so far
};

// Called after each training batch (its update pushed, its metric counted).
// Returning false stops Fit after this batch: see Fit.
using BatchEndCallback = std::function<bool(const BatchEndParam&)>;

struct FitOptions {
  int begin_epoch = 0;
  int num_epoch = 1;
  ProgressMode progress = ProgressMode::kAuto;
  int log_interval = 100;               // batches between lines in kLines mode
  std::ostream* log = nullptr;          // std::cout when null
  std::string checkpoint_prefix;        // when set, SaveCheckpoint after each epoch
  BatchEndCallback batch_end_callback;  // optional; runs after the progress printer
};

// One epoch's figures as Fit reports them.
struct EpochResult {
  int epoch = 0;
  int64_t samples = 0;   // training samples (without padding)
  int64_t batches = 0;   // training batches run
  bool stopped = false;  // a batch-end callback stopped training during this epoch
  double seconds = 0;    // training time of the epoch
  double samples_per_sec = 0;
  // Of `seconds`, the time the training iterator's Next() held training up:
  // blocked in Next() while the engine had no pushed work left (a wait that
  // overlaps the last step's still-running updates costs nothing). Near zero
  // when the iterator prefetches fast enough.
  double data_wait_seconds = 0;
  std::vector<std::pair<std::string, double>> train_metric;
  std::vector<std::pair<std::string, double>> eval_metric;  // empty without a validation iterator
};

class Module {
 public:
  // Throws Error(kInvalidArgument) when a data or label name is not an
  // argument of `symbol`, Error(kDevice) when `ctx` is not available in
  // `rt` (not null; it binds the executors and must outlive the module).
  // `fixed_param_names` as SetFixedParams.
  Module(Runtime* rt, Symbol symbol, std::vector<std::string> data_names = {"data"},
         std::vector<std::string> label_names = {"softmax_label"}, Context ctx = Context::CPU(0),
         std::vector<std::string> fixed_param_names = {});
  ~Module();

  // MXNet's fixed_param_names: these arguments get no gradient and no
  // optimizer update; the list replaces the previous one (empty: none).
  // Throws Error(kInvalidArgument) naming every name that is not an
  // argument of the symbol, or when the module is already bound (fix
  // parameters before Bind, as MXNet does at construction).
  void SetFixedParams(std::vector<std::string> names);
  const std::vector<std::string>& fixed_param_names() const { return fixed_names_; }

  // Binds for the given batch shapes. for_training allocates gradients of
  // every parameter that is not fixed (grad_req write; data, labels and
  // fixed parameters get none). Rebinding
  // keeps the current parameter values.
  void Bind(const std::vector<DataDesc>& data, const std::vector<DataDesc>& label,
            bool for_training = true);
  bool binded() const { return exec_ != nullptr; }
  bool for_training() const { return for_training_; }

  // Fills every parameter and aux state: a given array is copied (shape must
  // match; Error naming it otherwise); a missing one is initialised by
  // `init`. Error naming it when it is missing and `init` is null, or when
  // arrays were given, it is missing and !allow_missing (MXNet's rule).
  void InitParams(Initializer* init, const std::map<std::string, NDArray>& arg_params = {},
                  const std::map<std::string, NDArray>& aux_params = {}, bool allow_missing = true);
  // Shares `optimizer` (its state lives there); sets rescale_grad to
  // 1/(batch_size * workers) and the multipliers from the symbol. With a
  // kvstore (MXNet's update_on_kvstore): the parameters are Init'ed in it
  // under their names (a dist_sync store gives every rank rank 0's values,
  // pulled back into the module), the optimizer runs in the store, and
  // Update pushes the gradients (last layer first, so the first
  // allreduces overlap the rest of the backward) then pulls the weights.
  // Fit then reports and writes checkpoints on rank 0 only. Every rank
  // must run the same number of batches (a batch-end callback that stops
  // one rank early leaves the others waiting until the kvstore's timeout).
  void InitOptimizer(std::shared_ptr<Optimizer> optimizer,
                     std::shared_ptr<KVStore> kvstore = nullptr);

  // Copies the batch into the bound data/label arrays and runs forward.
  void Forward(const DataBatch& batch, bool is_train);
  void Backward();
  // One optimizer step on every parameter that has a gradient (not the
  // fixed ones).
  void Update();
  // metric.Update on the labels and outputs of the last Forward, without
  // the last `pad` rows.
  void UpdateMetric(Metric* metric, const std::vector<NDArray>& labels, int pad = 0);
  const std::vector<NDArray>& outputs() const;

  // The training loop; returns one result per epoch run. When the batch-end
  // callback returns false, Fit waits for the pushed updates, records the
  // partial epoch (stopped = true, its training metric and throughput over
  // the batches run, its summary printed) and returns: that epoch gets no
  // validation and no checkpoint, later epochs do not run. The module stays
  // usable (Score, SaveCheckpoint, a later Fit). An exception the callback
  // throws propagates out of Fit.
  std::vector<EpochResult> Fit(DataIter* train, DataIter* eval, Metric* metric,
                               const FitOptions& options = {});
  // Runs the iterator once (from Reset) in inference mode; the metric is
  // reset first.
  std::vector<std::pair<std::string, double>> Score(DataIter* data, Metric* metric);

  // The parameters by name (the bound arrays themselves, not copies).
  std::map<std::string, NDArray> arg_params() const;
  std::map<std::string, NDArray> aux_params() const;
  // Writes <prefix>-symbol.json and <prefix>-<epoch>.params.
  void SaveCheckpoint(const std::string& prefix, int epoch) const;

  const Symbol& symbol() const { return symbol_; }
  Executor* executor() const { return exec_.get(); }
  Optimizer* optimizer() const { return optimizer_.get(); }
  KVStore* kvstore() const { return kvstore_.get(); }

 private:
  bool IsInput(const std::string& name) const;
  bool IsFixed(const std::string& name) const;
  // Positions of the arguments that have a gradient (the trained parameters).
  std::vector<size_t> TrainedArgs() const;
  void RequireBound(const char* what) const;

  Runtime* rt_;
  Symbol symbol_;
  std::vector<std::string> data_names_, label_names_, fixed_names_;
  Context ctx_;
  std::unique_ptr<Executor> exec_;
  std::shared_ptr<Optimizer> optimizer_;
  std::shared_ptr<KVStore> kvstore_;
  bool for_training_ = false;
  int batch_size_ = 0;
  std::vector<size_t> data_idx_, label_idx_;  // positions in the argument list
};

}  // namespace weft

#endif  // WEFT_MODULE_H_
