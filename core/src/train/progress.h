// Training progress output: a carriage-return bar on a terminal, plain
// lines elsewhere. Internal to the training loop.
#ifndef WEFT_CORE_TRAIN_PROGRESS_H_
#define WEFT_CORE_TRAIN_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "weft/module.h"

namespace weft {

class Progress {
 public:
  // `total` batches per epoch, or <= 0 when unknown.
  Progress(std::ostream* os, ProgressMode mode, int log_interval, int epoch, int64_t total);
  // After batch `batch` (1-based) with `samples` trained so far this epoch.
  void Step(int64_t batch, int64_t samples, const std::vector<std::pair<std::string, double>>& metric);
  // Ends the bar's line.
  void Finish();
  // True when `os` is std::cout or std::cerr attached to a terminal.
  static bool IsTerminal(const std::ostream* os);

 private:
  double Elapsed() const;

  std::ostream* os_;
  ProgressMode mode_;
  int log_interval_;
  int epoch_;
  int64_t total_;
  std::chrono::steady_clock::time_point start_;
  double last_draw_ = -1;
  bool drawn_ = false;
};

// "name=value name=value" with 4 decimals.
std::string FormatMetric(const std::vector<std::pair<std::string, double>>& metric);

}  // namespace weft

#endif  // WEFT_CORE_TRAIN_PROGRESS_H_
