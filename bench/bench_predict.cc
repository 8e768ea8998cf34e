// Serving throughput of a predictor (weft_predictor_*, through the C ABI alone) with
// 1..N concurrent callers, each predicting one sample at a time.
//
//   weft_bench_predict DIR MODEL [--callers 1,2,4] [--seconds S] [--max-executors N]
//                      [--max-batch B] [--batch-delay-us D] [--batch-queue mutex|lockfree]
//
// Loads DIR/MODEL-symbol.json and DIR/MODEL-0000.params (bench_infer_peers.sh exports
// them), takes the first sample of the first DIR/MODEL-b*-input.npy it finds (b1, b8, b64)
// and checks the predictor's answer against the first row of PyTorch's output. Then, per
// caller count C, C threads call weft_predictor_predict_float in a loop for S seconds
// (after one warm-up call each) and it prints one line:
//   predict model=M callers=C requests=N req_per_s=X p50_ms=Y p99_ms=Z executors=E
//           weight_mb=W activation_mb=A rss_growth_mb=R
// (rss_growth_mb: resident memory now minus before the predictor was created.) With
// --max-batch B > 1 the predictor batches concurrent calls (its batch_* options) and the
// line adds batching=QUEUE:B:D.
// Run with OMP_NUM_THREADS=1 for one OpenMP thread per call (bench/bench_predict.sh does).
#include <weft/c_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

void Check(WeftStatus s, const char* what) {
  if (s == WEFT_OK) return;
  std::fprintf(stderr, "weft_bench_predict: %s failed: %s\n", what, weft_last_error());
  std::exit(2);
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

// The values and shape of an .npy file.
std::vector<float> LoadNpy(const std::string& path, std::vector<int64_t>* shape) {
  WeftNDArray* a = nullptr;
  Check(weft_ndarray_load_npy(path.c_str(), &a), path.c_str());
  int ndim = 0;
  int64_t n = 0;
  Check(weft_ndarray_ndim(a, &ndim), "weft_ndarray_ndim");
  shape->resize(static_cast<size_t>(ndim));
  Check(weft_ndarray_shape(a, shape->data(), shape->size()), "weft_ndarray_shape");
  Check(weft_ndarray_size(a, &n), "weft_ndarray_size");
  std::vector<float> v(static_cast<size_t>(n));
  Check(weft_ndarray_copy_to(a, v.data(), v.size() * sizeof(float)), "weft_ndarray_copy_to");
  weft_ndarray_free(a);
  return v;
}

double RssMb() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "VmRSS:") {
      double kb = 0;
      f >> kb;
      return kb / 1024;
    }
    std::getline(f, key);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(
        stderr,
        "usage: %s DIR MODEL [--callers 1,2,4] [--seconds S] [--max-executors N] [--max-batch B] "
        "[--batch-delay-us D] [--batch-queue mutex|lockfree]\n",
        argv[0]);
    return 2;
  }
  const std::string dir = argv[1], model = argv[2], stem = dir + "/" + model;
  std::string callers_arg = "1,2,4", max_exec = "0", max_batch = "0", delay = "0", queue = "mutex";
  double seconds = 3;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--callers")) callers_arg = argv[i + 1];
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--max-executors")) max_exec = argv[i + 1];
    if (!std::strcmp(argv[i], "--max-batch")) max_batch = argv[i + 1];
    if (!std::strcmp(argv[i], "--batch-delay-us")) delay = argv[i + 1];
    if (!std::strcmp(argv[i], "--batch-queue")) queue = argv[i + 1];
  }
  std::string case_stem;
  for (int b : {1, 8, 64})
    if (case_stem.empty() && Exists(stem + "-b" + std::to_string(b) + "-input.npy"))
      case_stem = stem + "-b" + std::to_string(b);
  if (case_stem.empty()) {
    std::fprintf(stderr, "weft_bench_predict: no %s-b{1,8,64}-input.npy\n", stem.c_str());
    return 2;
  }
  std::vector<int64_t> in_shape, out_shape;
  std::vector<float> all_in = LoadNpy(case_stem + "-input.npy", &in_shape);
  std::vector<float> all_out = LoadNpy(case_stem + "-output.npy", &out_shape);
  const size_t in_len = all_in.size() / static_cast<size_t>(in_shape[0]);
  const size_t out_len = all_out.size() / static_cast<size_t>(out_shape[0]);
  in_shape[0] = 1;
  const std::vector<float> input(all_in.begin(), all_in.begin() + static_cast<long>(in_len));

  const double base_rss = RssMb();
  const char* names[] = {"data"};
  const size_t ind_ptr[] = {0, in_shape.size()};
  const char* keys[] = {"max_executors", "max_batch", "batch_delay_us", "batch_queue"};
  const char* vals[] = {max_exec.c_str(), max_batch.c_str(), delay.c_str(), queue.c_str()};
  WeftPredictor* pred = nullptr;
  Check(weft_predictor_create_from_files(
            (stem + "-symbol.json").c_str(), (stem + "-0000.params").c_str(), 1, names, ind_ptr,
            in_shape.data(), WEFT_CPU, 0, 0, nullptr, 4, keys, vals, &pred),
        "weft_predictor_create_from_files");
  std::vector<float> out(out_len);
  Check(weft_predictor_predict_float(pred, input.data(), input.size(), in_shape.data(),
                                     in_shape.size(), out.data(), out.size()),
        "weft_predictor_predict_float");
  double diff = 0, scale = 0;
  for (size_t i = 0; i < out_len; ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(out[i]) - all_out[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(all_out[i])));
  }
  if (diff > 1e-4 * std::max(scale, 1e-30)) {
    std::fprintf(stderr, "weft_bench_predict: %s differs from PyTorch by %g (max |expected| %g)\n",
                 model.c_str(), diff, scale);
    return 1;
  }

  std::vector<int> counts;
  for (const char* p = callers_arg.c_str(); *p;) {
    counts.push_back(std::max(1, std::atoi(p)));
    p = std::strchr(p, ',') ? std::strchr(p, ',') + 1 : p + std::strlen(p);
  }
  for (int callers : counts) {
    std::vector<std::vector<double>> lat(static_cast<size_t>(callers));
    std::atomic<bool> stop{false};
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int c = 0; c < callers; ++c)
      threads.emplace_back([&, c] {
        std::vector<float> o(out_len);
        auto call = [&] {
          Check(weft_predictor_predict_float(pred, input.data(), input.size(), in_shape.data(),
                                             in_shape.size(), o.data(), o.size()),
                "weft_predictor_predict_float");
        };
        call();  // warm-up (binds this caller's executor when needed)
        ++ready;
        while (ready.load() < callers) std::this_thread::yield();
        while (!stop.load()) {
          auto t0 = std::chrono::steady_clock::now();
          call();
          lat[static_cast<size_t>(c)].push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count());
        }
      });
    while (ready.load() < callers) std::this_thread::yield();
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (auto& t : threads) t.join();
    std::vector<double> all;
    for (const auto& l : lat) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    WeftPredictorStats st;
    Check(weft_predictor_stats(pred, &st), "weft_predictor_stats");
    const auto pct = [&](double p) {
      return all.empty() ? 0.0 : all[static_cast<size_t>(p * (all.size() - 1))];
    };
    const std::string batching = std::atoi(max_batch.c_str()) > 1
                                     ? " batching=" + queue + ":" + max_batch + ":" + delay
                                     : "";
    std::printf(
        "predict model=%s callers=%d requests=%zu req_per_s=%.1f p50_ms=%.3f p99_ms=%.3f "
        "executors=%zu "
        "weight_mb=%.2f activation_mb=%.2f rss_growth_mb=%.1f%s\n",
        model.c_str(), callers, all.size(), all.size() / elapsed, pct(0.5), pct(0.99), st.executors,
        st.weight_bytes / 1048576.0, st.activation_bytes / 1048576.0, RssMb() - base_rss,
        batching.c_str());
    std::fflush(stdout);
  }
  Check(weft_predictor_free(pred), "weft_predictor_free");
  return 0;
}
