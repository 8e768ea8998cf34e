// Training progress output.
#include "train/progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

namespace weft {

std::string FormatMetric(const std::vector<std::pair<std::string, double>>& metric) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(4);
  for (size_t i = 0; i < metric.size(); ++i)
    s << (i ? " " : "") << metric[i].first << "=" << metric[i].second;
  return s.str();
}

bool Progress::IsTerminal(const std::ostream* os) {
  if (os == &std::cout) return isatty(STDOUT_FILENO) != 0;
  if (os == &std::cerr || os == &std::clog) return isatty(STDERR_FILENO) != 0;
  return false;
}

Progress::Progress(std::ostream* os, ProgressMode mode, int log_interval)
    : os_(os), mode_(mode), log_interval_(log_interval > 0 ? log_interval : 100) {
  if (mode_ == ProgressMode::kAuto)
    mode_ = IsTerminal(os_) ? ProgressMode::kBar : ProgressMode::kLines;
}

void Progress::Step(const BatchEndParam& p) {
  if (!active()) return;
  if (p.epoch != epoch_) last_draw_ = -1;
  epoch_ = p.epoch;
  const int64_t total = p.num_batches;
  double rate = p.seconds > 0 ? p.samples / p.seconds : 0;
  char speed[64];
  std::snprintf(speed, sizeof speed, "%.0f samples/s", rate);
  const std::string metric = p.metric ? FormatMetric(*p.metric) : std::string();
  if (mode_ == ProgressMode::kLines) {
    if (p.batch % log_interval_ != 0 && !(total > 0 && p.batch == total)) return;
    *os_ << "Epoch[" << p.epoch << "] Batch [" << p.batch;
    if (total > 0) *os_ << "/" << total;
    *os_ << "]  " << speed << "  " << metric << "\n" << std::flush;
    return;
  }
  bool last = total > 0 && p.batch >= total;
  if (!last && last_draw_ >= 0 && p.seconds - last_draw_ < 0.1)
    return;  // redraw at most ten times a second
  last_draw_ = p.seconds;
  constexpr int kWidth = 30;
  std::string bar;
  if (total > 0) {
    int filled = static_cast<int>(kWidth * p.batch / total);
    if (filled > kWidth) filled = kWidth;
    bar = "[" + std::string(filled, '=') + (filled < kWidth ? ">" : "") +
          std::string(kWidth - filled - (filled < kWidth ? 1 : 0), ' ') + "] ";
  }
  *os_ << "\rEpoch " << p.epoch << " " << bar << p.batch;
  if (total > 0) *os_ << "/" << total;
  *os_ << "  " << speed << "  " << metric << "   " << std::flush;
  drawn_ = true;
}

void Progress::Finish() {
  if (drawn_) *os_ << "\n" << std::flush;
  drawn_ = false;
}

}  // namespace weft
