// The profiler from the command line: `--profile FILE.json` on run, train
// and predict (WithProfile), and the pieces `weft profile` (cli_run.cc)
// shares with it: starting the profiler, printing its table and writing
// the trace; `--threads` by re-running the process with OMP_NUM_THREADS.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_profile.h"

namespace weft_cli {

void StartProfiler(const std::string& trace_path) {
  const char* keys[] = {"profile_all", "filename"};
  const char* values[] = {"1", trace_path.c_str()};
  Check(weft_profiler_set_config(2, keys, values), "--profile");
  Check(weft_profiler_set_state(1), "--profile");
}

void FinishProfiler(const std::string& trace_path, const std::string& sort_by) {
  Check(weft_wait_all(), "--profile");
  Check(weft_profiler_set_state(0), "--profile");
  WeftStringList* table = nullptr;
  Check(weft_profiler_aggregate(0, "table", sort_by.c_str(), 0, &table), "--profile");
  std::printf("%s", Strings(table, "--profile").at(0).c_str());
  Check(weft_profiler_dump(1), "--profile");
  std::printf("profile: trace written to %s (open it in chrome://tracing or ui.perfetto.dev)\n",
              trace_path.c_str());
}

Runner WithProfile(CLI::App* app, Runner run) {
  auto path = std::make_shared<std::string>();
  app->add_option("--profile", *path,
                  "profile the command: write a Chrome trace and print the per-operator table")
      ->type_name("FILE.json");
  return [path, run] {
    if (path->empty()) return run();
    StartProfiler(*path);
    const int rc = run();
    FinishProfiler(*path, "total");
    return rc;
  };
}

void UseThreads(int threads) {
  if (threads <= 0) return;
  const std::string want = std::to_string(threads);
  const char* have = std::getenv("OMP_NUM_THREADS");
  if (have && want == have) return;
  // OpenMP reads its team size when the library loads: run again with it set.
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t b = 0, e; b < all.size(); b = e + 1) {
    e = all.find('\0', b);
    if (e == std::string::npos) e = all.size();
    args.push_back(all.substr(b, e - b));
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("OMP_NUM_THREADS", want.c_str(), 1);
  std::fflush(stdout);
  execv("/proc/self/exe", argv.data());
  throw Exit{1, "weft profile --threads: cannot re-run the process with OMP_NUM_THREADS=" + want};
}

}  // namespace weft_cli
