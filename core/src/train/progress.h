// The built-in progress printer of Module::Fit (FitOptions::progress): a
// carriage-return bar on a terminal, plain lines elsewhere, fed the same
// BatchEndParam as the caller's batch-end callback. Internal to Fit; callers
// that render their own progress (the weft CLI) use the callback instead.
#ifndef WEFT_CORE_TRAIN_PROGRESS_H_
#define WEFT_CORE_TRAIN_PROGRESS_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "weft/module.h"

namespace weft {

class Progress {
 public:
  Progress(std::ostream* os, ProgressMode mode, int log_interval);
  // Whether Step prints anything (kBar or kLines, kAuto resolved).
  bool active() const { return mode_ == ProgressMode::kBar || mode_ == ProgressMode::kLines; }
  // After a batch.
  void Step(const BatchEndParam& p);
  // Ends the bar's line.
  void Finish();
  // True when `os` is std::cout or std::cerr attached to a terminal.
  static bool IsTerminal(const std::ostream* os);

 private:
  std::ostream* os_;
  ProgressMode mode_;
  int log_interval_;
  int epoch_ = -1;
  double last_draw_ = -1;
  bool drawn_ = false;
};

// "name=value name=value" with 4 decimals.
std::string FormatMetric(const std::vector<std::pair<std::string, double>>& metric);

}  // namespace weft

#endif  // WEFT_CORE_TRAIN_PROGRESS_H_
