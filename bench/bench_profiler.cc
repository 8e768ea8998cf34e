// The profiler's cost: forward latency of the MLP and ResNet-18 at batch 1
// with the profiler off (never started), stopped, and running with every
// category on (profile_all), interleaved round by round so that drift hits
// the modes alike. A plain harness (its own main, weft_bench_profiler);
// bench/bench_profiler.sh runs it with 1 and 2 threads.
//
// Usage: weft_bench_profiler [--rounds R] [--iters N] [--resnet-size S]
// Prints, per model: median of the per-round medians and the spread
// (min..max of the round medians) in ms per forward, for each mode.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "util/bench_models.h"
#include "weft/engine.h"
#include "weft/executor.h"
#include "weft/profiler.h"

namespace weft {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median ms of `iters` forwards (each waited for).
double TimeForwards(Executor* ex, int iters) {
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ex->Forward(false);
    ex->outputs()[0].WaitToRead();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return Median(ms);
}

void Bench(const char* name, const Symbol& net, const pass::ShapeMap& shapes, int rounds,
           int iters) {
  auto ex = Executor::SimpleBind(&Runtime::Global(), net, Context::CPU(0), shapes, {},
                                 GradReqSpec::All(GradReq::kNull));
  TimeForwards(ex.get(), 5);  // warm-up
  std::vector<double> off, on;
  size_t events = 0;
  for (int r = 0; r < rounds; ++r) {
    off.push_back(TimeForwards(ex.get(), iters));
    profiler::SetState(profiler::State::kRun);
    on.push_back(TimeForwards(ex.get(), iters));
    profiler::SetState(profiler::State::kStop);
    events = profiler::PendingEventsForTesting();
    profiler::Dump(true);  // forget the events (the file is the bench's by-product)
  }
  const double m_off = Median(off), m_on = Median(on);
  const size_t per_forward = events / static_cast<size_t>(iters);
  const char* threads = std::getenv("OMP_NUM_THREADS");
  std::printf("| %s | %s | %.3f (%.3f..%.3f) | %.3f (%.3f..%.3f) | %+.1f %% | %zu |\n", name,
              threads ? threads : "default", m_off, *std::min_element(off.begin(), off.end()),
              *std::max_element(off.begin(), off.end()), m_on,
              *std::min_element(on.begin(), on.end()), *std::max_element(on.begin(), on.end()),
              100.0 * (m_on - m_off) / m_off, per_forward);
}

int Main(int argc, char** argv) {
  int rounds = 7, iters = 30, size = 224;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--iters" && i + 1 < argc)
      iters = std::max(1, std::atoi(argv[++i]));
    else if (a == "--resnet-size" && i + 1 < argc)
      size = std::max(32, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--rounds R] [--iters N] [--resnet-size S]\n", argv[0]);
      return 2;
    }
  }
  profiler::Config c;
  c.filename = "/tmp/weft_bench_profiler.json";
  profiler::SetConfig(c);
  std::printf(
      "| model (batch 1) | threads | off ms (spread) | profiling ms (spread) | cost | events per "
      "forward |\n");
  std::printf("|---|---|---|---|---|---|\n");
  Bench("MLP", test::bench::Mlp(), {{"data", Shape{1, 784}}, {"softmax_label", Shape{1}}}, rounds,
        iters);
  Bench("ResNet-18", test::bench::ResNet18(),
        {{"data", Shape{1, 3, size, size}}, {"softmax_label", Shape{1}}}, rounds, iters / 3 + 1);
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) { return weft::Main(argc, argv); }
