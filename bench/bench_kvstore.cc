// The dist_sync KVStore's costs, under `mpirun -np 2` (bench/README.md,
// "Distributed training"):
//   allreduce  4 MB and 64 MB float32 through KVStore::PushPull vs a raw
//              MPI_Allreduce of the same buffer, interleaved, in one run;
//   lanes      many outstanding non-blocking allreduces progressed on one
//              helper thread, two ways: a polling loop over the requests
//              yielding the OS thread between sweeps (what the kvstore's
//              lane does), the same loop without yielding, and one
//              Boost.Fiber per request that yields (to the other fibers)
//              between MPI_Test calls;
//   train      a model's training step (forward, backward, update through
//              the kvstore) with a local kvstore (no communication), with
//              dist_sync (allreduce overlapping the backward), and with
//              dist_sync after waiting for the whole backward (no overlap).
// Usage: mpirun -np 2 weft_bench_kvstore allreduce [--reps N]
//        mpirun -np 2 weft_bench_kvstore lanes [--reps N]
//        mpirun -np 2 weft_bench_kvstore train SYMBOL.json --batch B [--steps N] [--reps N]
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <boost/fiber/all.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "weft/runtime.h"
#include "weft/engine.h"
#include "weft/initializer.h"
#include "weft/kvstore.h"
#include "weft/module.h"
#include "weft/symbol_json.h"

namespace {

using weft::NDArray;
using Clock = std::chrono::steady_clock;

double Seconds(const std::function<void()>& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = Clock::now();
  f();
  double local = std::chrono::duration<double>(Clock::now() - t0).count(), slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // the job's time
  return slowest;
}

struct Stats {
  std::vector<double> v;
  double Min() const { return *std::min_element(v.begin(), v.end()); }
  double Median() const {
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  }
  double Max() const { return *std::max_element(v.begin(), v.end()); }
};

int Allreduce(int reps, int rank) {
  if (rank == 0)
    std::printf("%-8s %-10s %12s %12s %12s %14s\n", "size", "path", "min ms", "median ms", "max ms",
                "GB/s (median)");
  for (int64_t mb : {4, 64}) {
    const int64_t n = mb * (1 << 20) / 4;
    std::vector<float> raw(static_cast<size_t>(n), 1.0f);
    auto kv = weft::KVStore::Create("dist_sync");
    NDArray value({n}, weft::Context::CPU(0), weft::DType::kFloat32, &weft::Runtime::Global());
    value.CopyFromHost(raw.data(), raw.size() * 4);
    kv->Init({"g"}, {value});
    Stats mpi, nb, store;
    for (int r = 0; r < reps + 1; ++r) {  // interleaved; the first round warms up
      double a = Seconds([&] {
        MPI_Allreduce(MPI_IN_PLACE, raw.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
      });
      double c = Seconds([&] {  // what the kvstore's lane does: MPI_Iallreduce polled with MPI_Test
        MPI_Request req;
        MPI_Iallreduce(MPI_IN_PLACE, raw.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                       MPI_COMM_WORLD, &req);
        for (int done = 0; !done;) MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      });
      double b = Seconds([&] {
        kv->PushPull({"g"}, {value}, {value});
        value.WaitToRead();
      });
      if (r == 0) continue;
      mpi.v.push_back(a);
      nb.v.push_back(c);
      store.v.push_back(b);
    }
    if (rank == 0) {
      const double bytes = static_cast<double>(n) * 4;
      for (auto* p : {&mpi, &nb, &store})
        std::printf("%-8s %-10s %12.2f %12.2f %12.2f %14.2f\n",
                    (std::to_string(mb) + " MB").c_str(),
                    p == &mpi  ? "MPI"
                    : p == &nb ? "MPI (nb)"
                               : "KVStore",
                    p->Min() * 1e3, p->Median() * 1e3, p->Max() * 1e3, bytes / p->Median() / 1e9);
      std::printf("%-8s KVStore bandwidth / MPI_Allreduce's: %.0f %% (median times)\n", "",
                  100 * mpi.Median() / store.Median());
    }
  }
  return 0;
}

// k allreduces of n floats each, outstanding at once, progressed on one
// helper thread by `progress` (given the buffers); the job's seconds.
double OnHelperThread(const std::function<void()>& progress) {
  return Seconds([&] {
    std::thread t(progress);
    t.join();
  });
}

int Lanes(int reps, int rank) {
  if (rank == 0)
    std::printf("%-24s %-8s %12s %12s %12s\n", "outstanding allreduces", "lane", "min ms",
                "median ms", "max ms");
  const std::vector<std::pair<int, int64_t>> cases = {{64, 16 << 10}, {16, 1 << 20}, {4, 16 << 20}};
  for (const auto& c : cases) {
    const int k = c.first;
    const int n = static_cast<int>(c.second / 4);
    std::vector<std::vector<float>> bufs(static_cast<size_t>(k),
                                         std::vector<float>(static_cast<size_t>(n), 1.0f));
    auto polling = [&] {  // one loop over every request, as the lane
      std::vector<MPI_Request> reqs(static_cast<size_t>(k));
      for (int i = 0; i < k; ++i)
        MPI_Iallreduce(MPI_IN_PLACE, bufs[i].data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                       &reqs[i]);
      for (int left = k; left > 0;) {
        for (auto& r : reqs) {
          if (r == MPI_REQUEST_NULL) continue;
          int done = 0;
          MPI_Test(&r, &done, MPI_STATUS_IGNORE);  // sets r to MPI_REQUEST_NULL when done
          if (done) --left;
        }
        std::this_thread::yield();
      }
    };
    auto spinning = [&] {  // the polling loop without yielding the OS thread between sweeps
      std::vector<MPI_Request> reqs(static_cast<size_t>(k));
      for (int i = 0; i < k; ++i)
        MPI_Iallreduce(MPI_IN_PLACE, bufs[i].data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD,
                       &reqs[i]);
      for (int left = k; left > 0;) {
        for (auto& r : reqs) {
          if (r == MPI_REQUEST_NULL) continue;
          int done = 0;
          MPI_Test(&r, &done, MPI_STATUS_IGNORE);
          if (done) --left;
        }
      }
    };
    auto fibers = [&] {  // one fiber per request, yielding between tests
      std::vector<boost::fibers::fiber> fs;
      for (int i = 0; i < k; ++i)
        fs.emplace_back([&, i] {
          MPI_Request r;
          MPI_Iallreduce(MPI_IN_PLACE, bufs[i].data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
          for (int done = 0;;) {
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
            if (done) break;
            boost::this_fiber::yield();
          }
        });
      for (auto& f : fs) f.join();
    };
    Stats p, t, f;
    for (int r = 0; r < reps + 1; ++r) {  // interleaved; the first round warms up
      double a = OnHelperThread(polling);
      double b = OnHelperThread(fibers);
      double c = OnHelperThread(spinning);
      if (r == 0) continue;
      p.v.push_back(a);
      f.v.push_back(b);
      t.v.push_back(c);
    }
    if (rank == 0) {
      const std::string what = std::to_string(k) + " x " + std::to_string(c.second >> 10) + " KB";
      for (auto* s : {&p, &t, &f})
        std::printf("%-24s %-8s %12.3f %12.3f %12.3f\n", what.c_str(),
                    s == &p   ? "polling"
                    : s == &t ? "spinning"
                              : "fibers",
                    s->Min() * 1e3, s->Median() * 1e3, s->Max() * 1e3);
      std::printf("%-24s fibers / polling (median): %.2f\n", "", f.Median() / p.Median());
    }
  }
  return 0;
}

int Train(const std::string& json, int batch, int steps, int reps, int rank) {
  weft::Symbol sym = weft::LoadJSONFile(json, weft::Runtime::Global().ops()).symbol;
  auto local = std::shared_ptr<weft::KVStore>(weft::KVStore::Create("local"));
  auto dist = std::shared_ptr<weft::KVStore>(weft::KVStore::Create("dist_sync"));
  auto make = [&](std::shared_ptr<weft::KVStore> kv) {
    auto m = std::make_unique<weft::Module>(&weft::Runtime::Global(), sym);
    m->Bind({{"data", weft::Shape{batch, 1, 28, 28}}}, {{"softmax_label", weft::Shape{batch}}});
    auto init = weft::Initializer::Create("xavier", {}, 1);
    m->InitParams(init.get());
    m->InitOptimizer(std::shared_ptr<weft::Optimizer>(weft::Optimizer::Create(
                         "sgd", {{"learning_rate", "0.01"}, {"momentum", "0.9"}})),
                     kv);
    return m;
  };
  auto m_local = make(local), m_dist = make(dist);
  std::vector<float> x(static_cast<size_t>(batch) * 784), y(static_cast<size_t>(batch));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 255) / 255.0f;
  for (size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(i % 10);
  weft::DataBatch b;
  b.data.emplace_back(weft::Shape{batch, 1, 28, 28}, weft::Context::CPU(0), weft::DType::kFloat32,
                      &weft::Runtime::Global());
  b.label.emplace_back(weft::Shape{batch}, weft::Context::CPU(0), weft::DType::kFloat32,
                       &weft::Runtime::Global());
  b.data[0].CopyFromHost(x.data(), x.size() * 4);
  b.label[0].CopyFromHost(y.data(), y.size() * 4);
  auto run = [&](weft::Module* m, bool overlap) {
    for (int s = 0; s < steps; ++s) {
      m->Forward(b, true);
      m->Backward();
      if (!overlap) weft::Engine::Get()->WaitForAll();
      m->Update();
    }
    weft::Engine::Get()->WaitForAll();
  };
  Stats loc, ovl, seq;
  for (int r = 0; r < reps + 1; ++r) {
    double a = Seconds([&] { run(m_local.get(), true); });
    double c = Seconds([&] { run(m_dist.get(), true); });
    double d = Seconds([&] { run(m_dist.get(), false); });
    if (r == 0) continue;
    loc.v.push_back(a / steps);
    ovl.v.push_back(c / steps);
    seq.v.push_back(d / steps);
  }
  if (rank == 0) {
    std::printf("%s, batch %d per process, %d steps x %d reps (ms per step: min / median / max)\n",
                json.c_str(), batch, steps, reps);
    auto row = [&](const char* name, const Stats& s) {
      std::printf("  %-34s %8.3f %8.3f %8.3f   %8.0f images/s per process\n", name, s.Min() * 1e3,
                  s.Median() * 1e3, s.Max() * 1e3, batch / s.Median());
    };
    row("local kvstore (no communication)", loc);
    row("dist_sync, overlapped", ovl);
    row("dist_sync, after the whole backward", seq);
    std::printf("  communication share of the step (overlapped): %.0f %%; overlap saves %.0f %%\n",
                100 * (ovl.Median() - loc.Median()) / ovl.Median(),
                100 * (seq.Median() - ovl.Median()) / seq.Median());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1",
         0);  // as the kvstore's lane sets it when it starts MPI
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE,
                  &provided);  // the kvstore's lane calls MPI too
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<std::string> args(argv + 1, argv + argc);
  auto opt = [&](const char* name, int def) {
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == name) return std::atoi(args[i + 1].c_str());
    return def;
  };
  int rc = 2;
  try {
    if (!args.empty() && args[0] == "allreduce")
      rc = Allreduce(opt("--reps", 10), rank);
    else if (!args.empty() && args[0] == "lanes")
      rc = Lanes(opt("--reps", 10), rank);
    else if (args.size() >= 2 && args[0] == "train")
      rc = Train(args[1], opt("--batch", 64), opt("--steps", 20), opt("--reps", 5), rank);
    else if (rank == 0)
      std::fprintf(stderr,
                   "usage: mpirun -np 2 weft_bench_kvstore allreduce [--reps N] | lanes [--reps N] "
                   "| train SYMBOL.json [--batch B] [--steps N] [--reps N]\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    rc = 1;
  }
  weft::Engine::Get()->WaitForAll();
  MPI_Finalize();
  return rc;
}
