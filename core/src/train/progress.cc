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
  for (size_t i = 0; i < metric.size(); ++i) s << (i ? " " : "") << metric[i].first << "=" << metric[i].second;
  return s.str();
}

bool Progress::IsTerminal(const std::ostream* os) {
  if (os == &std::cout) return isatty(STDOUT_FILENO) != 0;
  if (os == &std::cerr || os == &std::clog) return isatty(STDERR_FILENO) != 0;
  return false;
}

Progress::Progress(std::ostream* os, ProgressMode mode, int log_interval, int epoch, int64_t total)
    : os_(os), mode_(mode), log_interval_(log_interval > 0 ? log_interval : 100), epoch_(epoch), total_(total),
      start_(std::chrono::steady_clock::now()) {
  if (mode_ == ProgressMode::kAuto) mode_ = IsTerminal(os_) ? ProgressMode::kBar : ProgressMode::kLines;
}

double Progress::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::Step(int64_t batch, int64_t samples, const std::vector<std::pair<std::string, double>>& metric) {
  double t = Elapsed();
  double rate = t > 0 ? samples / t : 0;
  char speed[64];
  std::snprintf(speed, sizeof speed, "%.0f samples/s", rate);
  if (mode_ == ProgressMode::kLines) {
    if (batch % log_interval_ != 0 && !(total_ > 0 && batch == total_)) return;
    *os_ << "Epoch[" << epoch_ << "] Batch [" << batch;
    if (total_ > 0) *os_ << "/" << total_;
    *os_ << "]  " << speed << "  " << FormatMetric(metric) << "\n" << std::flush;
  } else if (mode_ == ProgressMode::kBar) {
    bool last = total_ > 0 && batch >= total_;
    if (!last && t - last_draw_ < 0.1) return;  // redraw at most ten times a second
    last_draw_ = t;
    constexpr int kWidth = 30;
    std::string bar;
    if (total_ > 0) {
      int filled = static_cast<int>(kWidth * batch / total_);
      if (filled > kWidth) filled = kWidth;
      bar = "[" + std::string(filled, '=') + (filled < kWidth ? ">" : "") +
            std::string(kWidth - filled - (filled < kWidth ? 1 : 0), ' ') + "] ";
    }
    *os_ << "\rEpoch " << epoch_ << " " << bar << batch;
    if (total_ > 0) *os_ << "/" << total_;
    *os_ << "  " << speed << "  " << FormatMetric(metric) << "   " << std::flush;
    drawn_ = true;
  }
}

void Progress::Finish() {
  if (drawn_) *os_ << "\n" << std::flush;
  drawn_ = false;
}

}  // namespace weft
