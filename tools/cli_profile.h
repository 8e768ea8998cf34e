// Profiling from the command line (cli_profile.cc).
#ifndef WEFT_TOOLS_CLI_PROFILE_H_
#define WEFT_TOOLS_CLI_PROFILE_H_

#include <string>

#include "cli_util.h"

namespace weft_cli {

// Starts the profiler recording everything into `trace_path`.
void StartProfiler(const std::string& trace_path);
// Waits for pending work, stops the profiler, prints its aggregate table
// (sorted by `sort_by`) and writes the trace.
void FinishProfiler(const std::string& trace_path, const std::string& sort_by);
// Adds `--profile FILE.json` to `app`; the returned runner profiles `run`
// when it is given.
Runner WithProfile(CLI::App* app, Runner run);
// Makes kernels use `threads` OpenMP threads (0: leave the default): runs
// the process again with OMP_NUM_THREADS set unless it already is.
void UseThreads(int threads);

}  // namespace weft_cli

#endif  // WEFT_TOOLS_CLI_PROFILE_H_
